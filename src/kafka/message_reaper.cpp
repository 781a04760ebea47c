#include "kafka/message_reaper.hpp"

namespace sparse::kafka {

MessageReaper::~MessageReaper() {
  Drain();
  if (!thread_.joinable()) return;
  {
    std::lock_guard lock(mu_);
    stopping_ = true;
  }
  work_.notify_one();
  thread_.join();
}

void MessageReaper::Start() {
  if (thread_.joinable()) return;
  thread_ = std::thread([this] { Loop(); });
}

void MessageReaper::Flush() {
  if (queued_.empty()) return;
  if (!thread_.joinable()) {
    for (rd_kafka_message_t* m : queued_) rd_kafka_message_destroy(m);
    queued_.clear();
    return;
  }
  bool was_empty = false;
  {
    std::lock_guard lock(mu_);
    was_empty = handed_.empty();
    if (was_empty) {
      handed_.swap(queued_);
    } else {
      handed_.insert(handed_.end(), queued_.begin(), queued_.end());
    }
  }
  queued_.clear();
  // The thread only sleeps with nothing handed over: it needs a signal for the first batch.
  if (was_empty) work_.notify_one();
}

void MessageReaper::Drain() {
  Flush();
  std::unique_lock lock(mu_);
  idle_.wait(lock, [this] { return handed_.empty() && !destroying_; });
}

void MessageReaper::Loop() {
  std::vector<rd_kafka_message_t*> batch;
  std::unique_lock lock(mu_);
  for (;;) {
    work_.wait(lock, [this] { return stopping_ || !handed_.empty(); });
    if (handed_.empty()) return;  // stopping, and nothing left
    batch.swap(handed_);
    destroying_ = true;
    lock.unlock();
    for (rd_kafka_message_t* m : batch) rd_kafka_message_destroy(m);
    batch.clear();
    lock.lock();
    destroying_ = false;
    if (handed_.empty()) idle_.notify_all();
  }
}

}  // namespace sparse::kafka
