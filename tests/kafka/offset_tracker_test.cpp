// PartitionOffsets alone: the commit point only ever covers fully processed records.
#include "kafka/offset_tracker.hpp"

#include <gtest/gtest.h>

namespace sparse::kafka {
namespace {

std::shared_ptr<const runtime::EmittedTuple> Tuple(std::string values) {
  auto t = std::make_shared<runtime::EmittedTuple>();
  t->values_json = std::move(values);
  return t;
}

TEST(PartitionOffsets, EmptyHasNothingToCommit) {
  PartitionOffsets p;
  EXPECT_FALSE(p.CommitPoint());
  EXPECT_FALSE(p.NeedsCommit());
  EXPECT_EQ(p.Uncommitted(), 0);
  EXPECT_EQ(p.Pending(), 0u);
}

TEST(PartitionOffsets, CommitPointIsFirstRecordNotDone) {
  PartitionOffsets p;
  for (std::int64_t o = 10; o < 15; ++o) ASSERT_NE(p.Add(o), nullptr);
  EXPECT_EQ(p.CommitPoint(), 10);
  EXPECT_TRUE(p.Done(11));
  EXPECT_TRUE(p.Done(12));
  EXPECT_EQ(p.CommitPoint(), 10) << "10 is not done: nothing past it may be committed";
  EXPECT_TRUE(p.Done(10));
  EXPECT_EQ(p.CommitPoint(), 13);
  EXPECT_TRUE(p.Done(14));
  EXPECT_EQ(p.CommitPoint(), 13);
  EXPECT_TRUE(p.Done(13));
  EXPECT_EQ(p.CommitPoint(), 15) << "all done: one past the last record";
  EXPECT_EQ(p.Pending(), 0u);
}

TEST(PartitionOffsets, FailedRecordInTheMiddleHoldsBackTheCommit) {
  PartitionOffsets p;
  for (std::int64_t o = 0; o < 100; ++o) p.Add(o)->tuple = Tuple("[" + std::to_string(o) + "]");
  for (std::int64_t o = 0; o < 100; ++o) {
    if (o != 42) p.Done(o);
  }
  EXPECT_EQ(p.CommitPoint(), 42);
  PartitionOffsets::Record* r = p.Find(42);
  ASSERT_NE(r, nullptr);
  ASSERT_NE(r->tuple, nullptr) << "kept for the retry";
  EXPECT_EQ(r->tuple->values_json, "[42]");
  EXPECT_EQ(p.Pending(), 1u);
  p.Done(42);
  EXPECT_EQ(p.CommitPoint(), 100);
}

TEST(PartitionOffsets, GapsInOffsetsAreFine) {
  PartitionOffsets p;
  for (std::int64_t o : {3, 7, 8, 20}) p.Add(o);
  p.Done(7);
  p.Done(3);
  EXPECT_EQ(p.CommitPoint(), 8);
  p.Done(20);
  EXPECT_EQ(p.CommitPoint(), 8);
  p.Done(8);
  EXPECT_EQ(p.CommitPoint(), 21);
  EXPECT_FALSE(p.Done(5)) << "never added";
}

TEST(PartitionOffsets, DuplicateAndLateAcksChangeNothing) {
  PartitionOffsets p;
  p.Add(0);
  p.Add(1);
  EXPECT_TRUE(p.Done(1));
  EXPECT_FALSE(p.Done(1));
  EXPECT_FALSE(p.Done(99));
  EXPECT_EQ(p.Pending(), 1u);
  EXPECT_EQ(p.CommitPoint(), 0);
}

TEST(PartitionOffsets, RefusesOffsetsThatGoBack) {
  PartitionOffsets p;
  p.Add(5);
  EXPECT_EQ(p.Add(5), nullptr);
  EXPECT_EQ(p.Add(4), nullptr);
  EXPECT_EQ(p.Pending(), 1u);
  p.Reset();
  EXPECT_NE(p.Add(4), nullptr);
}

TEST(PartitionOffsets, UncommittedCountsFromTheLastConfirmedCommit) {
  PartitionOffsets p;
  for (std::int64_t o = 100; o < 110; ++o) p.Add(o);
  EXPECT_EQ(p.Uncommitted(), 10) << "from the first record when nothing was committed";
  for (std::int64_t o = 100; o < 106; ++o) p.Done(o);
  EXPECT_TRUE(p.NeedsCommit());
  EXPECT_EQ(p.Uncommitted(), 10) << "done is not committed";
  p.Committed(*p.CommitPoint());
  EXPECT_EQ(p.committed(), 106);
  EXPECT_FALSE(p.NeedsCommit());
  EXPECT_EQ(p.Uncommitted(), 4);
  p.Committed(103);
  EXPECT_EQ(p.committed(), 106) << "a late reply never moves the commit back";
}

TEST(PartitionOffsets, CommittableIsWhatACommitNowWouldFree) {
  PartitionOffsets p;
  EXPECT_EQ(p.Committable(), 0) << "nothing read";
  for (std::int64_t o = 100; o < 110; ++o) p.Add(o);
  EXPECT_EQ(p.Committable(), 0) << "nothing done";
  p.Done(101);
  EXPECT_EQ(p.Committable(), 0) << "100 holds the commit point back";
  p.Done(100);
  p.Done(102);
  EXPECT_EQ(p.Committable(), 3);
  p.Committed(102);
  EXPECT_EQ(p.Committable(), 1) << "from the last confirmed commit";
  for (std::int64_t o = 103; o < 110; ++o) p.Done(o);
  EXPECT_EQ(p.Committable(), 8) << "all done: up to one past the last record";
}

TEST(PartitionOffsets, DoneReleasesTheKeptPayload) {
  PartitionOffsets p;
  auto* r = p.Add(0);
  r->tuple = Tuple("[\"big\"]");
  r->raw = std::make_unique<PartitionOffsets::Raw>(PartitionOffsets::Raw{"k", "v"});
  auto* r1 = p.Add(1);
  r1->tuple = Tuple("[1]");
  std::weak_ptr<const runtime::EmittedTuple> second = r1->tuple;
  p.Done(1);  // not popped (0 is pending) but its payload is released
  EXPECT_EQ(p.Find(1), nullptr);
  EXPECT_TRUE(second.expired());
  ASSERT_NE(p.Find(0)->raw, nullptr);
  EXPECT_EQ(p.Find(0)->raw->key, "k");
}

TEST(PartitionOffsets, ManyRecordsInAndOutOfOrderAcrossGrowthAndShrinking) {
  // The ring grows past its first size, wraps, and shrinks again; every record keeps its
  // offset and payload through it, and the commit point follows the first record not done.
  PartitionOffsets p;
  std::int64_t next = 1000, done_below = 1000, last_added = 0;
  for (int round = 0; round < 20; ++round) {
    const int burst = round % 5 == 0 ? 3000 : 100;
    for (int i = 0; i < burst; ++i, ++next) {
      if (next % 7 == 0) continue;  // a gap, as in a compacted topic
      p.Add(next)->tuple = Tuple("[" + std::to_string(next) + "]");
      last_added = next;
    }
    // Acks arrive newest first, holding back the oldest ten.
    for (std::int64_t o = next - 1; o >= done_below + 10; --o) {
      if (o % 7 == 0) continue;
      PartitionOffsets::Record* r = p.Find(o);
      ASSERT_NE(r, nullptr) << o;
      ASSERT_EQ(r->tuple->values_json, "[" + std::to_string(o) + "]");
      ASSERT_TRUE(p.Done(o));
    }
    std::int64_t first = done_below;
    while (first % 7 == 0) ++first;
    EXPECT_EQ(p.CommitPoint(), first);
    for (std::int64_t o = done_below; o < done_below + 10; ++o) {
      if (o % 7 != 0) {
        ASSERT_TRUE(p.Done(o)) << o;
      }
    }
    EXPECT_EQ(p.CommitPoint(), last_added + 1) << "all done: one past the last record";
    EXPECT_EQ(p.Pending(), 0u);
    done_below = next;
  }
}

}  // namespace
}  // namespace sparse::kafka
