#include "kafka/retry_queue.hpp"

#include <algorithm>

namespace sparse::kafka {

bool RetryQueue::TupleFailed(Clock::time_point now, std::int64_t slot, std::int64_t offset,
                             int failures) {
  if (options_.max_retries >= 0 && failures > options_.max_retries) return false;
  queue_.push(
      {now + std::chrono::milliseconds(options_.DelayMs(failures)), slot, offset, Kind::kTuple});
  return true;
}

void RetryQueue::DeadLetterFailed(Clock::time_point now, std::int64_t slot, std::int64_t offset,
                                  int failures) {
  queue_.push({now + std::chrono::milliseconds(options_.DelayMs(std::max(1, failures))), slot,
               offset, Kind::kDeadLetter});
}

std::optional<RetryQueue::Entry> RetryQueue::PopDue(Clock::time_point now) {
  if (queue_.empty() || queue_.top().due > now) return std::nullopt;
  Entry e = queue_.top();
  queue_.pop();
  return e;
}

}  // namespace sparse::kafka
