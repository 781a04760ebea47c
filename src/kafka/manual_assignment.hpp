// Manual assignment (assignment: manual, as Storm's Kafka spout): each task of a spout reads its
// share of the partitions of the spout's topics. Sorted by topic, then partition, the i-th
// partition belongs to the task of index i mod num_tasks. Every task computes its share alone
// from the same metadata, so the shares never overlap and together cover every partition.
//
// The partitions come from a metadata request (FetchMetadata, blocking: the spout runs it on its
// helper thread, every partition_refresh_ms) read by ReadTopics.
#pragma once

#include <librdkafka/rdkafka.h>

#include <cstdint>
#include <set>
#include <string>
#include <vector>

#include "kafka/partition_table.hpp"

namespace sparse::kafka {

// One topic of a metadata answer.
struct TopicInfo {
  std::string name;
  int partitions = 0;
  rd_kafka_resp_err_t err = RD_KAFKA_RESP_ERR_NO_ERROR;
};

// A metadata answer: its error, or the topics asked for (by name, or all matching the pattern).
struct MetadataResult {
  rd_kafka_resp_err_t err = RD_KAFKA_RESP_ERR_NO_ERROR;
  std::vector<TopicInfo> topics;
  std::vector<std::string> referenced;  // topics librdkafka now tracks (see FetchMetadata)
};

// Asks the broker for the topics (`topics`, or every topic matching the ECMAScript regex
// `pattern`, internal `__` topics excluded). Blocks up to 10 s. Always asks for every topic: a
// metadata request naming a topic makes brokers with auto.create.topics.enable create it, and a
// consumer must never create the topics it reads. Topics not in `referenced` (those read this way
// before) that exist get a handle and a second request, so that librdkafka knows their leaders
// before they are assigned (see the .cpp).
MetadataResult FetchMetadata(rd_kafka_t* rk, const std::vector<std::string>& topics,
                             const std::string& pattern, const std::set<std::string>& referenced);

// What a metadata answer without a request-level error means for the spout's partitions.
struct TopicsRead {
  // A topic had an error that may pass (leader election, authorization): the spout keeps its
  // assignment as it is rather than moving partitions between tasks.
  bool keep = false;
  std::vector<TopicPartition> partitions;  // every partition of the topics that exist
  struct Note {
    std::string key;  // groups repeats (ReportThrottle)
    std::string message;
  };
  std::vector<Note> reports;  // to tell the user, in order: missing topics, errors, no match
};
TopicsRead ReadTopics(const MetadataResult& result, const std::string& topic_pattern,
                      const std::string& bootstrap, std::int64_t refresh_ms);

// The share of task `task_index` of `num_tasks` (>= 1) among `all` (any order, no duplicates).
std::set<TopicPartition> ManualShare(std::vector<TopicPartition> all, int task_index,
                                     int num_tasks);

struct ShareChange {
  std::vector<TopicPartition> added;    // in the share, not read yet
  std::vector<TopicPartition> removed;  // read, no longer in the share
};
// From the partitions read now (`owned`, any order) to `share`; both lists sorted.
ShareChange ChangeTo(const std::set<TopicPartition>& share,
                     const std::vector<TopicPartition>& owned);

}  // namespace sparse::kafka
