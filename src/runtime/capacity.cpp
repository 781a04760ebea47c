#include "runtime/capacity.hpp"

#include <algorithm>

namespace sparse::runtime {

namespace {
constexpr double kShortestIntervalMs = 50;
}

CapacityMeter::CapacityMeter(std::vector<int> component_of, std::size_t components)
    : component_of_(std::move(component_of)),
      last_busy_ms_(component_of_.size(), 0),
      task_capacity_(component_of_.size(), 0),
      capacity_(components, 0) {}

void CapacityMeter::Sample(const std::function<std::optional<double>(int task)>& busy_ms,
                           Clock::time_point now) {
  const double interval_ms = std::chrono::duration<double, std::milli>(now - last_at_).count();
  if (interval_ms <= kShortestIntervalMs) return;
  std::vector<double> busiest(capacity_.size(), 0);
  for (std::size_t t = 1; t < component_of_.size(); ++t) {
    const auto busy = busy_ms(static_cast<int>(t));
    if (!busy) continue;
    const auto c = static_cast<std::size_t>(component_of_[t]);
    const double share = (*busy - last_busy_ms_[t]) / interval_ms;
    task_capacity_[t] = std::min(1.0, share);
    busiest[c] = std::max(busiest[c], share);
    last_busy_ms_[t] = *busy;
  }
  capacity_ = std::move(busiest);
  last_at_ = now;
}

double CapacityMeter::OfTask(int task) const {
  const auto t = static_cast<std::size_t>(task);
  return t < task_capacity_.size() ? task_capacity_[t] : 0;
}

double CapacityMeter::Of(int component) const {
  return std::min(1.0, capacity_[static_cast<std::size_t>(component)]);
}

}  // namespace sparse::runtime
