// sparse C++ component adapter — the bolt's input side.
//
// A reader thread owns the input. It parses every message once and
//  - answers heartbeats itself (with `sync`, through Output), so a bolt stuck in a long process()
//    call still looks alive to the host;
//  - queues task-id replies (bare arrays) for the thread waiting in emit;
//  - queues tuples for the main thread, bounded by count and bytes (the pipe then pushes back on
//    the host). The bound is lifted while the main thread waits for a task-id reply, so a reply
//    stuck behind queued tuples can never deadlock the bolt.
#pragma once

#include <sparse/component.hpp>
#include <sparse/detail/decoder.hpp>
#include <sparse/protocol.hpp>
#include <sparse/tuple.hpp>

#include <fcntl.h>
#include <unistd.h>

#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <iostream>
#include <mutex>
#include <string>
#include <string_view>
#include <system_error>
#include <thread>
#include <utility>
#include <vector>

namespace sparse {
namespace detail {

struct InboxLimits {
  std::size_t max_tuples;
  std::size_t max_bytes;
};

class BoltInbox : public Link {
 public:
  /// Starts the reader thread on `reader`; both `reader` and `output` must outlive the inbox.
  BoltInbox(FrameReader& reader, Output& output, InboxLimits limits)
      : Link(output), reader_(reader), limits_(limits) {
    if (::pipe(cancel_pipe_) != 0) {
      throw std::system_error(errno, std::generic_category(), "sparse: pipe");
    }
    ::fcntl(cancel_pipe_[0], F_SETFD, FD_CLOEXEC);
    ::fcntl(cancel_pipe_[1], F_SETFD, FD_CLOEXEC);
    reader_.set_cancel_fd(cancel_pipe_[0]);
    thread_ = std::thread([this] { read_loop(); });
  }

  /// Stops and joins the reader thread.
  ~BoltInbox() override {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      stopping_ = true;
    }
    space_cv_.notify_all();
    const char byte = 0;
    while (::write(cancel_pipe_[1], &byte, 1) < 0 && errno == EINTR) {
    }
    thread_.join();
    reader_.set_cancel_fd(-1);
    ::close(cancel_pipe_[0]);
    ::close(cancel_pipe_[1]);
  }

  BoltInbox(const BoltInbox&) = delete;
  BoltInbox& operator=(const BoltInbox&) = delete;

  /// Main thread: the next tuple, or false once input has ended and every tuple was handed out.
  /// Before blocking it flushes the output and leaves it in immediate mode while idle, so messages
  /// from other threads go out at once; on return the output is deferred again.
  bool pop(Tuple& tuple) {
    if (next_ < batch_.size()) {
      tuple = std::move(batch_[next_++]);
      return true;
    }
    batch_.clear();
    next_ = 0;
    std::unique_lock<std::mutex> lock(mutex_);
    if (queued_.empty() && !ended_) {
      lock.unlock();
      output().set_deferred(false);
      lock.lock();
      consumer_waiting_ = true;
      data_cv_.wait(lock, [this] { return !queued_.empty() || ended_; });
      consumer_waiting_ = false;
      lock.unlock();
      output().set_deferred(true);
      lock.lock();
    }
    if (queued_.empty()) return false;
    batch_.swap(queued_);  // take everything queued with one lock
    queued_bytes_ = 0;
    if (producer_waiting_) space_cv_.notify_one();
    lock.unlock();
    tuple = std::move(batch_[next_++]);
    return true;
  }

  std::vector<int> await_task_ids() override {
    output().flush();
    std::unique_lock<std::mutex> lock(mutex_);
    awaiting_reply_ = true;
    if (producer_waiting_) space_cv_.notify_one();
    reply_cv_.wait(lock, [this] { return !replies_.empty() || ended_; });
    awaiting_reply_ = false;
    if (replies_.empty()) {
      throw Disconnected("sparse: the host closed the connection before sending task ids");
    }
    json reply = std::move(replies_.front());
    replies_.pop_front();
    lock.unlock();
    return to_task_ids(reply);
  }

  /// Why input ended, if it was not a clean end of file ("" otherwise). Valid once pop() is false.
  std::string failure() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return failure_;
  }

 private:
  void read_loop() {
    std::string failure;
    try {
      std::string_view text;
      for (;;) {
        if (!reader_.next_buffered(text)) {
          // Hand over what was parsed before blocking: one lock and one wake-up per read(2).
          if (!publish()) break;
          const FrameReader::Result result = reader_.next(text);
          if (result == FrameReader::Result::cancelled) break;
          if (result == FrameReader::Result::eof) {
            if (reader_.ended_mid_message()) {
              std::cerr << "sparse: input ended in the middle of a message; it was ignored\n";
            }
            break;
          }
        }
        handle(text);
        if (parsed_.size() >= kPublishTuples && !publish()) break;
      }
      publish();
    } catch (const Disconnected&) {
      // The host went away while we answered a heartbeat: same as end of input.
    } catch (const std::exception& e) {
      failure = e.what();
    }
    std::lock_guard<std::mutex> lock(mutex_);
    ended_ = true;
    failure_ = std::move(failure);
    data_cv_.notify_all();
    reply_cv_.notify_all();
  }

  void handle(std::string_view text) {
    Tuple tuple;
    json reply;
    try {
      if (!parse_bolt_message(reader_.wire(), text, tuple, reply)) {
        std::lock_guard<std::mutex> lock(mutex_);
        replies_.push_back(std::move(reply));
        reply_cv_.notify_one();
        return;
      }
    } catch (const ProtocolError& e) {
      report_bad_message(e.what());
      return;
    }
    if (tuple.is_heartbeat()) {
      output().send_now([](auto& e) { message::sync(e); });
      return;
    }
    parsed_.push_back(std::move(tuple));
    parsed_bytes_ += text.size();
  }

  // Moves the parsed tuples to the queue, waiting while it is full. False when stopping.
  bool publish() {
    if (parsed_.empty()) return true;
    std::unique_lock<std::mutex> lock(mutex_);
    while (!stopping_ && !awaiting_reply_ && !queued_.empty() &&
           (queued_.size() >= limits_.max_tuples || queued_bytes_ >= limits_.max_bytes)) {
      producer_waiting_ = true;
      space_cv_.wait(lock);
    }
    producer_waiting_ = false;
    if (stopping_) return false;
    if (queued_.empty()) {
      queued_.swap(parsed_);
    } else {
      for (auto& tuple : parsed_) queued_.push_back(std::move(tuple));
      parsed_.clear();
    }
    queued_bytes_ += parsed_bytes_;
    parsed_bytes_ = 0;
    if (consumer_waiting_) data_cv_.notify_one();
    return true;
  }

  // A malformed message is skipped: framing is intact, so the next one can still be read. (Input
  // that cannot be framed makes the reader throw, which ends the bolt.)
  void report_bad_message(const std::string& what) {
    std::cerr << "sparse: " << what << '\n';
    output().send([&](auto& e) { message::error(e, what); });
  }

  FrameReader& reader_;
  const InboxLimits limits_;
  int cancel_pipe_[2] = {-1, -1};
  std::thread thread_;

  mutable std::mutex mutex_;
  std::condition_variable data_cv_;   // tuples queued or input ended (main thread waits)
  std::condition_variable space_cv_;  // room in the queue (reader thread waits)
  std::condition_variable reply_cv_;  // task-id reply queued or input ended (emitter waits)
  std::vector<Tuple> queued_;
  std::size_t queued_bytes_ = 0;
  std::deque<json> replies_;
  bool ended_ = false;
  bool stopping_ = false;
  bool consumer_waiting_ = false;
  bool producer_waiting_ = false;
  bool awaiting_reply_ = false;
  std::string failure_;

  // Reader thread only: tuples parsed but not yet published.
  static constexpr std::size_t kPublishTuples = 256;
  std::vector<Tuple> parsed_;
  std::size_t parsed_bytes_ = 0;

  // Main thread only: the batch taken from queued_ and the position in it.
  std::vector<Tuple> batch_;
  std::size_t next_ = 0;
};

}  // namespace detail
}  // namespace sparse
