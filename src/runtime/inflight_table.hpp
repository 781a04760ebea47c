// The inputs a bolt task holds from the moment it hands them to its component until the component
// acks or fails them: one rule set for shell and built-in bolts alike.
//
// - An input is known by a task-local id, which the component sees as its decimal text: an id
//   text names an input only if it is exactly that number.
// - Ack: each of the input's trees gets the input's edge id XOR its ack value (the XOR of the
//   edges emitted anchored to it); fail: each of its trees fails. Then the input is counted in
//   the task's stats (executed, acked or failed, process and execute latency), unless it is a
//   tick (the runtime's own clock, not work), and forgotten.
// - Anchoring: an emit anchored to held inputs records its new edges in their ack values (through
//   the AnchorRefs that Anchor gives, see delivery.hpp). An anchor that names an input forgotten
//   by Expire is skipped (its trees timed out already); one that names no input held is unknown,
//   and what to do then is the caller's (a protocol violation for a child, a dropped emit for a
//   built-in).
// - Latency: the process latency (arrival in the runtime -> ack) of every input; the execute
//   latency (handed to the component -> ack) of one input in `sample_every` (reading the clock
//   twice per tuple costs more than a cheap bolt's work; Storm samples too).
// - Expiry: inputs held longer than the message timeout (their trees timed out) can be forgotten,
//   so the table stays bounded however many acks a component forgets; the last kExpiredMemory
//   expired ids are remembered, so a late ack or anchor is told apart from an unknown one. Only
//   inputs whose handing-over time was read (all of them with sample_every 1) expire.
//
// Pure: no I/O; the times are arguments (a clock function for the sampled reads). Single-threaded.
#pragma once

#include <chrono>
#include <cstdint>
#include <deque>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_set>
#include <vector>

#include "runtime/acker.hpp"
#include "runtime/metrics.hpp"
#include "runtime/pool_allocator.hpp"
#include "runtime/tuple.hpp"

namespace sparse::runtime {

struct AnchorRef;

class InFlightTable {
 public:
  using Clock = std::chrono::steady_clock;
  static constexpr std::size_t kExpiredMemory = 65536;

  struct Input {
    RootEdges roots;
    std::uint64_t ack_val = 0;  // XOR of the edges emitted anchored to this input
    std::int64_t arrived_ns = 0;
    Clock::time_point handed{};  // when the component got it; read for timed inputs only
    bool tick = false;
    bool timed = false;
  };

  enum class Known { kHeld, kExpired, kUnknown };

  // `sample_every`: one input in so many has its execute latency measured (1: all; 0 acts as 1).
  explicit InFlightTable(unsigned sample_every = 1)
      : sample_every_(sample_every ? sample_every : 1) {}

  // The id an id text names, if it is exactly a decimal number.
  static std::optional<std::uint64_t> ParseId(std::string_view text);

  // Holds an input under `id` (unique among those held): its trees, arrival time and whether it
  // is a tick. `now()` is called once, only when this input is timed.
  template <class NowFn>
  Input& Add(std::uint64_t id, RootEdges&& roots, std::int64_t arrived_ns, bool tick, NowFn&& now) {
    Input& in = inputs_[id];
    in.roots = std::move(roots);
    in.arrived_ns = arrived_ns;
    in.tick = tick;
    if (++since_sample_ >= sample_every_) {
      since_sample_ = 0;
      in.timed = true;
      in.handed = now();
    }
    return in;
  }

  Input* Find(std::uint64_t id) {
    auto it = inputs_.find(id);
    return it == inputs_.end() ? nullptr : &it->second;
  }
  // Forgets a held input without acking or counting it (a built-in bolt's tick).
  void Forget(std::uint64_t id) { inputs_.erase(id); }

  // Resolves the anchors of an emit into `refs` (cleared first). Returns the first anchor that
  // is unknown (neither held nor expired), as a copy: the error path may outlive `anchors`;
  // `refs` is then incomplete and must not be used.
  std::optional<std::string> Anchor(const std::vector<std::string>& anchors,
                                    std::vector<AnchorRef>& refs);

  // Acks or fails the input `id_text` names, updating its trees in `acker` and counting it in
  // `stats` (see the header). `now_ns`: for the process latency; `now()`: called for a timed
  // input's execute latency. `tick` tells whether the finished input was a tick. Anything but
  // kHeld changes nothing.
  template <class NowFn>
  Known Finish(std::string_view id_text, bool ack, Acker& acker, TaskStats& stats,
               std::int64_t now_ns, NowFn&& now, bool& tick) {
    const auto id = ParseId(id_text);
    auto it = id ? inputs_.find(*id) : inputs_.end();
    if (it == inputs_.end()) return id && expired_.count(*id) ? Known::kExpired : Known::kUnknown;
    // Out of the table before its trees are settled (a completed tree calls back into the
    // runtime); the node is taken out whole, not moved from.
    const auto node = inputs_.extract(it);
    const Input& in = node.mapped();
    Settle(in, ack, acker);
    tick = in.tick;
    if (!in.tick) {
      stats.executed++;
      (ack ? stats.acked : stats.failed)++;
      if (in.timed) {
        stats.execute_latency.Add(
            std::chrono::duration<double, std::milli>(now() - in.handed).count());
      }
      stats.process_latency.Add(static_cast<double>(now_ns - in.arrived_ns) / 1e6);
    }
    return Known::kHeld;
  }

  // The component broke: every input held fails (its trees), and the table empties. Returns how
  // many of them were not ticks.
  std::size_t FailAll(Acker& acker);

  // Forgets the timed inputs handed over more than `max_age` before `now` (counted in
  // stats.expired_inputs), remembering their ids.
  void Expire(Clock::time_point now, Clock::duration max_age, TaskStats& stats);

  std::size_t size() const { return inputs_.size(); }
  bool empty() const { return inputs_.empty(); }

 private:
  static void Settle(const Input& in, bool ack, Acker& acker);

  PooledHashMap<std::uint64_t, Input> inputs_;
  unsigned sample_every_;
  unsigned since_sample_ = 0;
  std::unordered_set<std::uint64_t> expired_;  // recently forgotten ids (bounded)
  std::deque<std::uint64_t> expired_order_;
};

}  // namespace sparse::runtime
