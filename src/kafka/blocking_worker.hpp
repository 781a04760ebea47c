// A helper thread for the few librdkafka calls that block (metadata, offsets-for-times,
// committed-offset lookups), so the runtime's event loop never waits on the network.
//
// Submit() takes a job that runs on the worker thread and returns a continuation; the
// continuation is posted to the event loop and runs there, unless the worker was stopped first.
// Jobs must only touch librdkafka (whose handles are thread-safe) and their own captures, never
// the runtime. Jobs run one at a time in submission order.
#pragma once

#include <atomic>
#include <boost/asio/io_context.hpp>
#include <condition_variable>
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

  explicit BlockingWorker(boost::asio::io_context& io);
  ~BlockingWorker();  // Stop()
  BlockingWorker(const BlockingWorker&) = delete;
  BlockingWorker& operator=(const BlockingWorker&) = delete;

  void Submit(Job job);
  // Drops queued jobs and waits for the running one (blocking calls have timeouts); no
  // continuation runs after Stop returns. Idempotent; call from the event loop.
  void Stop();
  bool Busy() const;
  // Set once Stop began: a long job (several blocking calls) checks it between calls.
  const std::atomic<bool>& cancelled() const { return cancelled_; }

 private:
  void Loop();

  boost::asio::io_context& io_;
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
