#include "runtime/capacity.hpp"

#include <gtest/gtest.h>

#include <map>

namespace sparse::runtime {
namespace {

using std::chrono::milliseconds;

TEST(CapacityMeter, TheBusiestTaskOfAComponentOverTheLastIntervalAtMostOne) {
  // Tasks 1, 2 -> component 0; task 3 -> component 1.
  CapacityMeter m({-1, 0, 0, 1}, 2);
  const auto t0 = CapacityMeter::Clock::time_point{} + std::chrono::hours(1);
  m.Start(t0);
  std::map<int, double> busy{{1, 100}, {2, 500}, {3, 1500}};
  auto of = [&](int t) -> std::optional<double> { return busy[t]; };
  m.Sample(of, t0 + milliseconds(1000));
  EXPECT_DOUBLE_EQ(m.Of(0), 0.5);
  EXPECT_DOUBLE_EQ(m.Of(1), 1.0) << "capped";
  EXPECT_DOUBLE_EQ(m.OfTask(1), 0.1);
  EXPECT_DOUBLE_EQ(m.OfTask(2), 0.5);
  EXPECT_DOUBLE_EQ(m.OfTask(3), 1.0);
  busy = {{1, 600}, {2, 600}, {3, 1600}};  // the next second: task 1 busy half of it
  m.Sample(of, t0 + milliseconds(2000));
  EXPECT_DOUBLE_EQ(m.Of(0), 0.5);
  EXPECT_DOUBLE_EQ(m.Of(1), 0.1);
}

TEST(CapacityMeter, AnIntervalTooShortKeepsThePreviousFigures) {
  CapacityMeter m({-1, 0}, 1);
  const auto t0 = CapacityMeter::Clock::time_point{};
  m.Start(t0);
  double busy = 250;
  auto of = [&](int) -> std::optional<double> { return busy; };
  m.Sample(of, t0 + milliseconds(1000));
  EXPECT_DOUBLE_EQ(m.Of(0), 0.25);
  busy = 260;
  m.Sample(of, t0 + milliseconds(1040));
  EXPECT_DOUBLE_EQ(m.Of(0), 0.25);
  m.Sample(of, t0 + milliseconds(1100));  // 100 ms since the last real sample, 10 ms busy
  EXPECT_NEAR(m.Of(0), 0.1, 1e-9);
}

TEST(CapacityMeter, ATaskThatDoesNotExistIsSkipped) {
  CapacityMeter m({-1, 0, 0}, 1);
  const auto t0 = CapacityMeter::Clock::time_point{};
  m.Start(t0);
  auto of = [&](int t) -> std::optional<double> {
    if (t == 1) return std::nullopt;
    return 300.0;
  };
  m.Sample(of, t0 + milliseconds(1000));
  EXPECT_DOUBLE_EQ(m.Of(0), 0.3);
}

}  // namespace
}  // namespace sparse::runtime
