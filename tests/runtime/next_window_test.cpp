#include "runtime/next_window.hpp"

#include <gtest/gtest.h>

namespace sparse::runtime {
namespace {

using namespace std::chrono_literals;
using Clock = NextWindow::Clock;

const Clock::time_point t0 = Clock::time_point{} + 1h;

TEST(NextWindow, WholeWindowUntilAPaceIsKnown) {
  NextWindow w(32);
  EXPECT_EQ(w.Allowed(), 32u);
  NextWindow one(0);  // refused by config validation; never less than one `next`
  EXPECT_EQ(one.Allowed(), 1u);
}

TEST(NextWindow, AFastSpoutGetsTheWholeWindow) {
  NextWindow w(32);
  w.Synced(t0, t0 + 20us);
  EXPECT_EQ(w.Allowed(), 32u);
}

TEST(NextWindow, ASlowSpoutGetsOneNextAtATime) {
  NextWindow w(32);
  w.Synced(t0, t0 + 1200ms);
  EXPECT_EQ(w.Allowed(), 1u);
}

TEST(NextWindow, AsManyAsItAnswersWithinTheBudget) {
  NextWindow w(32);
  w.Synced(t0, t0 + 10ms);
  EXPECT_EQ(w.Allowed(), 5u);  // 50 ms / 10 ms
}

TEST(NextWindow, ACommandWaitingBehindOthersCountsFromThePreviousSync) {
  NextWindow w(32);
  // Three `next`s written at t0; the spout takes 1 s for each.
  w.Synced(t0, t0 + 1s);
  EXPECT_EQ(w.WorkingSince(t0), t0 + 1s) << "the second could start only at the first's sync";
  w.Synced(t0, t0 + 2s);
  EXPECT_EQ(w.WorkingSince(t0), t0 + 2s);
  // Its pace is 1 s per `next`, not the 2 s since the second was written.
  EXPECT_EQ(w.Allowed(), 1u);
  // A command written after the last sync counts from its write.
  EXPECT_EQ(w.WorkingSince(t0 + 5s), t0 + 5s);
}

TEST(NextWindow, SyncsReadTogetherAverageToTheirPace) {
  NextWindow w(32);
  // Eight `next`s answered in 16 ms, read in one batch: the first takes it all, the rest zero.
  for (int round = 0; round < 20; ++round) {
    const Clock::time_point sent = t0 + round * 16ms;
    const Clock::time_point synced = sent + 16ms;
    for (int i = 0; i < 8; ++i) w.Synced(sent, synced);
  }
  // 2 ms per `next`: 25 fit in 50 ms.
  EXPECT_EQ(w.Allowed(), 25u);
}

TEST(NextWindow, ASpoutThatTurnsFastAgainWidensItsWindow) {
  NextWindow w(32);
  Clock::time_point now = t0;
  for (int i = 0; i < 64; ++i) {
    w.Synced(now, now + 1s);
    now += 1s;
  }
  ASSERT_EQ(w.Allowed(), 1u);
  int nexts = 0;
  while (w.Allowed() < 32 && nexts < 10000) {
    w.Synced(now, now + 10us);
    now += 10us;
    ++nexts;
  }
  EXPECT_EQ(w.Allowed(), 32u);
  EXPECT_LE(nexts, 1000) << "a thousand fast round trips take milliseconds";
}

TEST(NextWindow, ASpoutThatTurnsSlowNarrowsItsWindowWithinAFewNexts) {
  NextWindow w(32);
  Clock::time_point now = t0;
  for (int i = 0; i < 50; ++i) {
    w.Synced(now, now + 10us);
    now += 10us;
  }
  ASSERT_EQ(w.Allowed(), 32u);
  int nexts = 0;
  while (w.Allowed() > 1 && nexts < 100) {
    w.Synced(now, now + 500ms);
    now += 500ms;
    ++nexts;
  }
  EXPECT_EQ(w.Allowed(), 1u);
  EXPECT_LE(nexts, 3);
}

TEST(NextWindow, ASlowNextAnsweredTogetherWithAnEarlierCommandStillCounts) {
  // `activate` and a `next` written together at t0, both synced in one write 1.2 s later: the
  // first sync takes the time (Storm's adapters and ours answer commands in order).
  NextWindow w(32);
  w.Synced(t0, t0 + 1200ms);
  w.Synced(t0, t0 + 1200ms);
  EXPECT_EQ(w.Allowed(), 1u);
}

TEST(NextWindow, ResetForgetsThePaceAndTheLastSync) {
  NextWindow w(32);
  w.Synced(t0, t0 + 1s);
  w.Reset();
  EXPECT_EQ(w.Allowed(), 32u);
  EXPECT_EQ(w.WorkingSince(t0), t0);
}

}  // namespace
}  // namespace sparse::runtime
