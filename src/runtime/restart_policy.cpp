#include "runtime/restart_policy.hpp"

#include <algorithm>

namespace sparse::runtime {

RestartPolicy::Decision RestartPolicy::OnFailure(int task, const Limits& limits,
                                                 Clock::time_point now) {
  Decision d;
  if (task < 0 || static_cast<std::size_t>(task) >= history_.size()) {
    history_.resize(static_cast<std::size_t>(std::max(task, 0)) + 1);
  }
  auto& history = history_[static_cast<std::size_t>(task)];
  while (!history.empty() && now - history.front() > limits.window) history.pop_front();
  d.failures = static_cast<int>(history.size()) + 1;
  if (static_cast<std::int64_t>(history.size()) >= limits.max) {
    d.crash_loop = true;
    return d;
  }
  std::int64_t backoff = limits.base.count();
  const std::int64_t cap = limits.cap.count();
  for (std::size_t i = 0; i < history.size() && backoff < cap; ++i) backoff *= 2;
  d.backoff = std::chrono::milliseconds(std::min(backoff, cap));
  history.push_back(now);
  return d;
}

}  // namespace sparse::runtime
