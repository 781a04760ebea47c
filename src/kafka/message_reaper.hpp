// Destroys consumed librdkafka messages on a thread of its own, in batches.
//
// Why: a message is memory that librdkafka's broker thread allocated while parsing a fetch, so
// freeing it on the event loop goes through that thread's malloc arena, whose lock the broker
// thread holds while it parses the next fetch. In bench/kafka the loop thread spent ~17% of its
// time in rd_kafka_message_destroy, much of it waiting for that lock (futex waits, context
// switches). Handing messages over costs the loop a pointer push per message and a lock per batch.
//
// Start() starts the thread (the constructor does not); until then Flush destroys the queued
// messages on the owner's thread, so nothing is held back by a reaper that was never started.
// Release, Flush and Start are for the owner's thread only. A message handed over must not be
// touched again. Drain (and the destructor) return once every message handed over is destroyed:
// call it before closing or destroying the client the messages came from, which they reference.
#pragma once

#include <librdkafka/rdkafka.h>

#include <condition_variable>
#include <mutex>
#include <thread>
#include <vector>

namespace sparse::kafka {

class MessageReaper {
 public:
  MessageReaper() = default;
  ~MessageReaper();  // Drain(), then stops the thread
  MessageReaper(const MessageReaper&) = delete;
  MessageReaper& operator=(const MessageReaper&) = delete;

  // Queues `msg` for destruction; hands the queue over once it holds a batch.
  void Release(rd_kafka_message_t* msg) {
    if (!msg) return;
    queued_.push_back(msg);
    if (queued_.size() >= kBatch) Flush();
  }
  // Starts the thread that destroys what is handed over. Once only.
  void Start();
  // Hands over what is queued. Release hands over every full batch itself, so call this when
  // the owner runs dry (nothing more to take), not after every round of work: each hand-over to
  // the sleeping thread is a futex wake, and one per 64-record round of the Kafka spout cost its
  // loop ~9% of its time (bench/kafka). Meanwhile at most kBatch - 1 messages wait.
  void Flush();
  // Hands over what is queued and waits until everything handed over is destroyed.
  void Drain();

 private:
  // Each hand-over wakes the thread, a futex wake that costs the owner microseconds: at 4,096
  // messages a wake it is noise (256 still cost the Kafka spout's loop ~3%, bench/kafka). The
  // messages waiting keep their fetch buffers, a small part of what librdkafka prefetches.
  static constexpr std::size_t kBatch = 4096;
  void Loop();

  std::vector<rd_kafka_message_t*> queued_;  // owner's thread only
  std::mutex mu_;
  std::condition_variable work_;  // handed_ filled, or stopping_
  std::condition_variable idle_;  // handed_ empty and nothing being destroyed
  std::vector<rd_kafka_message_t*> handed_;
  bool destroying_ = false;
  bool stopping_ = false;
  std::thread thread_;
};

}  // namespace sparse::kafka
