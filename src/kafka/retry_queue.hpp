// The Kafka spout's retries, as a pure structure (the time is an argument, no Kafka call): which
// failed record is emitted again when, and when a record is given up.
//
// A failed tuple is emitted again after an exponential backoff (RetryOptions::DelayMs of its
// failure count) until it failed max_retries times (-1: forever); then the spout gives it up
// (on_give_up: skip, or write it to the dead-letter topic). A dead-letter write that fails is
// retried the same way, forever: the record is only done once it is written.
//
// Entries name a record by the slot of its partition and its offset (as message ids do): an
// entry whose partition went away, or whose record is done by then, is dropped by the caller.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <optional>
#include <queue>
#include <vector>

#include "kafka/options.hpp"

namespace sparse::kafka {

class RetryQueue {
 public:
  using Clock = std::chrono::steady_clock;
  enum class Kind {
    kTuple,       // emit the record's tuple again
    kDeadLetter,  // write the given-up record to the dead-letter topic again
  };
  struct Entry {
    Clock::time_point due;
    std::int64_t slot = 0;
    std::int64_t offset = 0;
    Kind kind = Kind::kTuple;
    bool operator>(const Entry& o) const { return due > o.due; }
  };

  explicit RetryQueue(RetryOptions options) : options_(options) {}

  // A record's tuple failed, `failures` times so far (1 the first time). True when it was queued
  // to be emitted again after its backoff; false when it is to be given up.
  bool TupleFailed(Clock::time_point now, std::int64_t slot, std::int64_t offset, int failures);
  // Writing a given-up record to the dead-letter topic failed: queued to be written again after
  // the backoff of its tuple's failures (at least the first one's).
  void DeadLetterFailed(Clock::time_point now, std::int64_t slot, std::int64_t offset,
                        int failures);

  // The earliest entry due at `now`, taken off the queue; nothing when none is due.
  std::optional<Entry> PopDue(Clock::time_point now);
  std::size_t size() const { return queue_.size(); }
  bool empty() const { return queue_.empty(); }

 private:
  RetryOptions options_;
  std::priority_queue<Entry, std::vector<Entry>, std::greater<>> queue_;
};

}  // namespace sparse::kafka
