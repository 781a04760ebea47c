// Where the spout starts reading a partition (options.start).
//
// StartPositions: the start option applies the first time a run reads a partition; after that
// (it was taken away and given back) the committed offset is the truth. A partition with no
// committed offset starts at the option's fallback, which is also the consumer's
// auto.offset.reset.
//
// ApplyOffsetsForTimes: partitions started at a timestamp (`start: timestamp`) start at the
// offset of the first record at or after it, found with librdkafka's offsets-for-times lookup.
// The spout assigns partitions in two ways (itself, or inside a group rebalance) and both finish
// the lookup with this one rule.
#pragma once

#include <librdkafka/rdkafka.h>

#include <cstdint>
#include <functional>
#include <set>
#include <string>
#include <utility>

#include "kafka/options.hpp"

namespace sparse::kafka {

class StartPositions {
 public:
  StartPositions(StartPosition start, std::int64_t timestamp_ms)
      : start_(start), timestamp_ms_(timestamp_ms) {}

  // The offset to assign the partition at, as librdkafka takes it: a logical offset
  // (RD_KAFKA_OFFSET_BEGINNING, _END, or _STORED for the committed one), or for `start:
  // timestamp` the timestamp (>= 0, to be resolved by ApplyOffsetsForTimes). Only the first call
  // for a partition applies the option; later calls answer RD_KAFKA_OFFSET_STORED.
  std::int64_t For(const std::string& topic, std::int32_t partition);
  // Where a partition with no committed offset starts: the end for `latest` and
  // `committed_or_latest`, else the beginning.
  std::int64_t WithoutCommit() const;
  // The same, as the consumer's auto.offset.reset ("latest" or "earliest").
  const char* AutoOffsetReset() const;

 private:
  StartPosition start_;
  std::int64_t timestamp_ms_;
  std::set<std::pair<std::string, std::int32_t>> started_;  // partitions started already
};

// `asked`: the partitions to assign, those to start at a timestamp with that timestamp (>= 0) as
// their offset, the others with a logical offset (< 0) left alone. `answered`: the lookup's result
// for the same partitions in the same order, `err` its overall error. Each timestamp becomes the
// offset found, or the end of the partition when no record is at or after it yet. When the lookup
// failed for a partition, it starts from its committed offset (else the earliest), and
// `failed(partition, error)` is called so the spout can say so.
void ApplyOffsetsForTimes(
    rd_kafka_topic_partition_list_t* asked, const rd_kafka_topic_partition_list_t* answered,
    rd_kafka_resp_err_t err,
    const std::function<void(const rd_kafka_topic_partition_t&, rd_kafka_resp_err_t)>& failed);

}  // namespace sparse::kafka
