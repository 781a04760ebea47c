// Manual assignment (assignment: manual, as Storm's Kafka spout): each task of a spout reads its
// share of the partitions of the spout's topics. Sorted by topic, then partition, the i-th
// partition belongs to the task of index i mod num_tasks. Every task computes its share alone
// from the same metadata, so the shares never overlap and together cover every partition.
#pragma once

#include <set>
#include <vector>

#include "kafka/partition_table.hpp"

namespace sparse::kafka {

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
