// Framing of Storm's JSON multilang protocol.
//
// Host -> component: `<json>\nend\n`.
// Component -> host: lines terminated by "\n", "\r\n" or "\r" are joined until a line that is
// exactly "end" (a line "end " with trailing space is content, not a terminator). A message may
// span several lines. Storm sets no size limit; we do, and report it as an error value.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace sparse::multilang {

enum class FrameError {
  kNone,
  kTooLarge,  // a message grew past the configured limit before its "end" line
};

// Incremental reader: feed it bytes as they arrive, then pop complete messages.
// Not thread-safe; owned by one connection.
class MessageReader {
 public:
  explicit MessageReader(std::size_t max_message_bytes = 64u << 20)
      : max_message_bytes_(max_message_bytes) {}

  // Appends raw bytes read from the child's stdout. Memory stays near one limit's worth however
  // a message is split into lines: consumed input is dropped before the buffer grows, and no
  // buffer grows far past the limit. After an error, bytes are dropped.
  void Append(std::string_view bytes);

  // Returns the next complete message body (the lines before "end", joined with '\n', without a
  // trailing newline), or nullopt if none is complete yet. On kTooLarge, error() is set and no
  // further messages are produced.
  std::optional<std::string> Next();
  // The same into `out` (replacing its contents): with one `out` reused for every message, the
  // buffers are swapped back and forth and no message allocates once they have grown.
  bool NextInto(std::string& out);

  FrameError error() const { return error_; }
  // Bytes buffered but not yet part of a complete message.
  std::size_t pending_bytes() const { return buffer_.size() - scan_; }
  std::size_t max_message_bytes() const { return max_message_bytes_; }

 private:
  std::size_t max_message_bytes_;
  std::string buffer_;  // unconsumed input; a message in progress starts at msg_start_
  std::size_t msg_start_ = 0;
  std::size_t scan_ = 0;  // everything before scan_ has been split into lines already
  bool skip_lf_ = false;  // last line ended with '\r': a following '\n' belongs to it
  std::string body_;      // completed lines of the message in progress
  bool body_has_line_ = false;
  FrameError error_ = FrameError::kNone;

  // Makes room for `need` bytes in `s`: doubling, but never past the limit plus a little (the
  // default doubling took a 64 MiB message's buffer to 128 MiB).
  void Reserve(std::string& s, std::size_t need) const;
  void Fail();  // sets kTooLarge and frees what the message held
  // Whether the line that `bytes` continues (or ends) makes the message exceed the limit.
  bool LineOverflows(std::string_view bytes) const;
};

// Appends `json` followed by "\nend\n" to `out`.
inline void AppendFramed(std::string& out, std::string_view json) {
  out.append(json);
  out.append("\nend\n");
}

}  // namespace sparse::multilang
