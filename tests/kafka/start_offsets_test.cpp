#include "kafka/start_offsets.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "kafka/rdkafka_handles.hpp"

namespace sparse::kafka {
namespace {

// Partitions 0..n-1 of topic "t" with the given offsets.
PartitionListPtr List(const std::vector<std::int64_t>& offsets) {
  auto list = NewPartitionList(static_cast<int>(offsets.size()));
  for (std::size_t i = 0; i < offsets.size(); ++i) {
    rd_kafka_topic_partition_list_add(list.get(), "t", static_cast<int>(i))->offset = offsets[i];
  }
  return list;
}

TEST(ApplyOffsetsForTimes, TimestampsBecomeTheOffsetsFoundOrTheEnd) {
  // Partition 0 starts at a logical offset (left alone), 1 and 2 at a timestamp.
  auto asked = List({RD_KAFKA_OFFSET_BEGINNING, 1700000000000, 1700000000000});
  auto answered = List({RD_KAFKA_OFFSET_BEGINNING, 42, -1});
  int failures = 0;
  ApplyOffsetsForTimes(asked.get(), answered.get(), RD_KAFKA_RESP_ERR_NO_ERROR,
                       [&](const rd_kafka_topic_partition_t&, rd_kafka_resp_err_t) { ++failures; });
  EXPECT_EQ(asked->elems[0].offset, RD_KAFKA_OFFSET_BEGINNING);
  EXPECT_EQ(asked->elems[1].offset, 42);
  EXPECT_EQ(asked->elems[2].offset, RD_KAFKA_OFFSET_END) << "no record at or after it yet";
  EXPECT_EQ(failures, 0);
}

TEST(ApplyOffsetsForTimes, AFailedLookupStartsFromTheCommittedOffsetAndIsReported) {
  auto asked = List({1700000000000, 1700000000000, RD_KAFKA_OFFSET_END});
  auto answered = List({7, 8, RD_KAFKA_OFFSET_END});
  answered->elems[1].err = RD_KAFKA_RESP_ERR_NOT_LEADER_FOR_PARTITION;
  std::vector<std::pair<int, rd_kafka_resp_err_t>> failed;
  ApplyOffsetsForTimes(asked.get(), answered.get(), RD_KAFKA_RESP_ERR_NO_ERROR,
                       [&](const rd_kafka_topic_partition_t& p, rd_kafka_resp_err_t e) {
                         failed.emplace_back(p.partition, e);
                       });
  EXPECT_EQ(asked->elems[0].offset, 7);
  EXPECT_EQ(asked->elems[1].offset, RD_KAFKA_OFFSET_STORED);
  EXPECT_EQ(asked->elems[2].offset, RD_KAFKA_OFFSET_END);
  ASSERT_EQ(failed.size(), 1u);
  EXPECT_EQ(failed[0].first, 1);
  EXPECT_EQ(failed[0].second, RD_KAFKA_RESP_ERR_NOT_LEADER_FOR_PARTITION);

  // The whole lookup failed (or gave no answer): every timestamped partition is reported.
  auto again = List({1700000000000, RD_KAFKA_OFFSET_BEGINNING, 1700000000000});
  failed.clear();
  ApplyOffsetsForTimes(again.get(), nullptr, RD_KAFKA_RESP_ERR__TIMED_OUT,
                       [&](const rd_kafka_topic_partition_t& p, rd_kafka_resp_err_t e) {
                         failed.emplace_back(p.partition, e);
                       });
  EXPECT_EQ(again->elems[0].offset, RD_KAFKA_OFFSET_STORED);
  EXPECT_EQ(again->elems[1].offset, RD_KAFKA_OFFSET_BEGINNING);
  EXPECT_EQ(again->elems[2].offset, RD_KAFKA_OFFSET_STORED);
  ASSERT_EQ(failed.size(), 2u);
  EXPECT_EQ(failed[1].second, RD_KAFKA_RESP_ERR__TIMED_OUT);
}

TEST(ApplyOffsetsForTimes, AShortAnswerFailsThePartitionsItLacks) {
  auto asked = List({1700000000000, 1700000000000});
  auto answered = List({5});
  int failures = 0;
  ApplyOffsetsForTimes(asked.get(), answered.get(), RD_KAFKA_RESP_ERR_NO_ERROR,
                       [&](const rd_kafka_topic_partition_t&, rd_kafka_resp_err_t) { ++failures; });
  EXPECT_EQ(asked->elems[0].offset, 5);
  EXPECT_EQ(asked->elems[1].offset, RD_KAFKA_OFFSET_STORED);
  EXPECT_EQ(failures, 1);
}

TEST(StartPositions, TheOptionAppliesTheFirstTimeOnly) {
  StartPositions s(StartPosition::kEarliest, 0);
  EXPECT_EQ(s.For("t", 0), RD_KAFKA_OFFSET_BEGINNING);
  EXPECT_EQ(s.For("t", 1), RD_KAFKA_OFFSET_BEGINNING);
  EXPECT_EQ(s.For("t", 0), RD_KAFKA_OFFSET_STORED) << "given back: its committed offset";
  EXPECT_EQ(s.For("u", 0), RD_KAFKA_OFFSET_BEGINNING);
}

TEST(StartPositions, EachOption) {
  EXPECT_EQ(StartPositions(StartPosition::kLatest, 0).For("t", 0), RD_KAFKA_OFFSET_END);
  EXPECT_EQ(StartPositions(StartPosition::kCommittedOrEarliest, 0).For("t", 0),
            RD_KAFKA_OFFSET_STORED);
  EXPECT_EQ(StartPositions(StartPosition::kCommittedOrLatest, 0).For("t", 0),
            RD_KAFKA_OFFSET_STORED);
  EXPECT_EQ(StartPositions(StartPosition::kTimestamp, 1700000000000).For("t", 0), 1700000000000)
      << "the timestamp, for ApplyOffsetsForTimes";
}

TEST(StartPositions, WithoutACommitLatestOptionsStartAtTheEnd) {
  for (auto start : {StartPosition::kLatest, StartPosition::kCommittedOrLatest}) {
    const StartPositions s(start, 0);
    EXPECT_EQ(s.WithoutCommit(), RD_KAFKA_OFFSET_END);
    EXPECT_STREQ(s.AutoOffsetReset(), "latest");
  }
  for (auto start :
       {StartPosition::kEarliest, StartPosition::kCommittedOrEarliest, StartPosition::kTimestamp}) {
    const StartPositions s(start, 0);
    EXPECT_EQ(s.WithoutCommit(), RD_KAFKA_OFFSET_BEGINNING);
    EXPECT_STREQ(s.AutoOffsetReset(), "earliest");
  }
}

}  // namespace
}  // namespace sparse::kafka
