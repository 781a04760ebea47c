// When the at-least-once spout commits, what, and what a result changes
// (kafka/commit_schedule.hpp), without a broker.
#include "kafka/commit_schedule.hpp"

#include <gtest/gtest.h>

namespace sparse::kafka {
namespace {

using std::chrono::milliseconds;
using Result = CommitSchedule::Result;

const CommitSchedule::Clock::time_point kCommitStart{};

// A partition that read offsets [from, to).
SpoutPartition Read(std::int64_t from, std::int64_t to) {
  SpoutPartition p;
  p.topic = "t";
  p.name = "t[0]";
  for (std::int64_t o = from; o < to; ++o) p.offsets.Add(o);
  return p;
}

TEST(CommitSchedule, DueEveryIntervalOrWhenRequested) {
  CommitSchedule s(milliseconds(1000), 100);
  s.Start(kCommitStart);
  EXPECT_FALSE(s.Due(kCommitStart + milliseconds(999)));
  EXPECT_TRUE(s.Due(kCommitStart + milliseconds(1000)));
  s.Began(kCommitStart + milliseconds(1000));
  EXPECT_FALSE(s.Due(kCommitStart + milliseconds(1999)));
  s.Request();
  EXPECT_TRUE(s.Due(kCommitStart + milliseconds(1001)));
  s.Began(kCommitStart + milliseconds(1001));
  EXPECT_FALSE(s.requested());
  EXPECT_FALSE(s.Due(kCommitStart + milliseconds(2000)));
  EXPECT_TRUE(s.Due(kCommitStart + milliseconds(2001)));
}

TEST(CommitSchedule, TakesTheCommitPointOncePerRound) {
  CommitSchedule s(milliseconds(1000), 100);
  SpoutPartition p = Read(0, 5);
  EXPECT_EQ(s.Take(p), 0) << "nothing done: the first offset read (where a restart resumes)";
  EXPECT_EQ(s.Settled(p, 0, true), Result::kCommitted);
  EXPECT_FALSE(s.Take(p)) << "nothing new to commit";
  ASSERT_TRUE(s.Done(p, 0));
  ASSERT_TRUE(s.Done(p, 1));
  ASSERT_TRUE(s.Done(p, 3));
  EXPECT_EQ(s.Take(p), 2) << "3 is done but 2 is not";
  EXPECT_TRUE(p.commit_in_flight);
  ASSERT_TRUE(s.Done(p, 2));
  EXPECT_FALSE(s.Take(p)) << "one commit in flight per partition";
  EXPECT_EQ(s.Settled(p, 2, true), Result::kCommitted);
  EXPECT_EQ(s.Take(p), 4);
  EXPECT_EQ(s.Settled(p, 4, true), Result::kCommitted);
  EXPECT_FALSE(s.Take(p)) << "already committed";
}

TEST(CommitSchedule, AFailedCommitIsTakenAgain) {
  CommitSchedule s(milliseconds(1000), 100);
  SpoutPartition p = Read(0, 3);
  s.Done(p, 0);
  ASSERT_EQ(s.Take(p), 1);
  EXPECT_EQ(s.Settled(p, 1, false), Result::kFailed);
  EXPECT_FALSE(p.commit_in_flight);
  EXPECT_FALSE(p.offsets.committed());
  EXPECT_EQ(s.Take(p), 1);
}

TEST(CommitSchedule, AResultWithNoCommitInFlightIsIgnored) {
  CommitSchedule s(milliseconds(1000), 100);
  SpoutPartition p = Read(0, 3);
  s.Done(p, 0);
  EXPECT_EQ(s.Settled(p, 1, true), Result::kIgnored);
  EXPECT_FALSE(p.offsets.committed());
}

TEST(CommitSchedule, DoneIgnoresLateAcks) {
  CommitSchedule s(milliseconds(1000), 100);
  SpoutPartition p = Read(0, 2);
  EXPECT_TRUE(s.Done(p, 0));
  EXPECT_FALSE(s.Done(p, 0)) << "a duplicate ack";
  EXPECT_FALSE(s.Done(p, 9)) << "an offset never read";
  EXPECT_FALSE(s.requested()) << "an uncapped partition waits for the interval";
}

TEST(CommitSchedule, TheCapPausesUntilACommitCatchesUp) {
  CommitSchedule s(milliseconds(1000), 4);
  SpoutPartition p = Read(0, 3);
  EXPECT_FALSE(s.Read(p));
  EXPECT_FALSE(s.requested());
  p.offsets.Add(3);
  EXPECT_TRUE(s.Read(p)) << "4 offsets read past the last commit";
  EXPECT_TRUE(p.capped);
  EXPECT_TRUE(s.requested()) << "a capped partition asks for a commit at once";
  s.Began(kCommitStart);
  s.Done(p, 0);
  EXPECT_TRUE(s.requested()) << "each record done of a capped partition asks again";
  s.Began(kCommitStart);
  ASSERT_EQ(s.Take(p), 1);
  EXPECT_EQ(s.Settled(p, 1, true), Result::kUncapped) << "3 read past 1: below the cap";
  EXPECT_FALSE(p.capped);
}

TEST(CommitSchedule, StillCappedAfterACommitItCommitsAgainAtOnce) {
  // Six offsets read with a cap of four (the cap was reached while records were in hand).
  CommitSchedule s(milliseconds(1000), 4);
  SpoutPartition p = Read(0, 6);
  ASSERT_TRUE(s.Read(p));
  s.Done(p, 0);
  s.Began(kCommitStart);
  ASSERT_EQ(s.Take(p), 1);
  s.Done(p, 1);
  s.Done(p, 2);
  s.Began(kCommitStart);  // another round: the commit of 1 is still in flight
  ASSERT_FALSE(s.requested());
  EXPECT_EQ(s.Settled(p, 1, true), Result::kCommitted) << "5 read past 1: still capped";
  EXPECT_TRUE(p.capped);
  EXPECT_TRUE(s.requested()) << "more is done than committed: commit again now";
  s.Began(kCommitStart);
  ASSERT_EQ(s.Take(p), 3);
  EXPECT_EQ(s.Settled(p, 3, true), Result::kUncapped);
  EXPECT_FALSE(p.capped);
}

TEST(CommitSchedule, HalfTheCapDoneAsksForACommitBeforeTheCap) {
  CommitSchedule s(milliseconds(1000), 10);
  SpoutPartition p = Read(0, 8);
  for (std::int64_t o = 0; o < 4; ++o) ASSERT_TRUE(s.Done(p, o));
  EXPECT_FALSE(s.requested()) << "4 done of a cap of 10: the interval will do";
  ASSERT_TRUE(s.Done(p, 4));
  EXPECT_TRUE(s.requested()) << "5 done and uncommitted: half the cap";
  s.Began(kCommitStart);
  ASSERT_EQ(s.Take(p), 5);
  ASSERT_TRUE(s.Done(p, 5));
  EXPECT_FALSE(s.requested()) << "a commit is in flight";
  EXPECT_EQ(s.Settled(p, 5, true), Result::kCommitted);
  ASSERT_TRUE(s.Done(p, 6));
  EXPECT_FALSE(s.requested()) << "2 done past the commit";
  EXPECT_FALSE(p.capped);
}

// A partition whose records are acked as fast as they are read, with a window of records in
// flight below half the cap and commits that are confirmed at once, never reaches its cap,
// though the interval never comes: the commits asked for at half the cap keep it below.
TEST(CommitSchedule, APartitionWhoseAcksKeepUpIsNeverCapped) {
  constexpr std::int64_t kCap = 100;
  constexpr std::int64_t kInFlight = 30;
  CommitSchedule s(milliseconds(1000), kCap);
  s.Start(kCommitStart);
  SpoutPartition p = Read(0, 0);
  int commits = 0;
  for (std::int64_t o = 0; o < 10'000; ++o) {
    p.offsets.Add(o);
    ASSERT_FALSE(s.Read(p)) << "capped at offset " << o;
    if (o >= kInFlight) s.Done(p, o - kInFlight);
    if (s.Due(kCommitStart)) {
      s.Began(kCommitStart);
      if (const auto offset = s.Take(p)) {
        ++commits;
        s.Settled(p, *offset, true);
      }
    }
  }
  EXPECT_LE(commits, 2 * 10'000 / kCap) << "each early commit frees at least half the cap";
}

TEST(CommitSchedule, AnEpochCommitUncapsToo) {
  CommitSchedule s(milliseconds(1000), 2);
  SpoutPartition p = Read(0, 2);
  ASSERT_TRUE(s.Read(p));
  p.offsets.Done(0);
  p.offsets.Done(1);
  EXPECT_TRUE(s.CommittedElsewhere(p, 2));
  EXPECT_FALSE(p.capped);
  EXPECT_EQ(p.offsets.committed(), 2);
  EXPECT_FALSE(s.CommittedElsewhere(p, 2)) << "not capped: nothing to resume";
}

}  // namespace
}  // namespace sparse::kafka
