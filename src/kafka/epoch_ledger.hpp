// The exactly-once epoch cycle of a topology, as a pure state machine: no clock is read and no
// Kafka is touched here. The coordinator (exactly_once.hpp) feeds it what happened and does what
// it answers; the unit tests drive it the same way.
//
//   kIdle --Begun--> kOpen --(age or records reached)--> kDraining --(nothing outstanding)-->
//   kCommitting --Committed--> kIdle (next epoch)
//   kOpen/kDraining --Failed--> kAborting --Aborted--> kIdle (the epoch replays)
//   kCommitting --CommitFailed--> kAborting
//
// One epoch is in flight at a time (Trident's batches pipeline; ours do not): when an epoch
// closes, spouts stop emitting until it committed, so every tuple the sinks see while an epoch
// is open belongs to it, and an abort discards exactly one epoch. What an epoch costs is its
// drain and commit; epochs of a second keep that a small share (docs/kafka.md).
#pragma once

#include <chrono>
#include <cstdint>
#include <string>

namespace sparse::kafka {

class EpochLedger {
 public:
  using Clock = std::chrono::steady_clock;
  enum class State { kIdle, kOpen, kDraining, kCommitting, kAborting };

  struct Limits {
    std::chrono::milliseconds max_age{1000};  // an epoch closes this long after it opened...
    std::int64_t max_records = 0;  // ...or once this many records were emitted (0: no cap)
  };

  explicit EpochLedger(Limits limits) : limits_(limits) {}

  State state() const { return state_; }
  // The number of the epoch open (or last opened); epochs count from 1. An epoch that aborted
  // replays under a new number, so numbers never repeat within a run.
  std::uint64_t epoch() const { return epoch_; }
  std::int64_t records() const { return records_; }
  // Aborts in a row without a commit in between (a record that always fails shows up here).
  int consecutive_aborts() const { return consecutive_aborts_; }
  const std::string& last_failure() const { return last_failure_; }

  // The transaction began: a new epoch is open from `now`.
  void Begun(Clock::time_point now);
  // Spouts may emit one more record now.
  bool MayEmit() const {
    return state_ == State::kOpen && (limits_.max_records <= 0 || records_ < limits_.max_records);
  }
  void Emitted(std::int64_t n = 1);
  // Closes the open epoch if it is old enough or full; an epoch with no record stays open (an
  // empty transaction would commit nothing). Returns true when it closed now.
  bool MaybeClose(Clock::time_point now);
  // Closes the open epoch now if it has records (the spouts were deactivated: what is in flight
  // should commit without waiting for the epoch's age). Returns true when it closed.
  bool CloseNow();
  // When the epoch opened (valid while kOpen), for the coordinator's timer.
  Clock::time_point opened_at() const { return opened_at_; }
  // Draining and nothing outstanding: the epoch is complete; moves to kCommitting and returns
  // true (once).
  bool ReadyToCommit(std::int64_t outstanding);
  void Committed();
  // A tuple of the epoch failed, timed out or was lost: moves to kAborting and returns true.
  // False (nothing to do) unless an epoch is open or draining: while it commits, all its tuples
  // are done, so a failure then belongs to an epoch already over.
  bool Failed(const std::string& why);
  // The commit failed in a way that needs an abort: kCommitting -> kAborting.
  bool CommitFailed(const std::string& why);
  void Aborted();

 private:
  Limits limits_;
  State state_ = State::kIdle;
  std::uint64_t epoch_ = 0;
  std::int64_t records_ = 0;
  int consecutive_aborts_ = 0;
  std::string last_failure_;
  Clock::time_point opened_at_{};
};

const char* EpochStateName(EpochLedger::State s);

}  // namespace sparse::kafka
