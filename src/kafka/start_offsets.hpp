// Where partitions start when the spout starts them at a timestamp (`start: timestamp`): the
// offset of the first record at or after it, found with librdkafka's offsets-for-times lookup.
// The spout assigns partitions in two ways (itself, or inside a group rebalance) and both finish
// the lookup with this one rule.
#pragma once

#include <librdkafka/rdkafka.h>

#include <functional>

namespace sparse::kafka {

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
