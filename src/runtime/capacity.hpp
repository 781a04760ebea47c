// Storm's *capacity* of a component: the share of the last interval its busiest task spent
// executing (1.0: it could not have done more; a bottleneck). Computed from each task's
// cumulative busy time, sampled when a snapshot is taken; an interval shorter than 50 ms keeps
// the previous figures (too short to mean anything).
//
// Pure: busy times and the time are passed in.
#pragma once

#include <chrono>
#include <functional>
#include <optional>
#include <vector>

namespace sparse::runtime {

class CapacityMeter {
 public:
  using Clock = std::chrono::steady_clock;

  // `component_of[t]`: task t's component (index 0 unused), of `components` components.
  CapacityMeter(std::vector<int> component_of, std::size_t components);

  // Starts the first interval at `now`.
  void Start(Clock::time_point now) { last_at_ = now; }
  // `busy_ms(t)`: task t's busy time so far in ms, nullopt for a task that does not exist (yet).
  void Sample(const std::function<std::optional<double>(int task)>& busy_ms, Clock::time_point now);
  // The component's capacity over the last interval, at most 1.
  double Of(int component) const;
  // One task's share of the last interval spent executing, at most 1.
  double OfTask(int task) const;

 private:
  std::vector<int> component_of_;
  std::vector<double> last_busy_ms_;   // by task
  std::vector<double> task_capacity_;  // by task
  std::vector<double> capacity_;       // by component
  Clock::time_point last_at_{};
};

}  // namespace sparse::runtime
