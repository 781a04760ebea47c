// When the Kafka spout and bolt publish their gauges (every kMetricsEvery), and the rate both
// publish as kafka.records_per_sec (records read, for the spout; records delivered, for the
// bolt), computed one way for both. Pure: the time is an argument.
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>

#include "kafka/options.hpp"

namespace sparse::kafka {

inline constexpr const char* kRecordsPerSecGauge = "kafka.records_per_sec";

class MetricsPeriod {
 public:
  using Clock = std::chrono::steady_clock;

  // The first period starts at `now`.
  void Start(Clock::time_point now) {
    started_ = now;
    next_ = now + kMetricsEvery;
  }
  // The gauges are due (the period is over).
  bool Due(Clock::time_point now) const { return now >= next_; }
  // Ends the period at `now` and starts the next. Returns how fast `total` (a running count)
  // grew over the period that ended, per second; nothing when no time passed.
  std::optional<double> End(Clock::time_point now, std::uint64_t total);

 private:
  Clock::time_point started_{};
  Clock::time_point next_{};
  std::uint64_t total_at_start_ = 0;
};

}  // namespace sparse::kafka
