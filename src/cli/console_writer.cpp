#include "cli/console_writer.hpp"

#include <unistd.h>

#include <cerrno>
#include <condition_variable>
#include <deque>
#include <mutex>

namespace sparse::cli {

struct ConsoleWriter::State {
  explicit State(int f, std::size_t b) : fd(f), budget(b) {}
  const int fd;
  const std::size_t budget;
  std::mutex mu;
  std::condition_variable wake;     // the writer: text queued, or stop
  std::condition_variable drained;  // Stop(): the queue is empty and nothing is being written
  std::deque<std::string> queue;
  std::size_t queued_bytes = 0;
  std::uint64_t gap_bytes = 0;      // dropped since the last notice
  std::uint64_t dropped_bytes = 0;  // dropped in all
  bool writing = false;
  bool stopping = false;
  bool broken = false;  // the console is gone; everything after is dropped

  // Called with `mu` held: a notice for the text dropped since the last one, queued where the
  // gap is. It is not counted against the budget, so the reader always learns of the gap.
  void QueueGapNotice() {
    if (gap_bytes == 0) return;
    queue.push_back("sparse: " + std::to_string(gap_bytes) +
                    " bytes of console output dropped: the console did not keep up (the log "
                    "files have everything)\n");
    queued_bytes += queue.back().size();
    gap_bytes = 0;
  }
};

namespace {

// Blocking write of all of `text`; false when the console is gone.
bool WriteAll(int fd, const std::string& text) {
  std::size_t done = 0;
  while (done < text.size()) {
    const ssize_t n = ::write(fd, text.data() + done, text.size() - done);
    if (n > 0) {
      done += static_cast<std::size_t>(n);
    } else if (n < 0 && errno == EINTR) {
      continue;
    } else {
      return false;
    }
  }
  return true;
}

}  // namespace

ConsoleWriter::ConsoleWriter(int fd, std::size_t budget_bytes)
    : state_(std::make_shared<State>(fd, budget_bytes)) {}

ConsoleWriter::~ConsoleWriter() {
  Stop(std::chrono::milliseconds(500));
}

void ConsoleWriter::Start() {
  if (started_) return;
  started_ = true;
  thread_ = std::thread([state = state_] {
    std::unique_lock lock(state->mu);
    for (;;) {
      state->wake.wait(lock, [&] { return !state->queue.empty() || state->stopping; });
      if (state->queue.empty()) break;  // stopping, and all written
      std::deque<std::string> batch;
      batch.swap(state->queue);
      state->queued_bytes = 0;
      state->writing = true;
      lock.unlock();
      std::string text;
      for (auto& piece : batch) text += piece;
      const bool ok = WriteAll(state->fd, text);
      lock.lock();
      state->writing = false;
      if (!ok) {
        state->broken = true;
        state->dropped_bytes += text.size() + state->queued_bytes;
        state->queue.clear();
        state->queued_bytes = 0;
      }
      if (state->queue.empty()) state->drained.notify_all();
      if (state->broken) break;
    }
    state->writing = false;
    state->drained.notify_all();
  });
}

bool ConsoleWriter::Submit(std::string text) {
  if (text.empty()) return true;
  auto& s = *state_;
  std::lock_guard lock(s.mu);
  if (s.stopping || s.broken || s.queued_bytes + text.size() > s.budget) {
    s.gap_bytes += text.size();
    s.dropped_bytes += text.size();
    return false;
  }
  s.QueueGapNotice();
  s.queued_bytes += text.size();
  s.queue.push_back(std::move(text));
  s.wake.notify_one();
  return true;
}

void ConsoleWriter::Stop(std::chrono::milliseconds grace) {
  if (!started_) return;
  started_ = false;
  bool finished = false;
  {
    std::unique_lock lock(state_->mu);
    if (!state_->broken) state_->QueueGapNotice();
    state_->stopping = true;
    state_->wake.notify_one();
    finished = state_->drained.wait_for(
        lock, grace, [&] { return state_->broken || (state_->queue.empty() && !state_->writing); });
  }
  if (finished) {
    thread_.join();
  } else {
    // Still blocked in write(): the terminal stays paused. The thread keeps the state alive and
    // ends with the process.
    thread_.detach();
  }
}

std::uint64_t ConsoleWriter::dropped_bytes() const {
  std::lock_guard lock(state_->mu);
  return state_->dropped_bytes;
}

}  // namespace sparse::cli
