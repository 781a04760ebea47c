// How far ahead of their syncs a shell spout's `next` commands may be written, and since when the
// spout has been working on the oldest command it has not answered.
//
// A spout answers its commands in order, one `sync` each. Writing `next`s ahead saves a round trip
// per tuple, but every command written after them (an ack, a fail, `deactivate`) waits behind
// them in the pipe. So the window is as many `next`s as the spout answers within kBudget at its
// recent pace (time per command answered), between 1 and sparse.spout.max.unsynced.nexts: a spout
// answering in microseconds gets the whole window, one that blocks for a second in next_tuple()
// gets one `next` at a time, as in Storm.
//
// A command waits in the pipe until the spout has answered the ones before it, so its time counts
// from its write or from the previous sync, whichever came later. That is the time it is given
// before the spout is declared stuck (topology.subprocess.timeout.secs), and the pace learned.
//
// Pure: the spout task tells it when commands are synced and asks.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>

namespace sparse::runtime {

class NextWindow {
 public:
  using Clock = std::chrono::steady_clock;
  // How long a command may wait behind the `next`s written ahead of it, at the spout's pace.
  static constexpr Clock::duration kBudget = std::chrono::milliseconds(50);

  // most_ahead: sparse.spout.max.unsynced.nexts (at least 1).
  explicit NextWindow(std::size_t most_ahead);

  // The oldest command unsynced, written at `sent`, was synced at `now`: its time teaches the
  // pace.
  void Synced(Clock::time_point sent, Clock::time_point now);
  // Since when the spout has been working on the oldest command unsynced, written at `sent`.
  Clock::time_point WorkingSince(Clock::time_point sent) const {
    return sent > last_sync_ ? sent : last_sync_;
  }
  // How many `next`s may be unsynced at once while the spout keeps emitting.
  std::size_t Allowed() const;
  // A new process: nothing learned, nothing synced.
  void Reset();

 private:
  std::size_t most_ahead_;
  Clock::time_point last_sync_{};
  // The recent past: commands answered and the time they took together (pace: busy_ / answered_).
  static constexpr std::int64_t kMemory = 64;
  Clock::duration busy_{};
  std::int64_t answered_ = 0;
};

}  // namespace sparse::runtime
