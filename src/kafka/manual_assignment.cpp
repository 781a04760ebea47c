#include "kafka/manual_assignment.hpp"

#include <algorithm>

namespace sparse::kafka {

std::set<TopicPartition> ManualShare(std::vector<TopicPartition> all, int task_index,
                                     int num_tasks) {
  std::sort(all.begin(), all.end());
  std::set<TopicPartition> mine;
  for (std::size_t i = 0; i < all.size(); ++i) {
    if (static_cast<int>(i % static_cast<std::size_t>(num_tasks)) == task_index) {
      mine.insert(all[i]);
    }
  }
  return mine;
}

ShareChange ChangeTo(const std::set<TopicPartition>& share,
                     const std::vector<TopicPartition>& owned) {
  const std::set<TopicPartition> now(owned.begin(), owned.end());
  ShareChange change;
  std::set_difference(share.begin(), share.end(), now.begin(), now.end(),
                      std::back_inserter(change.added));
  std::set_difference(now.begin(), now.end(), share.begin(), share.end(),
                      std::back_inserter(change.removed));
  return change;
}

}  // namespace sparse::kafka
