#include "kafka/metrics_period.hpp"

namespace sparse::kafka {

std::optional<double> MetricsPeriod::End(Clock::time_point now, std::uint64_t total) {
  next_ = now + kMetricsEvery;
  const double secs = std::chrono::duration<double>(now - started_).count();
  std::optional<double> rate;
  if (secs > 0) rate = static_cast<double>(total - total_at_start_) / secs;
  total_at_start_ = total;
  started_ = now;
  return rate;
}

}  // namespace sparse::kafka
