// One steady-clock reading shared by everything handled from one read of a child's output.
//
// The runtime stamps each message several times (sign of life, dispatch and ack times, tree
// start and completion, activity). Reading the clock costs tens of nanoseconds, more in a VM,
// and showed up as several percent of the runtime's CPU under load. ShellProcess opens a
// LoopClock::Batch around the messages of one read; inside it Now() returns the time that read
// completed, which is also when those messages reached the runtime. Outside any batch (timers,
// built-in components, other threads) Now() reads the clock. Per thread; batches nest.
#pragma once

#include <chrono>

namespace sparse::multilang {

class LoopClock {
 public:
  using Clock = std::chrono::steady_clock;

  static Clock::time_point Now() { return depth_ > 0 ? now_ : Clock::now(); }

  class Batch {
   public:
    Batch() {
      if (depth_++ == 0) now_ = Clock::now();
    }
    ~Batch() { --depth_; }
    Batch(const Batch&) = delete;
    Batch& operator=(const Batch&) = delete;
  };

 private:
  static inline thread_local int depth_ = 0;
  static inline thread_local Clock::time_point now_{};
};

}  // namespace sparse::multilang
