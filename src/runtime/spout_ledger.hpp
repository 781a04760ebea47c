// The bookkeeping of the tuple trees one spout task started, one rule set for shell and built-in
// spouts alike. The counts live in the task's TaskStats (pending, acked, failed, timed_out,
// abandoned, backpressure_ms), which is what the stats and the web view show.
//
// - An emit with a message id starts a tree while acking is on: one more pending. With acking
//   off (topology.acker.executors: 0) it counts as acked at once and the spout is to be told so,
//   as Storm does. An emit without a message id is not tracked.
// - topology.max.spout.pending (unset or <= 0: no cap, and no cap without acking): no new tuple
//   is asked for while the pending trees, plus the tuples already asked for and not yet emitted,
//   reach it.
// - A tree's outcome: acked, or failed (a timeout is counted as both timed out and failed), is
//   to be told to the spout; an abandoned tree (its spout task died) is only counted, as nobody
//   who emitted it is left to tell.
// - A reliable tuple the runtime could not emit counts as failed (the caller tells the spout).
// - The time spent throttled by backpressure, from the first throttled check to the first one
//   that is not.
//
// Pure: no I/O; the time is an argument. Single-threaded, like the tasks.
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string_view>

#include "runtime/acker.hpp"
#include "runtime/metrics.hpp"

namespace sparse::runtime {

class ConfigView;

class SpoutLedger {
 public:
  using Clock = std::chrono::steady_clock;

  struct Limits {
    bool acking = true;
    std::optional<std::int64_t> max_pending;
  };
  // Acking and topology.max.spout.pending from a spout's effective config.
  static Limits LimitsOf(const ConfigView& conf);

  SpoutLedger(TaskStats& stats, Limits limits) : stats_(stats), limits_(limits) {}

  // What became of an emit, by its message id (JSON text; empty: unreliable).
  enum class Emit {
    kUntracked,  // no message id: nothing to tell the spout, ever
    kTracked,    // a tree was started (pending + 1): its outcome comes through TreeDone
    kAckAtOnce,  // acking is off: counted as acked; tell the spout `ack` now
  };
  Emit Emitted(std::string_view message_id);

  // True while no new tuple may be asked for: `asked` tuples may still come from requests
  // already made (a shell spout's `next`s in flight).
  bool Full(std::int64_t asked = 0) const;

  // What to tell the spout about a completed tree.
  enum class Tell { kAck, kFail, kNothing };
  Tell TreeDone(TreeOutcome outcome);

  // A reliable tuple (with a message id) that could not be emitted.
  void FailedAtEmit() { stats_.failed++; }

  // The spout's trees were all abandoned (its process died): none is pending any more.
  void ForgetPending() { stats_.pending = 0; }

  // Backpressure as seen by the spout at `now`; returns the change, if any.
  enum class Throttle { kUnchanged, kStarted, kEnded };
  Throttle Throttled(bool throttled, Clock::time_point now);
  // Forgets a throttled period without counting it (the spout stopped meanwhile).
  void ForgetThrottle() { throttled_since_.reset(); }

 private:
  TaskStats& stats_;
  Limits limits_;
  std::optional<Clock::time_point> throttled_since_;
};

}  // namespace sparse::runtime
