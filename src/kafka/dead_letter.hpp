// Writing a record the Kafka spout gave up on to its dead-letter topic (on_give_up: dead_letter):
// the record's raw key and value, with headers naming where it came from and why. The record is
// done (its offset may be committed) only when the write is confirmed; a failed write is retried
// (RetryQueue::DeadLetterFailed).
#pragma once

#include <librdkafka/rdkafka.h>

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "kafka/offset_tracker.hpp"

namespace sparse::kafka {

// Travels with a dead letter through librdkafka (the message's opaque) and comes back in its
// delivery report: the record it stands for.
struct DeadLetterRef {
  std::int64_t slot = 0;  // of the record's partition (PartitionTable)
  std::int64_t offset = 0;
  std::string reason;
};

// The headers a dead letter carries, in order: sparse.source.topic, sparse.source.partition,
// sparse.source.offset (decimal text) and sparse.error (why it was given up).
std::vector<std::pair<std::string, std::string>> DeadLetterHeaders(const std::string& topic,
                                                                   std::int32_t partition,
                                                                   std::int64_t offset,
                                                                   const std::string& reason);

// Queues the dead letter of the record at `ref` (its raw key and value: `raw` may be null, a
// record kept without them) of `topic`/`partition` to `dead_letter_topic`. On success the
// message owns `ref` (released here; it comes back as the delivery report's _private). Returns
// librdkafka's error otherwise, and `ref` stays the caller's. Does not block.
rd_kafka_resp_err_t ProduceDeadLetter(rd_kafka_t* producer, const std::string& dead_letter_topic,
                                      const std::string& topic, std::int32_t partition,
                                      const PartitionOffsets::Raw* raw,
                                      std::unique_ptr<DeadLetterRef>& ref);

}  // namespace sparse::kafka
