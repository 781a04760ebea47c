// Test helpers around a Kafka-protocol broker (the embedded mock cluster or a real Apache Kafka,
// over TCP): create topics, produce records, read a whole topic back, read a group's committed
// offsets and members. They block (with
// timeouts) and throw std::runtime_error on failure, which fails the test with the reason.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace sparse::kafka::testing {

struct TestRecord {
  std::int32_t partition = -1;  // produce: -1 lets the partitioner choose
  std::int64_t offset = -1;
  std::optional<std::string> key;
  std::optional<std::string> value;
  std::int64_t timestamp = 0;  // produce: 0 = now
  std::map<std::string, std::string> headers;
};

// Creates the topic with the admin API and waits until each partition has a leader.
void CreateTopic(const std::string& bootstrap, const std::string& topic, int partitions);

// Produces and waits for every delivery report.
void Produce(const std::string& bootstrap, const std::string& topic,
             const std::vector<TestRecord>& records);
// `n` records with values "<prefix><i>" and keys "k<i>", spread round-robin over `partitions`
// partitions (or by the partitioner when partitions == 0).
void ProduceNumbered(const std::string& bootstrap, const std::string& topic, int n, int partitions,
                     const std::string& prefix = "v");

// Every record of the topic (all partitions, from the beginning up to the high watermark).
std::vector<TestRecord> ReadAll(const std::string& bootstrap, const std::string& topic,
                                int partitions);
// What a read_committed consumer sees of the topic: every record of committed transactions and
// every non-transactional record, up to each partition's last stable offset.
std::vector<TestRecord> ReadCommitted(const std::string& bootstrap, const std::string& topic,
                                      int partitions);
// Number of records in the topic (sum of high - low watermarks).
std::int64_t CountRecords(const std::string& bootstrap, const std::string& topic, int partitions);

// The group's committed offset per partition (-1001 = none).
std::vector<std::int64_t> Committed(const std::string& bootstrap, const std::string& group,
                                    const std::string& topic, int partitions);
// Members of the consumer group now (0 when it has none or is unknown).
int GroupMembers(const std::string& bootstrap, const std::string& group);
void Commit(const std::string& bootstrap, const std::string& group, const std::string& topic,
            std::int32_t partition, std::int64_t offset);

}  // namespace sparse::kafka::testing
