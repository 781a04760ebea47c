// sparse C++ component adapter — multilang framing and I/O.
//
// Wire formats (see docs/multilang-protocol.md and detail/wire.hpp): JSON, where every message is
// one JSON document followed by a line that is exactly `end` (lines end in "\n", "\r\n" or "\r";
// a message may span lines), or MessagePack, where every message is one self-delimiting value.
// The host's first message decides which; the component answers in the same format.
//
//   FrameDecoder  pure buffer logic: bytes in, complete messages (views into the buffer) out;
//                 detects the format from the first message.
//   FrameReader   FrameDecoder fed by read(2) in large chunks from a file descriptor.
//   Output        the single writer of protocol messages: composes each message in one buffer,
//                 thread-safe, and writes many messages with one write(2) when deferred.
//
// None of these own the file descriptors they are given.
#pragma once

#include <sparse/detail/msgpack.hpp>
#include <sparse/detail/wire.hpp>
#include <sparse/errors.hpp>
#include <sparse/json.hpp>

#include <poll.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstddef>
#include <cstring>
#include <mutex>
#include <stdexcept>
#include <string>
#include <string_view>
#include <system_error>
#include <vector>

namespace sparse {

namespace detail {

/// Splits a byte stream into multilang messages without copying them.
/// Usage: write into write_area(), commit() what was written, then call next() until it returns
/// false. A view returned by next() stays valid until the next call to write_area().
/// The format is detected from the first message (detect_wire) unless given to the constructor.
class FrameDecoder {
 public:
  explicit FrameDecoder(std::size_t max_message_bytes = std::size_t{256} << 20,
                        Wire wire = Wire::unknown)
      : max_message_bytes_(max_message_bytes), wire_(wire) {}

  /// The host's format: unknown until the first message has begun to arrive.
  Wire wire() const { return wire_; }

  /// Returns space for at least `min_bytes` more input; its size is write_capacity().
  /// Compacts or grows the buffer, which invalidates views returned earlier.
  char* write_area(std::size_t min_bytes) {
    if (buffer_.size() - end_ < min_bytes && msg_begin_ > 0) {
      std::memmove(buffer_.data(), buffer_.data() + msg_begin_, end_ - msg_begin_);
      end_ -= msg_begin_;
      line_begin_ -= msg_begin_;
      scan_ -= msg_begin_;
      msg_begin_ = 0;
    }
    if (buffer_.size() - end_ < min_bytes) {
      if (end_ - msg_begin_ > max_message_bytes_) {
        throw ProtocolError(
            "a message from the host is larger than " + std::to_string(max_message_bytes_) +
            (wire_ == Wire::msgpack
                 ? " bytes (the MessagePack value is not complete yet)"
                 : " bytes without an `end` line (is the host speaking multilang JSON?)"));
      }
      buffer_.resize(std::max(buffer_.size() * 2, end_ + min_bytes));
    }
    return buffer_.data() + end_;
  }
  std::size_t write_capacity() const { return buffer_.size() - end_; }
  void commit(std::size_t bytes) { end_ += bytes; }

  /// Finds the next complete message. Throws ProtocolError if the first message is neither JSON
  /// nor MessagePack, or if MessagePack input cannot be delimited (then nothing after it can).
  bool next(std::string_view& message) {
    if (wire_ == Wire::json) return next_json(message);
    if (wire_ == Wire::msgpack) return next_msgpack(message);
    wire_ = detect_wire(buffer_.data() + msg_begin_, end_ - msg_begin_);
    return wire_ != Wire::unknown && next(message);
  }

  /// At end of input: a last JSON line `end` without a terminator still ends a message (a line
  /// reader returns the last line at EOF). Call after next() returned false.
  bool finish(std::string_view& message) {
    if (wire_ != Wire::json) return false;
    if (end_ - line_begin_ == 3 && std::memcmp(buffer_.data() + line_begin_, "end", 3) == 0) {
      message = std::string_view(buffer_.data() + msg_begin_, line_begin_ - msg_begin_);
      msg_begin_ = line_begin_ = scan_ = end_;
      return true;
    }
    return false;
  }

  /// True if part of a message is waiting for the rest (for JSON: bytes other than whitespace
  /// are waiting for an `end` line).
  bool has_partial_message() const {
    if (wire_ == Wire::msgpack) return msg_begin_ < end_;
    return std::any_of(buffer_.begin() + static_cast<std::ptrdiff_t>(msg_begin_),
                       buffer_.begin() + static_cast<std::ptrdiff_t>(end_),
                       [](char c) { return !is_json_space(c); });
  }

 private:
  // JSON: the text before a line that is exactly `end`. The text keeps its inner line
  // terminators, which are JSON whitespace.
  bool next_json(std::string_view& message) {
    const char* base = buffer_.data();
    while (scan_ < end_) {
      const char* from = base + scan_;
      const auto* nl = static_cast<const char*>(std::memchr(from, '\n', end_ - scan_));
      const char* stop = nl ? nl : base + end_;
      const auto* cr =
          static_cast<const char*>(std::memchr(from, '\r', static_cast<std::size_t>(stop - from)));
      const char* terminator = cr ? cr : nl;
      if (!terminator) {
        scan_ = end_;  // no complete line yet; resume here when more bytes arrive
        return false;
      }
      const std::size_t line_end = static_cast<std::size_t>(terminator - base);
      const bool is_end =
          line_end - line_begin_ == 3 && std::memcmp(base + line_begin_, "end", 3) == 0;
      const std::size_t line_begin = line_begin_;
      line_begin_ = scan_ = line_end + 1;
      if (is_end) {
        message = std::string_view(base + msg_begin_, line_begin - msg_begin_);
        msg_begin_ = line_begin_;
        return true;
      }
    }
    return false;
  }

  // MessagePack: one complete value.
  bool next_msgpack(std::string_view& message) {
    if (!framer_.advance(buffer_.data(), scan_, end_, msg_begin_, max_message_bytes_)) {
      return false;
    }
    message = std::string_view(buffer_.data() + msg_begin_, scan_ - msg_begin_);
    msg_begin_ = line_begin_ = scan_;
    return true;
  }

  std::vector<char> buffer_;
  std::size_t msg_begin_ = 0;   // first byte of the message being assembled
  std::size_t line_begin_ = 0;  // JSON: first byte of the line being scanned
  std::size_t scan_ = 0;        // where the search for the message's end resumes
  std::size_t end_ = 0;         // end of the bytes read so far
  std::size_t max_message_bytes_;
  Wire wire_;
  msgpack::Framer framer_;
};

/// Reads multilang messages from a file descriptor with read(2) in large chunks.
/// Thread affinity: one reading thread at a time.
class FrameReader {
 public:
  enum class Result { message, eof, cancelled };

  /// If `cancel_fd` >= 0, next() also returns `cancelled` as soon as cancel_fd becomes readable
  /// (it then polls before every read; otherwise reads block).
  /// `wire` is the input's format, or Wire::unknown to detect it from the first message.
  explicit FrameReader(int fd, int cancel_fd = -1,
                       std::size_t max_message_bytes = std::size_t{256} << 20,
                       Wire wire = Wire::unknown)
      : fd_(fd), cancel_fd_(cancel_fd), decoder_(max_message_bytes, wire) {}

  /// The host's format, known once next() returned the first message.
  Wire wire() const { return decoder_.wire(); }

  /// Blocks until a whole message is available (`message` views it until the next call), input
  /// ends, or the reader is cancelled. Throws std::system_error on a read error and ProtocolError
  /// on an oversized message or input that is neither format (after which the connection is
  /// unusable: there is no telling where the next message starts).
  Result next(std::string_view& message) {
    for (;;) {
      if (decoder_.next(message)) return Result::message;
      if (eof_) return decoder_.finish(message) ? Result::message : Result::eof;
      if (cancel_fd_ >= 0 && !wait_readable()) return Result::cancelled;
      char* area = decoder_.write_area(kChunkBytes);
      const ssize_t got = ::read(fd_, area, decoder_.write_capacity());
      if (got > 0) {
        decoder_.commit(static_cast<std::size_t>(got));
      } else if (got == 0) {
        eof_ = true;
      } else if (errno == EAGAIN || errno == EWOULDBLOCK) {
        if (cancel_fd_ < 0) wait_readable();
      } else if (errno != EINTR) {
        throw std::system_error(errno, std::generic_category(), "sparse: reading from the host");
      }
    }
  }

  /// The next message if one is already buffered; never reads. Lets a reader hand everything it
  /// has to its consumer before blocking in read(2).
  bool next_buffered(std::string_view& message) { return decoder_.next(message); }

  /// After next() returned eof: true if the input ended in the middle of a message.
  bool ended_mid_message() const { return decoder_.has_partial_message(); }

  void set_cancel_fd(int fd) { cancel_fd_ = fd; }

 private:
  static constexpr std::size_t kChunkBytes = 64 * 1024;  // a whole Linux pipe buffer per read

  // Returns false if cancel_fd_ fired.
  bool wait_readable() {
    pollfd fds[2] = {{fd_, POLLIN, 0}, {cancel_fd_, POLLIN, 0}};
    const nfds_t count = cancel_fd_ >= 0 ? 2 : 1;
    for (;;) {
      const int ready = ::poll(fds, count, -1);
      if (ready < 0 && errno == EINTR) continue;
      if (ready < 0) throw std::system_error(errno, std::generic_category(), "sparse: poll");
      if (count == 2 && fds[1].revents != 0) return false;
      return true;  // readable, hung up or in error: read() tells which
    }
  }

  int fd_;
  int cancel_fd_;
  bool eof_ = false;
  FrameDecoder decoder_;
};

/// The component's only path to the host. Every message is composed in place in one buffer, in
/// the host's format (JSON, terminated with "\nend\n", until set_wire says otherwise). Thread-safe:
/// the heartbeat reader, the component's main thread and any thread of user code may send
/// concurrently; messages never interleave.
///
/// Immediate mode (default): each send() is written at once, one write(2) per message.
/// Deferred mode: messages collect until flush(), flush_if_older_than(), or until the buffer holds
/// `flush_bytes`; run loops use it while user code runs, so a tuple's emits and ack go out
/// together.
class Output {
 public:
  explicit Output(int fd, std::size_t flush_bytes = 64 * 1024, Wire wire = Wire::json)
      : fd_(fd), flush_bytes_(flush_bytes), wire_(wire) {}
  Output(const Output&) = delete;
  Output& operator=(const Output&) = delete;

  /// The format of the messages sent from now on (Wire::unknown means JSON).
  void set_wire(Wire wire) {
    std::lock_guard<std::mutex> lock(mutex_);
    wire_ = wire;
  }

  /// Appends one message: `compose(encoder)` writes it through the encoder interface of
  /// detail/wire.hpp (a generic lambda: [&](auto& e) { message::sync(e); }). If compose throws,
  /// the partial message is discarded and the exception propagates. Throws Disconnected if the host
  /// closed its end, std::system_error on other write errors.
  template <class Compose>
  void send(Compose&& compose) {
    std::lock_guard<std::mutex> lock(mutex_);
    append_locked(compose);
    if (!deferred_ || buffer_.size() >= flush_bytes_) write_buffer_locked();
  }

  /// Sends one message and writes everything buffered with it, deferred or not.
  template <class Compose>
  void send_now(Compose&& compose) {
    std::lock_guard<std::mutex> lock(mutex_);
    append_locked(compose);
    write_buffer_locked();
  }

  void flush() {
    std::lock_guard<std::mutex> lock(mutex_);
    write_buffer_locked();
  }

  /// Flushes if the oldest buffered message has waited at least `max_delay`.
  void flush_if_older_than(std::chrono::steady_clock::duration max_delay) {
    std::lock_guard<std::mutex> lock(mutex_);
    if (!buffer_.empty() && std::chrono::steady_clock::now() - oldest_ >= max_delay) {
      write_buffer_locked();
    }
  }

  /// Leaving deferred mode flushes what was buffered.
  void set_deferred(bool deferred) {
    std::lock_guard<std::mutex> lock(mutex_);
    deferred_ = deferred;
    if (!deferred_) write_buffer_locked();
  }

 private:
  template <class Compose>
  void append_locked(Compose& compose) {
    const std::size_t before = buffer_.size();
    try {
      encode_message(wire_, buffer_, compose);
    } catch (...) {
      buffer_.resize(before);
      throw;
    }
    if (before == 0) oldest_ = std::chrono::steady_clock::now();
  }

  void write_buffer_locked() {
    std::size_t done = 0;
    while (done < buffer_.size()) {
      const ssize_t wrote = ::write(fd_, buffer_.data() + done, buffer_.size() - done);
      if (wrote >= 0) {
        done += static_cast<std::size_t>(wrote);
      } else if (errno == EAGAIN || errno == EWOULDBLOCK) {
        pollfd out{fd_, POLLOUT, 0};
        ::poll(&out, 1, -1);
      } else if (errno != EINTR) {
        const int error = errno;
        buffer_.clear();
        if (error == EPIPE) throw Disconnected("sparse: the host closed the protocol pipe");
        throw std::system_error(error, std::generic_category(), "sparse: writing to the host");
      }
    }
    buffer_.clear();
  }

  std::mutex mutex_;
  int fd_;
  std::size_t flush_bytes_;
  Wire wire_;
  bool deferred_ = false;
  std::string buffer_;
  std::chrono::steady_clock::time_point oldest_;
};

/// Composers of the fixed-shape messages, for any encoder of detail/wire.hpp.
namespace message {

template <class Encoder>
SPARSE_ENCODER_INLINE void sync(Encoder& e) {
  e.begin_map(1);
  e.key("command");
  e.literal("sync");
  e.end_map();
}

template <class Encoder>
SPARSE_ENCODER_INLINE void pid(Encoder& e, long pid) {
  e.begin_map(1);
  e.key("pid");
  e.integer(pid);
  e.end_map();
}

template <class Encoder>
SPARSE_ENCODER_INLINE void ack(Encoder& e, const json& id) {
  e.begin_map(2);
  e.key("command");
  e.literal("ack");
  e.key("id");
  e.value(id);
  e.end_map();
}

template <class Encoder>
SPARSE_ENCODER_INLINE void fail(Encoder& e, const json& id) {
  e.begin_map(2);
  e.key("command");
  e.literal("fail");
  e.key("id");
  e.value(id);
  e.end_map();
}

template <class Encoder>
SPARSE_ENCODER_INLINE void log(Encoder& e, std::string_view text, int level) {
  e.begin_map(3);
  e.key("command");
  e.literal("log");
  e.key("msg");
  e.text(text);
  e.key("level");
  e.integer(level);
  e.end_map();
}

template <class Encoder>
SPARSE_ENCODER_INLINE void error(Encoder& e, std::string_view text) {
  e.begin_map(2);
  e.key("command");
  e.literal("error");
  e.key("msg");
  e.text(text);
  e.end_map();
}

template <class Encoder>
SPARSE_ENCODER_INLINE void metrics(Encoder& e, std::string_view name, const json& params) {
  e.begin_map(3);
  e.key("command");
  e.literal("metrics");
  e.key("name");
  e.text(name);
  e.key("params");
  e.value(params);
  e.end_map();
}

}  // namespace message

}  // namespace detail
}  // namespace sparse
