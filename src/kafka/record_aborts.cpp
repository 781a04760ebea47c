#include "kafka/record_aborts.hpp"

#include <limits>

namespace sparse::kafka {

int RecordAborts::Failed(const std::string& topic, std::int32_t partition, std::int64_t offset) {
  return ++aborts_[{topic, partition, offset}];
}

std::optional<int> RecordAborts::GiveUpOnReplay(const std::string& topic, std::int32_t partition,
                                                std::int64_t offset) {
  if (max_retries_ < 0) return std::nullopt;
  auto it = aborts_.find({topic, partition, offset});
  if (it == aborts_.end() || it->second <= max_retries_) return std::nullopt;
  const int aborts = it->second;
  aborts_.erase(it);
  return aborts;
}

void RecordAborts::Committed(const std::string& topic, std::int32_t partition,
                             std::int64_t offset) {
  // The records of one partition are adjacent in the map, in offset order.
  auto it = aborts_.lower_bound({topic, partition, std::numeric_limits<std::int64_t>::min()});
  while (it != aborts_.end() && std::get<0>(it->first) == topic &&
         std::get<1>(it->first) == partition && std::get<2>(it->first) < offset) {
    it = aborts_.erase(it);
  }
}

}  // namespace sparse::kafka
