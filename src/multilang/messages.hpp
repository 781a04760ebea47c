// Messages a component sends to the host, parsed once from their JSON text.
//
// Tuple values are kept as the raw JSON text of the `tuple` array so the runtime can forward them
// to receiving tasks without decoding and re-encoding them.
#pragma once

#include <charconv>
#include <concepts>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace sparse::multilang {

enum class Command { kEmit, kAck, kFail, kError, kLog, kMetrics, kSync, kPid };

std::string_view CommandName(Command c);

// Log levels of the `log` command (Storm's ShellLogHandler): 0 trace .. 4 error.
enum class LogLevel : int { kTrace = 0, kDebug = 1, kInfo = 2, kWarn = 3, kError = 4 };

struct ComponentMessage {
  Command command = Command::kSync;
  // ack/fail: the tuple id exactly as received (string). emit from a spout: the raw JSON text of
  // the message id, empty when absent or null (an unreliable emit).
  std::string id;
  std::string stream;                // emit: defaults to "default"
  std::optional<std::int64_t> task;  // emit: present and non-zero = direct emit to that task
  bool need_task_ids = true;         // emit
  std::vector<std::string> anchors;  // emit (bolts)
  std::string tuple_json;            // emit: raw JSON array text
  std::string msg;                   // log / error
  LogLevel level = LogLevel::kInfo;  // log
  std::string metric_name;           // metrics
  std::string metric_params_json;    // metrics: raw JSON text of params (may be empty)
  std::int64_t pid = 0;              // handshake reply {"pid": N}

  void Clear();
};

// Parses one message body. Returns an error description on failure (never throws).
// `json` must stay alive and have at least 64 spare bytes of capacity beyond its size
// (simdjson padding); use ParseMessage(std::string&, ...) which ensures that.
class MessageParser {
 public:
  MessageParser();
  ~MessageParser();
  MessageParser(const MessageParser&) = delete;
  MessageParser& operator=(const MessageParser&) = delete;

  // On success fills `out` and returns nullopt; on failure returns a human-readable reason.
  std::optional<std::string> Parse(std::string& body, ComponentMessage& out);

 private:
  struct Impl;  // hides simdjson (its namespaces are aliases that cannot be forward-declared)
  std::unique_ptr<Impl> impl_;
};

// Writes `s` as a JSON string literal (with quotes) to `out`.
void AppendJsonString(std::string& out, std::string_view s);

// Writes the JSON escape of one byte that must be escaped in a string: '"', '\\' or a control
// character below 0x20 (short forms where JSON has them, \u00XX otherwise).
void AppendJsonEscape(std::string& out, unsigned char c);

// Writes an integer as JSON (decimal) text to `out`.
template <std::integral Int>
void AppendJsonInt(std::string& out, Int v) {
  char buf[24];
  out.append(buf, std::to_chars(buf, buf + sizeof buf, v).ptr);
}

// Truncates a message for error reports.
std::string Truncate(std::string_view s, std::size_t max = 400);

}  // namespace sparse::multilang
