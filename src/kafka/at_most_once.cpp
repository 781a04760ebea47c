#include "kafka/at_most_once.hpp"

#include <utility>

namespace sparse::kafka {

AtMostOnceBatch::Step AtMostOnceBatch::Next(Clock::time_point now) const {
  if (committed_) return Step::kEmit;
  if (committing_ || now < retry_at_) return Step::kWait;
  return offsets_.empty() ? Step::kFill : Step::kCommit;
}

void AtMostOnceBatch::Add(const TopicPartition& tp, std::int64_t offset,
                          std::optional<std::string> values) {
  if (values) values_.push_back(std::move(*values));
  offsets_[tp] = offset + 1;
}

void AtMostOnceBatch::Committed(bool ok, Clock::time_point now) {
  committing_ = false;
  if (ok) {
    committed_ = true;
    return;
  }
  retry_at_ = now + retry_delay_;
}

std::vector<std::string> AtMostOnceBatch::TakeCommitted() {
  std::vector<std::string> out = std::move(values_);
  values_.clear();
  offsets_.clear();
  committed_ = false;
  return out;
}

}  // namespace sparse::kafka
