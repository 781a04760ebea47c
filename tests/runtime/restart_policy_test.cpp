#include "runtime/restart_policy.hpp"

#include <gtest/gtest.h>

namespace sparse::runtime {
namespace {

using std::chrono::milliseconds;
using std::chrono::seconds;

RestartPolicy::Limits Limits() {
  RestartPolicy::Limits l;
  l.max = 3;
  l.window = seconds(10);
  l.base = milliseconds(100);
  l.cap = milliseconds(350);
  return l;
}

TEST(RestartPolicy, BackoffDoublesUpToTheCapThenACrashLoopStopsTheRun) {
  RestartPolicy p(2);
  const auto t0 = RestartPolicy::Clock::time_point{} + seconds(100);
  auto d = p.OnFailure(1, Limits(), t0);
  EXPECT_FALSE(d.crash_loop);
  EXPECT_EQ(d.failures, 1);
  EXPECT_EQ(d.backoff, milliseconds(100));
  EXPECT_EQ(p.OnFailure(1, Limits(), t0 + seconds(1)).backoff, milliseconds(200));
  EXPECT_EQ(p.OnFailure(1, Limits(), t0 + seconds(2)).backoff, milliseconds(350)) << "capped";
  d = p.OnFailure(1, Limits(), t0 + seconds(3));
  EXPECT_TRUE(d.crash_loop);
  EXPECT_EQ(d.failures, 4);
}

TEST(RestartPolicy, FailuresOutsideTheWindowAreForgotten) {
  RestartPolicy p(1);
  const auto t0 = RestartPolicy::Clock::time_point{} + seconds(100);
  p.OnFailure(1, Limits(), t0);
  p.OnFailure(1, Limits(), t0 + seconds(1));
  auto d = p.OnFailure(1, Limits(), t0 + milliseconds(10500));  // only the second is within 10 s
  EXPECT_FALSE(d.crash_loop);
  EXPECT_EQ(d.failures, 2);
  EXPECT_EQ(d.backoff, milliseconds(200));
  d = p.OnFailure(1, Limits(), t0 + seconds(40));
  EXPECT_EQ(d.failures, 1);
  EXPECT_EQ(d.backoff, milliseconds(100)) << "a long quiet period starts over";
}

TEST(RestartPolicy, EachTaskHasItsOwnHistoryAndZeroRestartsMeansTheFirstFailureStops) {
  RestartPolicy p(2);
  const auto t0 = RestartPolicy::Clock::time_point{};
  for (int i = 0; i < 3; ++i) p.OnFailure(1, Limits(), t0);
  EXPECT_FALSE(p.OnFailure(2, Limits(), t0).crash_loop);
  auto none = Limits();
  none.max = 0;
  EXPECT_TRUE(p.OnFailure(2, none, t0).crash_loop);
}

TEST(RestartPolicy, ANoBackoffPolicyRestartsAtOnce) {
  RestartPolicy p(1);
  auto l = Limits();
  l.base = milliseconds(0);
  const auto t0 = RestartPolicy::Clock::time_point{};
  EXPECT_EQ(p.OnFailure(1, l, t0).backoff, milliseconds(0));
  EXPECT_EQ(p.OnFailure(1, l, t0).backoff, milliseconds(0));
}

}  // namespace
}  // namespace sparse::runtime
