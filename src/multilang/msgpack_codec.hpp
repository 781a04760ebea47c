// MessagePack on the wire, JSON text inside: the runtime keeps every message and tuple as JSON
// text, so a component speaking MessagePack is transcoded at the pipe, both ways.
//
// Decoding uses msgpack-c's streaming unpacker with limits (nesting depth, element counts,
// string sizes), so hostile input is an error value, never a crash or an unbounded allocation.
// MessagePack values JSON cannot carry are errors: ext types, NaN and infinities. Strings and
// binaries both become JSON strings (their bytes must be UTF-8, which the message parser checks);
// map keys that are not strings become the JSON text of the key, quoted.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

namespace sparse::multilang {

// Deepest nesting of arrays and maps accepted in a message, in either encoding.
inline constexpr std::size_t kMaxNestingDepth = 512;

// Incremental reader of back-to-back MessagePack values. Not thread-safe.
class MsgpackReader {
 public:
  explicit MsgpackReader(std::size_t max_message_bytes = 64u << 20);
  ~MsgpackReader();
  MsgpackReader(const MsgpackReader&) = delete;
  MsgpackReader& operator=(const MsgpackReader&) = delete;

  void Append(std::string_view bytes);
  // The JSON text of the next complete value into `out` (replacing it); false if none is
  // complete yet or after an error (then error() says why, and nothing more is produced).
  bool NextInto(std::string& out);
  const std::optional<std::string>& error() const { return error_; }

 private:
  struct Impl;  // hides msgpack-c
  std::unique_ptr<Impl> impl_;
  std::size_t max_message_bytes_;
  std::size_t buffered_ = 0;  // bytes appended since the last complete value
  std::optional<std::string> error_;
};

// Appends the MessagePack encoding of a JSON text to `out`. Returns why not on invalid JSON
// (or JSON nested deeper than kMaxNestingDepth); `out` is then unchanged.
std::optional<std::string> AppendJsonAsMsgpack(std::string& out, std::string_view json);

// The pieces, for messages the runtime composes directly.
void PackMapHeader(std::string& out, std::uint32_t entries);
void PackArrayHeader(std::string& out, std::uint32_t elements);
void PackString(std::string& out, std::string_view s);
void PackInt(std::string& out, std::int64_t v);
void PackNil(std::string& out);

}  // namespace sparse::multilang
