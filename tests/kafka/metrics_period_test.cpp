// The gauges' period and the records_per_sec rate the spout and the bolt share
// (kafka/metrics_period.hpp).
#include "kafka/metrics_period.hpp"

#include <gtest/gtest.h>

namespace sparse::kafka {
namespace {

using std::chrono::milliseconds;

const MetricsPeriod::Clock::time_point kMetricsStart{};

TEST(MetricsPeriod, DueEveryMetricsPeriod) {
  MetricsPeriod m;
  m.Start(kMetricsStart);
  EXPECT_FALSE(m.Due(kMetricsStart + kMetricsEvery - milliseconds(1)));
  EXPECT_TRUE(m.Due(kMetricsStart + kMetricsEvery));
  const auto late = kMetricsStart + kMetricsEvery + milliseconds(300);
  m.End(late, 0);
  EXPECT_FALSE(m.Due(late + kMetricsEvery - milliseconds(1))) << "counted from when it ended";
  EXPECT_TRUE(m.Due(late + kMetricsEvery));
}

TEST(MetricsPeriod, TheRateIsOverThePeriodThatEnded) {
  MetricsPeriod m;
  m.Start(kMetricsStart);
  auto rate = m.End(kMetricsStart + milliseconds(500), 100);
  ASSERT_TRUE(rate);
  EXPECT_DOUBLE_EQ(*rate, 200.0);
  rate = m.End(kMetricsStart + milliseconds(2500), 700);
  ASSERT_TRUE(rate);
  EXPECT_DOUBLE_EQ(*rate, 300.0) << "600 more in 2 s";
}

TEST(MetricsPeriod, NoRateWhenNoTimePassed) {
  MetricsPeriod m;
  m.Start(kMetricsStart);
  EXPECT_FALSE(m.End(kMetricsStart, 5));
  EXPECT_DOUBLE_EQ(*m.End(kMetricsStart + milliseconds(1000), 5), 0.0)
      << "the 5 were counted by the period that ended with no time";
}

}  // namespace
}  // namespace sparse::kafka
