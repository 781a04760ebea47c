#include "multilang/framing.hpp"

namespace sparse::multilang {

std::optional<std::string> MessageReader::Next() {
  if (error_ != FrameError::kNone) return std::nullopt;
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
    std::size_t eol = buffer_.find_first_of("\r\n", scan_);
    if (eol == std::string::npos) {
      scan_ = buffer_.size();
      if (body_.size() + (buffer_.size() - msg_start_) > max_message_bytes_) {
        error_ = FrameError::kTooLarge;
      }
      return std::nullopt;
    }
    std::string_view line(buffer_.data() + msg_start_, eol - msg_start_);
    if (buffer_[eol] == '\r') skip_lf_ = true;
    scan_ = eol + 1;
    msg_start_ = scan_;
    if (line == "end") {
      std::string out = std::move(body_);
      body_.clear();
      body_has_line_ = false;
      // Drop consumed input once it is a good share of the buffer, to keep appends cheap.
      if (msg_start_ > 64 * 1024 || msg_start_ == buffer_.size()) {
        buffer_.erase(0, msg_start_);
        scan_ -= msg_start_;
        msg_start_ = 0;
      }
      return out;
    }
    if (body_has_line_) body_.push_back('\n');
    body_.append(line);
    body_has_line_ = true;
    if (body_.size() > max_message_bytes_) {
      error_ = FrameError::kTooLarge;
      return std::nullopt;
    }
  }
  // Everything consumed: reset the buffer so it does not grow.
  if (msg_start_ == buffer_.size()) {
    buffer_.clear();
    scan_ = msg_start_ = 0;
  }
  return std::nullopt;
}

}  // namespace sparse::multilang
