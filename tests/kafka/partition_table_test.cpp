// The Kafka spout's partition table (kafka/partition_table.hpp): slots, ownership, held records
// and the pause rule, without a broker.
#include "kafka/partition_table.hpp"

#include <gtest/gtest.h>

#include <string>

namespace sparse::kafka {
namespace {

TEST(PartitionTable, EveryPartitionGetsANewSlotAcrossTables) {
  std::int64_t next_slot = 1;
  {
    PartitionTable t(next_slot);
    SpoutPartition& a = t.Add("t", 0);
    SpoutPartition& b = t.Add("t", 1);
    EXPECT_EQ(a.slot, 1);
    EXPECT_EQ(b.slot, 2);
    EXPECT_EQ(a.name, "t[0]");
  }
  PartitionTable next_session(next_slot);
  EXPECT_EQ(next_session.Add("t", 0).slot, 3) << "a new session never reuses a slot";
}

TEST(PartitionTable, FindsByTopicPartitionAndBySlot) {
  std::int64_t next_slot = 10;
  PartitionTable t(next_slot);
  SpoutPartition& a = t.Add("t", 0);
  EXPECT_EQ(t.Owned("t", 0), &a);
  EXPECT_EQ(t.BySlot(a.slot), &a);
  EXPECT_EQ(t.Owned("t", 1), nullptr);
  EXPECT_EQ(t.Owned("u", 0), nullptr);
  EXPECT_EQ(t.BySlot(a.slot + 1), nullptr);
  EXPECT_EQ(t.size(), 1u);
}

TEST(PartitionTable, ARemovedPartitionComesBackUnderANewSlot) {
  std::int64_t next_slot = 1;
  PartitionTable t(next_slot);
  const std::int64_t old_slot = t.Add("t", 0).slot;
  t.Remove(*t.Owned("t", 0));
  EXPECT_EQ(t.BySlot(old_slot), nullptr) << "acks for the old life are stale";
  EXPECT_EQ(t.Owned("t", 0), nullptr);
  SpoutPartition& again = t.Add("t", 0);
  EXPECT_NE(again.slot, old_slot);
  EXPECT_EQ(t.Owned("t", 0), &again);
  EXPECT_EQ(t.BySlot(old_slot), nullptr);
}

TEST(PartitionTable, DisownKeepsTheSlotButNotTheOwnership) {
  std::int64_t next_slot = 1;
  PartitionTable t(next_slot);
  SpoutPartition& a = t.Add("t", 0);
  t.Disown("t", 0);
  EXPECT_EQ(t.Owned("t", 0), nullptr);
  EXPECT_EQ(t.BySlot(a.slot), &a);
  EXPECT_TRUE(t.Sorted().empty());
}

TEST(PartitionTable, TheCachedLookupForgetsWhatChanged) {
  std::int64_t next_slot = 1;
  PartitionTable t(next_slot);
  const int topic_handle = 0;  // any stable address stands for librdkafka's topic handle
  int misses = 0;
  auto name_of = [&](const void*) {
    ++misses;
    return std::string("t");
  };
  EXPECT_EQ(t.OwnedCached(&topic_handle, 0, name_of), nullptr);
  SpoutPartition& a = t.Add("t", 0);
  EXPECT_EQ(t.OwnedCached(&topic_handle, 0, name_of), &a) << "Add cleared the cached miss";
  EXPECT_EQ(t.OwnedCached(&topic_handle, 0, name_of), &a);
  EXPECT_EQ(misses, 2) << "the second lookup of a run is served from the cache";
  t.Remove(a);
  EXPECT_EQ(t.OwnedCached(&topic_handle, 0, name_of), nullptr) << "Remove cleared the cache";
  EXPECT_EQ(t.OwnedCached(nullptr, 0, name_of), nullptr) << "a record with no topic";
}

TEST(PartitionTable, SortedIsByTopicThenPartition) {
  std::int64_t next_slot = 1;
  PartitionTable t(next_slot);
  t.Add("b", 0);
  t.Add("a", 2);
  t.Add("a", 1);
  std::vector<std::string> names;
  for (const SpoutPartition* p : t.Sorted()) names.push_back(p->name);
  EXPECT_EQ(names, (std::vector<std::string>{"a[1]", "a[2]", "b[0]"}));
}

TEST(PartitionTable, HeldRecordsAreCountedAndCappedPartitionsKeepThem) {
  std::int64_t next_slot = 1;
  PartitionTable t(next_slot);
  SpoutPartition& a = t.Add("t", 0);
  // The table never looks into the messages: empty handles stand for records.
  t.Hold(a, nullptr);
  t.Hold(a, nullptr);
  EXPECT_EQ(t.held(), 2u);
  a.capped = true;
  SpoutPartition* from = nullptr;
  EXPECT_EQ(t.TakeHeld(from), nullptr);
  EXPECT_EQ(from, nullptr) << "a capped partition emits nothing";
  EXPECT_EQ(t.held(), 2u);
  a.capped = false;
  t.TakeHeld(from);
  EXPECT_EQ(from, &a);
  EXPECT_EQ(t.held(), 1u);
  EXPECT_EQ(a.held.size(), 1u);
  t.Remove(a);
  EXPECT_EQ(t.held(), 0u) << "a removed partition's held records go with it";
}

TEST(PartitionTable, DropAllHeldEmptiesEveryPartition) {
  std::int64_t next_slot = 1;
  PartitionTable t(next_slot);
  SpoutPartition& a = t.Add("t", 0);
  SpoutPartition& b = t.Add("t", 1);
  t.Hold(a, nullptr);
  t.Hold(b, nullptr);
  t.DropHeld(b);
  EXPECT_EQ(t.held(), 1u);
  t.DropAllHeld();
  EXPECT_EQ(t.held(), 0u);
  EXPECT_TRUE(a.held.empty());
}

TEST(PartitionTable, PendingCountsRecordsNotDoneOverAllPartitions) {
  std::int64_t next_slot = 1;
  PartitionTable t(next_slot);
  SpoutPartition& a = t.Add("t", 0);
  SpoutPartition& b = t.Add("t", 1);
  a.offsets.Add(0);
  a.offsets.Add(1);
  b.offsets.Add(7);
  a.offsets.Done(0);
  EXPECT_EQ(t.Pending(), 2);
}

TEST(SpoutPartition, PausedWhenInactiveThrottledCappedOrFull) {
  SpoutPartition p;
  EXPECT_FALSE(p.WantsPause(true, false));
  EXPECT_TRUE(p.WantsPause(false, false)) << "the spout is deactivated";
  EXPECT_TRUE(p.WantsPause(true, true)) << "backpressure lasted backpressure_pause_ms";
  p.capped = true;
  EXPECT_TRUE(p.WantsPause(true, false));
  p.capped = false;
  for (std::size_t i = 0; i + 1 < kMaxHeld; ++i) p.held.emplace_back();
  EXPECT_FALSE(p.WantsPause(true, false));
  p.held.emplace_back();
  EXPECT_TRUE(p.WantsPause(true, false)) << "kMaxHeld records held";
}

}  // namespace
}  // namespace sparse::kafka
