// When a failed task is restarted, and when its failures are a crash loop that stops the run.
//
// Each task keeps the times of its restarts within the last `window`. A failure when `max` of
// them are already in the window is a crash loop; otherwise the task restarts after a backoff that
// doubles with each restart still in the window (`base`, 2 x base, 4 x base, ... up to `cap`).
// Storm's supervisor restarts a dead worker the same way, without the crash-loop stop: locally a
// user wants the run to end and say why rather than spin.
//
// Pure: the time is passed in; the cluster owns the timers.
#pragma once

#include <chrono>
#include <cstdint>
#include <deque>
#include <vector>

namespace sparse::runtime {

class RestartPolicy {
 public:
  using Clock = std::chrono::steady_clock;

  struct Limits {
    std::int64_t max = 5;  // restarts allowed within `window` (sparse.restart.max)
    std::chrono::nanoseconds window = std::chrono::seconds(60);
    std::chrono::milliseconds base{100};  // sparse.restart.backoff.ms
    std::chrono::milliseconds cap{5000};  // sparse.restart.backoff.max.ms
  };

  struct Decision {
    bool crash_loop = false;               // stop the run: too many failures within the window
    int failures = 0;                      // failures within the window, this one included
    std::chrono::milliseconds backoff{0};  // when not a crash loop: wait this long, then restart
  };

  explicit RestartPolicy(int tasks) : history_(static_cast<std::size_t>(tasks) + 1) {}

  // Task `task` (1-based) failed at `now`, under `limits` (its component's). A restart it allows
  // is recorded at `now`.
  Decision OnFailure(int task, const Limits& limits, Clock::time_point now);

 private:
  std::vector<std::deque<Clock::time_point>> history_;  // restarts within the window, by task
};

}  // namespace sparse::runtime
