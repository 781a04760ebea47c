// When backpressure pauses the Kafka spout's partitions. Short episodes of backpressure cost
// nothing (librdkafka's prefetch queue is bounded, see queued.max.messages.kbytes); pausing and
// resuming partitions has a price (the prefetched records are dropped and fetched again), so
// partitions are paused only once backpressure lasted backpressure_pause_ms, and resume as soon
// as it ends. Pure: the time is an argument.
#pragma once

#include <chrono>

namespace sparse::kafka {

class BackpressurePause {
 public:
  using Clock = std::chrono::steady_clock;

  explicit BackpressurePause(std::chrono::milliseconds after) : after_(after) {}

  // The runtime turned backpressure on or off at `now` (on again restarts the wait). True when
  // the partitions are to resume now: it ended while they were paused.
  bool Set(bool on, Clock::time_point now) {
    on_ = on;
    since_ = now;
    if (on || !paused_) return false;
    paused_ = false;
    return true;
  }
  // True when the partitions are to be paused now: backpressure lasted long enough (once per
  // episode).
  bool Due(Clock::time_point now) {
    if (!on_ || paused_ || now - since_ < after_) return false;
    paused_ = true;
    return true;
  }
  // The partitions are paused for backpressure.
  bool paused() const { return paused_; }

 private:
  std::chrono::milliseconds after_;
  bool on_ = false;
  bool paused_ = false;
  Clock::time_point since_{};
};

}  // namespace sparse::kafka
