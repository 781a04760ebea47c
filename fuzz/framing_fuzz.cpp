// Fuzz target: the JSON multilang framing (multilang/framing.hpp), what a child writes on stdout.
//
// Properties: the messages and the error do not depend on how the pipe chunks the bytes (fed at
// once vs in small pieces); without a limit the reader agrees with a plain line-splitting model
// of the protocol; no message is ever longer than the limit.
#include <string>
#include <string_view>
#include <vector>

#include "check.hpp"
#include "multilang/framing.hpp"

namespace {

using sparse::multilang::FrameError;
using sparse::multilang::MessageReader;

struct Result {
  std::vector<std::string> messages;
  FrameError error = FrameError::kNone;
  bool operator==(const Result&) const = default;
};

Result Read(std::string_view bytes, std::size_t limit, bool chunked) {
  MessageReader reader(limit);
  Result r;
  sparse::fuzz::Chunker chunker(bytes);
  std::string message;
  for (std::size_t at = 0; at < bytes.size();) {
    const std::size_t n = chunked ? chunker.Next(bytes.size() - at) : bytes.size() - at;
    reader.Append(bytes.substr(at, n));
    at += n;
    while (reader.NextInto(message)) {
      FUZZ_CHECK(message.size() <= limit, "a message longer than the limit");
      r.messages.push_back(message);
    }
  }
  r.error = reader.error();
  return r;
}

// The protocol as the header states it: lines end in "\n", "\r\n" or "\r"; the lines before a
// line "end" joined with '\n' are a message; an unterminated last line is not a line yet.
std::vector<std::string> Model(std::string_view bytes) {
  std::vector<std::string> out;
  std::string body;
  bool has_line = false;
  std::size_t start = 0;
  for (std::size_t i = 0; i < bytes.size(); ++i) {
    if (bytes[i] != '\n' && bytes[i] != '\r') continue;
    const std::string_view line = bytes.substr(start, i - start);
    if (bytes[i] == '\r' && i + 1 < bytes.size() && bytes[i + 1] == '\n') ++i;
    start = i + 1;
    if (line == "end") {
      out.push_back(body);
      body.clear();
      has_line = false;
      continue;
    }
    if (has_line) body += '\n';
    body += line;
    has_line = true;
  }
  return out;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const unsigned char* data, std::size_t size) {
  if (size == 0) return 0;
  const std::size_t limit = 1 + data[0] % 64;  // small, so the limit is reached often
  const std::string_view bytes(reinterpret_cast<const char*>(data) + 1, size - 1);

  const Result whole = Read(bytes, limit, false);
  const Result pieces = Read(bytes, limit, true);
  FUZZ_CHECK(whole == pieces, "the result depends on how the input is chunked");

  const Result unlimited = Read(bytes, bytes.size() + 1, true);
  FUZZ_CHECK(unlimited.error == FrameError::kNone, "an error without reaching the limit");
  FUZZ_CHECK(unlimited.messages == Model(bytes), "the reader disagrees with the protocol's model");
  return 0;
}
