// sparse C++ component adapter — the two wire formats and the encoder seam between them.
//
// A host speaks one format to a component, both ways, for the whole connection:
//   JSON         Storm's own: one JSON document per message, each followed by a line `end`.
//   MessagePack  pystorm's and streamparse's MsgpackSerializer: one MessagePack map per message
//                (a bare array for task-id replies), back to back, no `end` line.
// The adapter needs no configuration: the first byte of the host's first message (the handshake,
// a map) tells which, and the component answers in the same format (FrameDecoder detects it,
// run.hpp hands it to Output).
//
// Messages are composed once, against the small encoder interface below (JsonEncoder and
// MsgpackEncoder implement it; Output picks one per message), so components and run loops never
// branch on the format:
//   begin_map(n) / end_map()      a map of n entries (n matters to MessagePack only)
//   begin_array(n) / end_array()
//   key(name)                     a map key known to need no escaping (ASCII, no '"' or '\\')
//   literal(text)                 a string value known to need no escaping
//   text(text)                    a string value; invalid UTF-8 becomes U+FFFD, never throws
//   integer(i), boolean(b)
//   value(json)                   any value; invalid UTF-8 in it throws json::type_error (316)
//   end_message()                 completes the message (JSON: the `end` line); encode_message
//                                 calls it. Until then the JSON encoder may hold back a few bytes.
#pragma once

#include <sparse/detail/msgpack.hpp>
#include <sparse/errors.hpp>
#include <sparse/json.hpp>

#include <charconv>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>

// The encoders' primitives are a few stores each: inlined, a message composes into straight-line
// code, as when its text was written by hand.
#if defined(__GNUC__) || defined(__clang__)
#define SPARSE_ENCODER_INLINE inline __attribute__((always_inline))
#else
#define SPARSE_ENCODER_INLINE inline
#endif

namespace sparse {
namespace detail {

enum class Wire : unsigned char {
  unknown,  // nothing but whitespace received yet
  json,
  msgpack
};

inline const char* wire_name(Wire wire) {
  switch (wire) {
    case Wire::json:
      return "JSON";
    case Wire::msgpack:
      return "MessagePack";
    case Wire::unknown:
      break;
  }
  return "unknown";
}

inline bool is_json_space(char c) {
  return c == ' ' || c == '\n' || c == '\r' || c == '\t';
}

/// Decides the host's format from the start of its first message (`size` bytes so far): `{`,
/// after optional whitespace, is JSON; a map type byte (0x80-0x8f, 0xde, 0xdf) as the very first
/// byte is MessagePack. Returns Wire::unknown while nothing but whitespace has arrived. Throws
/// ProtocolError, naming what arrived, for anything else.
inline Wire detect_wire(const char* data, std::size_t size) {
  for (std::size_t i = 0; i < size; ++i) {
    const char c = data[i];
    if (is_json_space(c)) continue;
    if (c == '{') return Wire::json;
    const auto byte = static_cast<unsigned char>(c);
    if (i == 0 && msgpack::is_map_type_byte(byte)) return Wire::msgpack;
    std::string shown;
    if (byte >= 0x20 && byte < 0x7f) shown = std::string(" '") + c + "'";
    std::string printable;
    for (std::size_t j = 0; j < size && j < 32; ++j) {
      const char d = data[j];
      printable += (d >= 0x20 && d < 0x7f) ? d : '.';
    }
    throw ProtocolError(
        "the host's first message starts with byte 0x" + msgpack::hex_excerpt(&c, 1) + shown +
        (i > 0 ? " after whitespace" : "") +
        ", which begins neither a JSON object ('{') nor a MessagePack map (0x80-0x8f, 0xde, "
        "0xdf): is the host speaking the multilang protocol? It sent: " +
        msgpack::hex_excerpt(data, size) + " \"" + printable + (size > 32 ? "...\"" : "\""));
  }
  return Wire::unknown;
}

/// Composes JSON text. Commas are placed by the encoder. Punctuation, keys and literals gather in
/// a small local buffer that goes to the output in one append before each value and at the end,
/// so a message costs a few appends, as when its text was written by hand.
class JsonEncoder {
 public:
  explicit JsonEncoder(std::string& out) : out_(out) {}
  JsonEncoder(const JsonEncoder&) = delete;
  JsonEncoder& operator=(const JsonEncoder&) = delete;

  SPARSE_ENCODER_INLINE void begin_map(std::size_t) { open('{'); }
  SPARSE_ENCODER_INLINE void end_map() { close('}'); }
  SPARSE_ENCODER_INLINE void begin_array(std::size_t) { open('['); }
  SPARSE_ENCODER_INLINE void end_array() { close(']'); }
  SPARSE_ENCODER_INLINE void key(std::string_view name) {
    if (name.size() > kPending / 2) {  // not a short constant after all
      before_value();
      out_ += '"';
      out_.append(name.data(), name.size());
      out_.append("\":", 2);
      comma_ = false;
      return;
    }
    char* p = room(name.size() + 4);
    if (comma_) *p++ = ',';
    *p++ = '"';
    std::memcpy(p, name.data(), name.size());
    p += name.size();
    *p++ = '"';
    *p++ = ':';
    used_ = static_cast<std::size_t>(p - pending_);
    comma_ = false;
  }
  SPARSE_ENCODER_INLINE void literal(std::string_view text) {
    if (text.size() > kPending / 2) {  // not a short constant after all
      before_value();
      out_ += '"';
      out_.append(text.data(), text.size());
      out_ += '"';
      comma_ = true;
      return;
    }
    char* p = room(text.size() + 3);
    if (comma_) *p++ = ',';
    *p++ = '"';
    std::memcpy(p, text.data(), text.size());
    p += text.size();
    *p++ = '"';
    used_ = static_cast<std::size_t>(p - pending_);
    comma_ = true;
  }
  SPARSE_ENCODER_INLINE void text(std::string_view text) {
    before_value();
    append_json_string(out_, text);
    comma_ = true;
  }
  SPARSE_ENCODER_INLINE void integer(std::int64_t value) {
    char* p = room(24);
    if (comma_) *p++ = ',';
    p = std::to_chars(p, pending_ + kPending, value).ptr;
    used_ = static_cast<std::size_t>(p - pending_);
    comma_ = true;
  }
  SPARSE_ENCODER_INLINE void boolean(bool value) {
    const std::string_view word = value ? std::string_view("true") : std::string_view("false");
    char* p = room(word.size() + 1);
    if (comma_) *p++ = ',';
    std::memcpy(p, word.data(), word.size());
    used_ = static_cast<std::size_t>(p + word.size() - pending_);
    comma_ = true;
  }
  SPARSE_ENCODER_INLINE void value(const json& value) {
    before_value();
    append_json(out_, value);
    comma_ = true;
  }
  /// The line that ends every JSON message; writes out what is gathered.
  SPARSE_ENCODER_INLINE void end_message() {
    char* p = room(5);
    std::memcpy(p, "\nend\n", 5);
    used_ += 5;
    flush();
  }

 private:
  static constexpr std::size_t kPending = 128;

  // Space for `bytes` more gathered bytes (at most kPending / 2 + 4): writes out what is gathered
  // if they do not fit. The caller advances used_.
  SPARSE_ENCODER_INLINE char* room(std::size_t bytes) {
    if (used_ + bytes > kPending) flush();
    return pending_ + used_;
  }
  SPARSE_ENCODER_INLINE void flush() {
    out_.append(pending_, used_);
    used_ = 0;
  }
  SPARSE_ENCODER_INLINE void open(char bracket) {
    char* p = room(2);
    if (comma_) *p++ = ',';
    *p++ = bracket;
    used_ = static_cast<std::size_t>(p - pending_);
    comma_ = false;
  }
  SPARSE_ENCODER_INLINE void close(char bracket) {
    *room(1) = bracket;
    ++used_;
    comma_ = true;
  }
  // A value is appended to the output directly: what is gathered goes first.
  SPARSE_ENCODER_INLINE void before_value() {
    if (comma_) {
      *room(1) = ',';
      ++used_;
    }
    flush();
  }

  std::string& out_;
  bool comma_ = false;  // a value precedes: the next key or element needs a comma
  std::size_t used_ = 0;
  char pending_[kPending];
};

/// Composes MessagePack bytes.
class MsgpackEncoder {
 public:
  explicit MsgpackEncoder(std::string& out) : out_(out) {}

  SPARSE_ENCODER_INLINE void begin_map(std::size_t entries) {
    msgpack::append_map_head(out_, entries);
  }
  SPARSE_ENCODER_INLINE void end_map() {}
  SPARSE_ENCODER_INLINE void begin_array(std::size_t elements) {
    msgpack::append_array_head(out_, elements);
  }
  SPARSE_ENCODER_INLINE void end_array() {}
  SPARSE_ENCODER_INLINE void key(std::string_view name) { msgpack::append_str(out_, name); }
  SPARSE_ENCODER_INLINE void literal(std::string_view text) { msgpack::append_str(out_, text); }
  SPARSE_ENCODER_INLINE void text(std::string_view text) { msgpack::append_text(out_, text); }
  SPARSE_ENCODER_INLINE void integer(std::int64_t value) { msgpack::append_int(out_, value); }
  SPARSE_ENCODER_INLINE void boolean(bool value) { msgpack::append_bool(out_, value); }
  SPARSE_ENCODER_INLINE void value(const json& value) { msgpack::append_value(out_, value); }
  /// MessagePack values delimit themselves.
  SPARSE_ENCODER_INLINE void end_message() {}

 private:
  std::string& out_;
};

/// Appends one message to `out` in `wire` (JSON unless MessagePack): `compose(encoder)` writes it
/// through the encoder interface above.
template <class Compose>
void encode_message(Wire wire, std::string& out, Compose& compose) {
  if (wire == Wire::msgpack) {
    MsgpackEncoder encoder(out);
    compose(encoder);
    encoder.end_message();
  } else {
    JsonEncoder encoder(out);
    compose(encoder);
    encoder.end_message();
  }
}

}  // namespace detail
}  // namespace sparse
