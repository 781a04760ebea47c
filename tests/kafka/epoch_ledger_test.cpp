// The exactly-once epoch cycle (kafka/epoch_ledger.hpp), driven by hand: when epochs open,
// close, commit and abort, and what may be emitted in between.
#include "kafka/epoch_ledger.hpp"

#include <gtest/gtest.h>

namespace sparse::kafka {
namespace {

using State = EpochLedger::State;
using std::chrono::milliseconds;

const EpochLedger::Clock::time_point t0{};

TEST(EpochLedger, NothingIsEmittedBeforeTheFirstEpochBegins) {
  EpochLedger l({milliseconds(100), 0});
  EXPECT_EQ(l.state(), State::kIdle);
  EXPECT_FALSE(l.MayEmit());
  l.Begun(t0);
  EXPECT_EQ(l.epoch(), 1u);
  EXPECT_TRUE(l.MayEmit());
}

TEST(EpochLedger, ClosesByAgeOnlyWithRecords) {
  EpochLedger l({milliseconds(100), 0});
  l.Begun(t0);
  EXPECT_FALSE(l.MaybeClose(t0 + milliseconds(500))) << "an empty epoch stays open";
  l.Emitted();
  EXPECT_FALSE(l.MaybeClose(t0 + milliseconds(99)));
  EXPECT_TRUE(l.MaybeClose(t0 + milliseconds(100)));
  EXPECT_EQ(l.state(), State::kDraining);
  EXPECT_FALSE(l.MayEmit()) << "a closed epoch takes no more records";
  EXPECT_FALSE(l.MaybeClose(t0 + milliseconds(200))) << "closes once";
}

TEST(EpochLedger, ClosesByRecordCount) {
  EpochLedger l({milliseconds(100'000), 3});
  l.Begun(t0);
  l.Emitted();
  l.Emitted();
  EXPECT_TRUE(l.MayEmit());
  l.Emitted();
  EXPECT_FALSE(l.MayEmit());
  EXPECT_TRUE(l.MaybeClose(t0));
}

TEST(EpochLedger, CommitsOnlyWhenDrainedAndNothingOutstanding) {
  EpochLedger l({milliseconds(10), 0});
  l.Begun(t0);
  l.Emitted(5);
  EXPECT_FALSE(l.ReadyToCommit(0)) << "still open";
  ASSERT_TRUE(l.CloseNow());
  EXPECT_FALSE(l.ReadyToCommit(2));
  EXPECT_TRUE(l.ReadyToCommit(0));
  EXPECT_EQ(l.state(), State::kCommitting);
  EXPECT_FALSE(l.ReadyToCommit(0)) << "once";
  EXPECT_FALSE(l.Failed("late failure")) << "while committing every tuple is done already";
  l.Committed();
  EXPECT_EQ(l.state(), State::kIdle);
  l.Begun(t0);
  EXPECT_EQ(l.epoch(), 2u);
  EXPECT_EQ(l.records(), 0);
}

TEST(EpochLedger, AFailureAbortsOnceAndTheReplayGetsANewNumber) {
  EpochLedger l({milliseconds(10), 0});
  l.Begun(t0);
  l.Emitted(4);
  EXPECT_TRUE(l.Failed("tuple failed"));
  EXPECT_EQ(l.state(), State::kAborting);
  EXPECT_FALSE(l.Failed("another")) << "one abort per epoch";
  EXPECT_EQ(l.last_failure(), "tuple failed");
  EXPECT_FALSE(l.MayEmit());
  l.Aborted();
  EXPECT_EQ(l.consecutive_aborts(), 1);
  l.Begun(t0);
  EXPECT_EQ(l.epoch(), 2u);
  l.Emitted();
  ASSERT_TRUE(l.Failed("again"));
  l.Aborted();
  EXPECT_EQ(l.consecutive_aborts(), 2);
  l.Begun(t0);
  l.Emitted();
  l.CloseNow();
  ASSERT_TRUE(l.ReadyToCommit(0));
  l.Committed();
  EXPECT_EQ(l.consecutive_aborts(), 0) << "a commit ends the run of aborts";
}

TEST(EpochLedger, FailuresOutsideAnEpochChangeNothing) {
  EpochLedger l({milliseconds(10), 0});
  EXPECT_FALSE(l.Failed("stale"));
  EXPECT_EQ(l.state(), State::kIdle);
  l.Begun(t0);
  l.Emitted();
  l.CloseNow();
  ASSERT_TRUE(l.ReadyToCommit(0));
  EXPECT_TRUE(l.CommitFailed("broker said abort"));
  EXPECT_EQ(l.state(), State::kAborting);
  l.Aborted();
  EXPECT_FALSE(l.CommitFailed("not committing"));
}

}  // namespace
}  // namespace sparse::kafka
