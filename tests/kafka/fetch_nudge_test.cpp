// When the spout wakes librdkafka's fetcher (kafka/fetch_nudge.hpp).
#include "kafka/fetch_nudge.hpp"

#include <gtest/gtest.h>

namespace sparse::kafka {
namespace {

using std::chrono::milliseconds;

const FetchNudge::Clock::time_point kStart{};

TEST(FetchNudge, NoNudgeWhileRecordsArrive) {
  FetchNudge n(100);
  for (int i = 0; i < 100; ++i) {
    EXPECT_FALSE(n.Due(kStart + milliseconds(10 * i), 1000 * (i + 1), 10))
        << "something arrived since the last look";
  }
  EXPECT_EQ(n.sent(), 0);
}

TEST(FetchNudge, NudgesOnceArrivalsStopBelowTheThreshold) {
  FetchNudge n(100);
  EXPECT_FALSE(n.Due(kStart, 500, 50));
  EXPECT_FALSE(n.Due(kStart + milliseconds(19), 500, 40)) << "quiet for less than the first wait";
  EXPECT_TRUE(n.Due(kStart + milliseconds(20), 500, 30));
}

TEST(FetchNudge, NoNudgeWhileTheQueueIsAtTheThreshold) {
  // librdkafka would not fetch even if woken: the nudge waits until the queue drains below.
  FetchNudge n(100);
  EXPECT_FALSE(n.Due(kStart, 500, 150));
  EXPECT_FALSE(n.Due(kStart + milliseconds(500), 500, 100));
  EXPECT_TRUE(n.Due(kStart + milliseconds(501), 500, 99)) << "quiet for long: at once";
}

TEST(FetchNudge, OneInFlightAtATime) {
  FetchNudge n(100);
  n.Due(kStart, 500, 0);
  ASSERT_TRUE(n.Due(kStart + milliseconds(20), 500, 0));
  n.Sent(kStart + milliseconds(20));
  EXPECT_FALSE(n.Due(kStart + milliseconds(5000), 500, 0)) << "the first has not returned";
  n.Done();
  EXPECT_TRUE(n.Due(kStart + milliseconds(5000), 500, 0));
  EXPECT_EQ(n.sent(), 1);
}

TEST(FetchNudge, BacksOffWhileNudgesBringNothingAndStartsAfreshOnAnArrival) {
  // An idle topic: every nudge finds nothing to fetch. The waits double up to a second.
  FetchNudge n(100);
  auto now = kStart;
  n.Due(now, 500, 0);
  const int expected_waits[] = {20, 40, 80, 160, 320, 640, 1000, 1000};
  for (int wait : expected_waits) {
    EXPECT_FALSE(n.Due(now + milliseconds(wait - 1), 500, 0)) << wait;
    now += milliseconds(wait);
    ASSERT_TRUE(n.Due(now, 500, 0)) << wait;
    n.Sent(now);
    n.Done();
  }
  // A record arrives: back to the first wait.
  EXPECT_FALSE(n.Due(now + milliseconds(1), 501, 0));
  EXPECT_TRUE(n.Due(now + milliseconds(21), 501, 0));
}

}  // namespace
}  // namespace sparse::kafka
