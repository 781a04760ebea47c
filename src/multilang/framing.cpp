#include "multilang/framing.hpp"

#include <cstring>

namespace sparse::multilang {

namespace {

// The first '\n' or '\r' at or after `from`, or npos. Two vectorized memchr passes: the
// obvious find_first_of("\r\n") calls memchr once per byte of input, and was the runtime's
// single hottest function under load.
std::size_t FindEol(const std::string& s, std::size_t from) {
  const char* begin = s.data() + from;
  const std::size_t n = s.size() - from;
  const void* lf = std::memchr(begin, '\n', n);
  const std::size_t limit = lf ? static_cast<std::size_t>(static_cast<const char*>(lf) - begin) : n;
  const void* cr = std::memchr(begin, '\r', limit);
  const void* eol = cr ? cr : lf;
  return eol ? static_cast<std::size_t>(static_cast<const char*>(eol) - s.data())
             : std::string::npos;
}

}  // namespace

std::optional<std::string> MessageReader::Next() {
  std::string out;
  if (!NextInto(out)) return std::nullopt;
  return out;
}

bool MessageReader::NextInto(std::string& out) {
  if (error_ != FrameError::kNone) return false;
  while (scan_ < buffer_.size()) {
    if (skip_lf_) {
      skip_lf_ = false;
      if (buffer_[scan_] == '\n') {
        ++scan_;
        msg_start_ = scan_;
        continue;
      }
    }
    // Find the end of the current line.
    std::size_t eol = FindEol(buffer_, scan_);
    if (eol == std::string::npos) {
      scan_ = buffer_.size();
      // Count the partial line as it will be counted once complete (with its separator), and
      // not at all while it may still become the "end" line: the verdict must not depend on
      // where the pipe happened to split the bytes.
      const std::string_view partial(buffer_.data() + msg_start_, buffer_.size() - msg_start_);
      if (!std::string_view("end").starts_with(partial) &&
          body_.size() + (body_has_line_ ? 1 : 0) + partial.size() > max_message_bytes_) {
        error_ = FrameError::kTooLarge;
      }
      return false;
    }
    std::string_view line(buffer_.data() + msg_start_, eol - msg_start_);
    if (buffer_[eol] == '\r') skip_lf_ = true;
    scan_ = eol + 1;
    msg_start_ = scan_;
    if (line == "end") {
      out.swap(body_);
      body_.clear();
      // Keep a grown buffer for the next message, but not one a huge message left behind.
      if (body_.capacity() > (1u << 20)) body_ = std::string();
      body_has_line_ = false;
      // Drop consumed input once it is a good share of the buffer, to keep appends cheap.
      if (msg_start_ > 64 * 1024 || msg_start_ == buffer_.size()) {
        buffer_.erase(0, msg_start_);
        scan_ -= msg_start_;
        msg_start_ = 0;
      }
      return true;
    }
    if (body_has_line_) body_.push_back('\n');
    body_.append(line);
    body_has_line_ = true;
    if (body_.size() > max_message_bytes_) {
      error_ = FrameError::kTooLarge;
      return false;
    }
  }
  // Everything consumed: reset the buffer so it does not grow.
  if (msg_start_ == buffer_.size()) {
    buffer_.clear();
    scan_ = msg_start_ = 0;
  }
  return false;
}

}  // namespace sparse::multilang
