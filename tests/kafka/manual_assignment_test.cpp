// Manual assignment's shares (kafka/manual_assignment.hpp).
#include "kafka/manual_assignment.hpp"

#include <gtest/gtest.h>

namespace sparse::kafka {
namespace {

std::vector<TopicPartition> PartitionsOf(const std::string& topic, int n) {
  std::vector<TopicPartition> all;
  for (int i = 0; i < n; ++i) all.emplace_back(topic, i);
  return all;
}

TEST(ManualShare, SortedPartitionsGoRoundRobinByTaskIndex) {
  // Given out of order: the share is of the sorted list.
  const std::vector<TopicPartition> all = {{"b", 0}, {"a", 1}, {"a", 0}, {"b", 1}, {"a", 2}};
  // Sorted: a0 a1 a2 b0 b1.
  EXPECT_EQ(ManualShare(all, 0, 2), (std::set<TopicPartition>{{"a", 0}, {"a", 2}, {"b", 1}}));
  EXPECT_EQ(ManualShare(all, 1, 2), (std::set<TopicPartition>{{"a", 1}, {"b", 0}}));
}

TEST(ManualShare, SharesCoverEveryPartitionOnce) {
  std::vector<TopicPartition> all = PartitionsOf("t", 7);
  for (const auto& tp : PartitionsOf("u", 3)) all.push_back(tp);
  std::set<TopicPartition> seen;
  std::size_t total = 0;
  for (int task = 0; task < 3; ++task) {
    const auto share = ManualShare(all, task, 3);
    total += share.size();
    seen.insert(share.begin(), share.end());
  }
  EXPECT_EQ(total, all.size()) << "no partition in two shares";
  EXPECT_EQ(seen.size(), all.size()) << "every partition in a share";
}

TEST(ManualShare, MoreTasksThanPartitionsLeavesSomeIdle) {
  EXPECT_EQ(ManualShare(PartitionsOf("t", 2), 1, 4).size(), 1u);
  EXPECT_TRUE(ManualShare(PartitionsOf("t", 2), 3, 4).empty());
}

TEST(ChangeTo, AddsWhatIsNewAndRemovesWhatLeftTheShare) {
  const std::set<TopicPartition> share = {{"t", 0}, {"t", 2}, {"t", 4}};
  const std::vector<TopicPartition> owned = {{"t", 3}, {"t", 2}, {"t", 1}};
  const ShareChange c = ChangeTo(share, owned);
  EXPECT_EQ(c.added, (std::vector<TopicPartition>{{"t", 0}, {"t", 4}}));
  EXPECT_EQ(c.removed, (std::vector<TopicPartition>{{"t", 1}, {"t", 3}}));
}

TEST(ChangeTo, NothingChangesWhenTheShareIsRead) {
  const ShareChange c = ChangeTo({{"t", 0}}, {{"t", 0}});
  EXPECT_TRUE(c.added.empty());
  EXPECT_TRUE(c.removed.empty());
}

TEST(ReadTopics, EveryPartitionOfTheTopicsThatExist) {
  MetadataResult m;
  m.topics = {{"a", 2, RD_KAFKA_RESP_ERR_NO_ERROR}, {"b", 1, RD_KAFKA_RESP_ERR_NO_ERROR}};
  const TopicsRead r = ReadTopics(m, "", "broker:9092", 2000);
  EXPECT_FALSE(r.keep);
  EXPECT_EQ(r.partitions, (std::vector<TopicPartition>{{"a", 0}, {"a", 1}, {"b", 0}}));
  EXPECT_TRUE(r.reports.empty());
}

TEST(ReadTopics, AMissingTopicIsReportedAndTheOthersRead) {
  MetadataResult m;
  m.topics = {{"gone", 0, RD_KAFKA_RESP_ERR_UNKNOWN_TOPIC_OR_PART},
              {"a", 1, RD_KAFKA_RESP_ERR_NO_ERROR}};
  const TopicsRead r = ReadTopics(m, "", "broker:9092", 2000);
  EXPECT_FALSE(r.keep);
  EXPECT_EQ(r.partitions, (std::vector<TopicPartition>{{"a", 0}}));
  ASSERT_EQ(r.reports.size(), 1u);
  EXPECT_EQ(r.reports[0].key, "unknown_topic:gone");
  EXPECT_EQ(r.reports[0].message,
            "topic `gone` does not exist on broker:9092; checking again every 2000 ms");
}

TEST(ReadTopics, ATopicErrorKeepsTheAssignmentAsItIs) {
  MetadataResult m;
  m.topics = {{"a", 1, RD_KAFKA_RESP_ERR_NO_ERROR},
              {"b", 1, RD_KAFKA_RESP_ERR_LEADER_NOT_AVAILABLE},
              {"gone", 0, RD_KAFKA_RESP_ERR_UNKNOWN_TOPIC_OR_PART}};
  const TopicsRead r = ReadTopics(m, "", "broker:9092", 2000);
  EXPECT_TRUE(r.keep) << "partitions must not move between tasks on a passing error";
  ASSERT_EQ(r.reports.size(), 1u) << "the topics after the error are not looked at";
  EXPECT_EQ(r.reports[0].key, "topic_error:b");
}

TEST(ReadTopics, APatternMatchingNothingIsReported) {
  const TopicsRead r = ReadTopics(MetadataResult{}, "clicks-.*", "broker:9092", 500);
  EXPECT_FALSE(r.keep);
  EXPECT_TRUE(r.partitions.empty());
  ASSERT_EQ(r.reports.size(), 1u);
  EXPECT_EQ(r.reports[0].key, "no_topics");
  EXPECT_EQ(r.reports[0].message,
            "no topic on broker:9092 matches topic_pattern `clicks-.*`; checking again every "
            "500 ms");
  EXPECT_TRUE(ReadTopics(MetadataResult{}, "", "broker:9092", 500).reports.empty())
      << "named topics that do not exist are reported each by name instead";
}

}  // namespace
}  // namespace sparse::kafka
