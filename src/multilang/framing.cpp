#include "multilang/framing.hpp"

#include <algorithm>
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

void MessageReader::Append(std::string_view bytes) {
  if (error_ != FrameError::kNone) return;
  if (scan_ == buffer_.size() && LineOverflows(bytes)) {
    Fail();  // refused before the buffer grows for it
    return;
  }
  if (buffer_.size() + bytes.size() > buffer_.capacity() && msg_start_ > 0) {
    // Lines before msg_start_ are in body_ already (or were returned): drop them rather than
    // carry them into a larger buffer.
    buffer_.erase(0, msg_start_);
    scan_ -= msg_start_;
    msg_start_ = 0;
  }
  Reserve(buffer_, buffer_.size() + bytes.size());
  buffer_.append(bytes);
}

bool MessageReader::LineOverflows(std::string_view bytes) const {
  // Everything buffered is scanned: the buffer ends inside the line that `bytes` continues.
  std::size_t from = 0;
  if (skip_lf_ && !bytes.empty() && bytes[0] == '\n') from = 1;
  const std::size_t n = bytes.size() - from;
  const void* lf = std::memchr(bytes.data() + from, '\n', n);
  const void* cr = std::memchr(bytes.data() + from, '\r', n);
  std::size_t in_bytes = n;
  for (const void* eol : {lf, cr}) {
    if (eol)
      in_bytes = std::min(in_bytes, static_cast<std::size_t>(static_cast<const char*>(eol) -
                                                             (bytes.data() + from)));
  }
  const std::size_t line = buffer_.size() - msg_start_ + in_bytes;
  // The same count as NextInto's; a line of 3 bytes or fewer may still be "end".
  return line > 3 && body_.size() + (body_has_line_ ? 1 : 0) + line > max_message_bytes_;
}

void MessageReader::Reserve(std::string& s, std::size_t need) const {
  if (need <= s.capacity()) return;
  // Each growth copies: the old buffer and the copied part of the new one are both resident for
  // a moment. Doubling, then straight to the limit (plus a little) once doubling would pass half
  // of it: the largest copy is then under half a limit, and the peak about one limit. (Plain
  // doubling copies up to a whole limit into a buffer of two.)
  const std::size_t ceiling = max_message_bytes_ + (1u << 20);
  const std::size_t doubled = 2 * s.capacity();
  // reserve() on a grown string doubles anyway (libstdc++); a fresh one gets what is asked.
  std::string grown;
  grown.reserve(std::max(need, doubled >= max_message_bytes_ / 2 ? ceiling : doubled));
  grown.append(s);
  s.swap(grown);
}

void MessageReader::Fail() {
  error_ = FrameError::kTooLarge;
  buffer_ = std::string();
  body_ = std::string();
  scan_ = msg_start_ = 0;
}

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
        Fail();
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
    const std::size_t joined = body_.size() + (body_has_line_ ? 1 : 0) + line.size();
    if (joined > max_message_bytes_) {
      Fail();
      return false;
    }
    Reserve(body_, joined);
    if (body_has_line_) body_.push_back('\n');
    body_.append(line);
    body_has_line_ = true;
  }
  // Everything consumed: reset the buffer so it does not grow.
  if (msg_start_ == buffer_.size()) {
    buffer_.clear();
    scan_ = msg_start_ = 0;
  }
  return false;
}

}  // namespace sparse::multilang
