#include "kafka/blocking_worker.hpp"

#include <boost/asio/post.hpp>

namespace sparse::kafka {

BlockingWorker::BlockingWorker(boost::asio::io_context& io, std::size_t capacity)
    : io_(io), capacity_(capacity) {}

BlockingWorker::~BlockingWorker() {
  Stop();
}

void BlockingWorker::Start() {
  {
    std::lock_guard lock(mu_);
    if (stopping_ || thread_.joinable()) return;
  }
  // The ticket is taken here, on the loop; the thread only carries it to the handlers it posts.
  thread_ = std::thread([this, alive = gate_.ticket()] { Loop(alive); });
}

bool BlockingWorker::Submit(Job job) {
  {
    std::lock_guard lock(mu_);
    if (stopping_ || jobs_.size() >= capacity_) return false;
    jobs_.push_back(std::move(job));
  }
  cv_.notify_one();
  return true;
}

bool BlockingWorker::Busy() const {
  std::lock_guard lock(mu_);
  return running_job_ || !jobs_.empty();
}

void BlockingWorker::Stop() {
  {
    std::lock_guard lock(mu_);
    if (stopping_ && !thread_.joinable()) return;
    stopping_ = true;
    cancelled_ = true;
    jobs_.clear();
  }
  gate_.Close();
  cv_.notify_one();
  if (thread_.joinable()) thread_.join();
}

void BlockingWorker::Loop(base::LifetimeGate::Ticket alive) {
  // `alive` is only tested on the event loop (inside the posted handler), never here.
  for (;;) {
    Job job;
    {
      std::unique_lock lock(mu_);
      cv_.wait(lock, [this] { return stopping_ || !jobs_.empty(); });
      if (stopping_) return;
      job = std::move(jobs_.front());
      jobs_.pop_front();
      running_job_ = true;
    }
    Continuation next = job();
    {
      std::lock_guard lock(mu_);
      running_job_ = false;
    }
    if (next) {
      boost::asio::post(io_, [alive, next = std::move(next)] {
        if (alive) next();
      });
    }
  }
}

}  // namespace sparse::kafka
