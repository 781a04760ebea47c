// A helper thread for the few librdkafka calls that block (metadata, offsets-for-times,
// committed-offset lookups, transaction calls), so the runtime's event loop never waits on the
// network.
//
// Lifetime: construct, Start() (from the event loop), Submit() jobs, Stop(). Nothing runs before
// Start; Stop (also done by the destructor) ends the thread for good.
//
// Submit() takes a job that runs on the worker thread and returns a continuation; the
// continuation is posted to the event loop and runs there, unless the worker was stopped first.
// Jobs must only touch librdkafka (whose handles are thread-safe) and their own captures, never
// the runtime. Jobs run one at a time in submission order.
//
// The queue is bounded: at most `capacity` jobs wait (the running one not counted). Submit never
// blocks the loop: it returns false, and drops the job, when the queue is full or the worker was
// stopped; the caller still owns what the job was for (retry later, report it). Every current
// user keeps at most a few jobs queued (each waits for a job's continuation before it submits
// the next of its kind), far below kDefaultCapacity, so for them false means stopped.
#pragma once

#include <atomic>
#include <boost/asio/io_context.hpp>
#include <condition_variable>
#include <cstddef>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <thread>

#include "base/lifetime_gate.hpp"

namespace sparse::kafka {

class BlockingWorker {
 public:
  using Continuation = std::function<void()>;
  using Job = std::function<Continuation()>;
  static constexpr std::size_t kDefaultCapacity = 64;

  explicit BlockingWorker(boost::asio::io_context& io, std::size_t capacity = kDefaultCapacity);
  ~BlockingWorker();  // Stop()
  BlockingWorker(const BlockingWorker&) = delete;
  BlockingWorker& operator=(const BlockingWorker&) = delete;

  // Starts the thread; jobs submitted before run from then on. Does nothing once started or
  // stopped. Call from the event loop.
  void Start();
  // Queues `job`. False (the job dropped, not run) when the queue holds `capacity` jobs already
  // or the worker was stopped.
  bool Submit(Job job);
  // Drops queued jobs and waits for the running one (blocking calls have timeouts); no
  // continuation runs after Stop returns, and later Submits are refused. Idempotent; call from
  // the event loop.
  void Stop();
  bool Busy() const;
  std::size_t capacity() const { return capacity_; }
  // Set once Stop began: a long job (several blocking calls) checks it between calls.
  const std::atomic<bool>& cancelled() const { return cancelled_; }

 private:
  void Loop(base::LifetimeGate::Ticket alive);

  boost::asio::io_context& io_;
  const std::size_t capacity_;
  mutable std::mutex mu_;
  std::condition_variable cv_;
  std::deque<Job> jobs_;
  bool stopping_ = false;
  std::atomic<bool> cancelled_{false};
  bool running_job_ = false;
  base::LifetimeGate gate_;  // touched on the loop only
  std::thread thread_;
};

}  // namespace sparse::kafka
