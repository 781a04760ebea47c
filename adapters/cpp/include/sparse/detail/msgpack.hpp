// sparse C++ component adapter — MessagePack, the wire format of pystorm's and streamparse's
// MsgpackSerializer: every message is one self-delimiting MessagePack value, written back to back.
//
//   Framer     finds where a value ends in a byte stream; resumable across reads, allocates only
//              a small stack of open containers, never trusts a length without a bound.
//   Reader     builds nlohmann::json values from one complete value, with building blocks for
//              parsers of a known envelope (the bolt's tuple messages).
//   append_*   writes values.
//
// Values map to what a JSON host would have sent: nil null, booleans, non-negative integers
// number_unsigned and negative ones number_integer (as the JSON reader makes them), float 32/64
// number_float, str string (must be valid UTF-8), bin binary, array array, map object (keys must
// be str; a repeated key keeps the last value). Extension types are refused. Nesting is limited
// to kMaxDepth; a length or element count is checked against the bytes that can still follow
// before anything is reserved, so hostile input is a ProtocolError, never a crash or an unbounded
// allocation. Writing: the smallest encoding of each integer, floats as float64 (non-finite ones
// as nil, as the JSON writer writes null), strings and keys must be valid UTF-8 (else
// json::type_error 316, as from the JSON writer).
//
// Why not json::from_msgpack / to_msgpack: they go through std::map-backed envelope objects, have
// no depth limit (a deep enough input overflows the stack), and cost several times as much per
// tuple message (bench/adapter_throughput.cpp, mode `codec`).
#pragma once

#include <sparse/detail/utf8.hpp>
#include <sparse/errors.hpp>
#include <sparse/json.hpp>

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace sparse {
namespace detail {
namespace msgpack {

/// Deepest nesting accepted (arrays and maps), the same as the JSON reader's.
constexpr int kMaxDepth = 512;

// --- UTF-8 -----------------------------------------------------------------------------------

/// Offset of the first byte that is not part of well-formed UTF-8, or `size` if all of it is.
inline std::size_t invalid_utf8_offset(const char* data, std::size_t size) {
  const auto* p = reinterpret_cast<const unsigned char*>(data);
  std::size_t i = 0;
  while (i < size) {
    while (size - i >= 8) {  // ASCII runs eight bytes at a time
      std::uint64_t word;
      std::memcpy(&word, p + i, 8);
      if (word & 0x8080808080808080u) break;
      i += 8;
    }
    while (i < size && p[i] < 0x80) ++i;
    if (i == size) break;
    const std::size_t length = utf8_sequence_length(p + i, size - i);
    if (length == 0) return i;
    i += length;
  }
  return size;
}

inline bool is_valid_utf8(std::string_view text) {
  return invalid_utf8_offset(text.data(), text.size()) == text.size();
}

// --- heads -----------------------------------------------------------------------------------

enum class Kind : unsigned char {
  nil,
  boolean,
  unsigned_int,  // value in Head::arg
  signed_int,    // two's complement value in Head::arg
  float32,       // bits in Head::arg
  float64,       // bits in Head::arg
  str,           // payload bytes in Head::arg
  bin,           // payload bytes in Head::arg
  ext,           // payload bytes in Head::arg (the type byte is part of the head)
  array,         // elements in Head::arg
  map,           // key/value pairs in Head::arg
  never_used
};

/// The type byte and what follows it up to the payload.
struct Head {
  Kind kind;
  unsigned char size;  // bytes of the head
  std::uint64_t arg;
};

inline std::uint64_t load_big_endian(const unsigned char* p, int bytes) {
  std::uint64_t value = 0;
  for (int i = 0; i < bytes; ++i) value = (value << 8) | p[i];
  return value;
}

/// Decodes the head at `p` (`available` >= 1 bytes there). False if it is not complete yet.
inline bool read_head(const unsigned char* p, std::size_t available, Head& head) {
  const unsigned char type = p[0];
  auto sized = [&](Kind kind, int length_bytes, int extra = 0) {
    head.kind = kind;
    head.size = static_cast<unsigned char>(1 + length_bytes + extra);
    if (available < head.size) return false;
    head.arg = load_big_endian(p + 1, length_bytes);
    return true;
  };
  auto immediate = [&](Kind kind, std::uint64_t arg) {
    head.kind = kind;
    head.size = 1;
    head.arg = arg;
    return true;
  };
  auto sign_extended = [&](int bytes) {
    if (!sized(Kind::signed_int, bytes)) return false;
    std::int64_t value = static_cast<std::int64_t>(head.arg);
    if (bytes == 1) value = static_cast<std::int8_t>(head.arg);
    if (bytes == 2) value = static_cast<std::int16_t>(head.arg);
    if (bytes == 4) value = static_cast<std::int32_t>(head.arg);
    head.arg = static_cast<std::uint64_t>(value);
    return true;
  };
  if (type <= 0x7f) return immediate(Kind::unsigned_int, type);
  if (type <= 0x8f) return immediate(Kind::map, type & 0x0fu);
  if (type <= 0x9f) return immediate(Kind::array, type & 0x0fu);
  if (type <= 0xbf) return immediate(Kind::str, type & 0x1fu);
  if (type >= 0xe0) {
    return immediate(
        Kind::signed_int,
        static_cast<std::uint64_t>(static_cast<std::int64_t>(static_cast<std::int8_t>(type))));
  }
  switch (type) {
    case 0xc0:
      return immediate(Kind::nil, 0);
    case 0xc2:
      return immediate(Kind::boolean, 0);
    case 0xc3:
      return immediate(Kind::boolean, 1);
    case 0xc4:
      return sized(Kind::bin, 1);
    case 0xc5:
      return sized(Kind::bin, 2);
    case 0xc6:
      return sized(Kind::bin, 4);
    case 0xc7:
      return sized(Kind::ext, 1, 1);
    case 0xc8:
      return sized(Kind::ext, 2, 1);
    case 0xc9:
      return sized(Kind::ext, 4, 1);
    case 0xca:
      return sized(Kind::float32, 4);
    case 0xcb:
      return sized(Kind::float64, 8);
    case 0xcc:
      return sized(Kind::unsigned_int, 1);
    case 0xcd:
      return sized(Kind::unsigned_int, 2);
    case 0xce:
      return sized(Kind::unsigned_int, 4);
    case 0xcf:
      return sized(Kind::unsigned_int, 8);
    case 0xd0:
      return sign_extended(1);
    case 0xd1:
      return sign_extended(2);
    case 0xd2:
      return sign_extended(4);
    case 0xd3:
      return sign_extended(8);
    case 0xd4:
    case 0xd5:
    case 0xd6:
    case 0xd7:
    case 0xd8:  // fixext 1, 2, 4, 8, 16: type byte, then the data
      head.kind = Kind::ext;
      head.size = 2;
      head.arg = std::uint64_t{1} << (type - 0xd4);
      return available >= 2;
    case 0xd9:
      return sized(Kind::str, 1);
    case 0xda:
      return sized(Kind::str, 2);
    case 0xdb:
      return sized(Kind::str, 4);
    case 0xdc:
      return sized(Kind::array, 2);
    case 0xdd:
      return sized(Kind::array, 4);
    case 0xde:
      return sized(Kind::map, 2);
    case 0xdf:
      return sized(Kind::map, 4);
    default:  // 0xc1
      return immediate(Kind::never_used, 0);
  }
}

/// True for the first byte of a map: what a msgpack host's first message (the handshake) starts
/// with.
inline bool is_map_type_byte(unsigned char type) {
  return (type >= 0x80 && type <= 0x8f) || type == 0xde || type == 0xdf;
}

/// "81 a7 63 6f ..." — the first bytes of a message, for error reports.
inline std::string hex_excerpt(const char* data, std::size_t size, std::size_t max_bytes = 32) {
  static const char digits[] = "0123456789abcdef";
  std::string text;
  for (std::size_t i = 0; i < size && i < max_bytes; ++i) {
    const auto c = static_cast<unsigned char>(data[i]);
    if (i > 0) text += ' ';
    text += digits[c >> 4];
    text += digits[c & 0x0f];
  }
  if (size > max_bytes) text += " ...";
  return text;
}

// --- framing ---------------------------------------------------------------------------------

/// Finds the end of one MessagePack value in a growing buffer without building it. Resumable: it
/// keeps its place between calls, so a large message arriving in many reads is scanned once.
class Framer {
 public:
  /// Scans from `pos` (where the previous call stopped, or the start of a value) towards `end`
  /// in `data`. Returns true with `pos` just past the value that started at `begin`, or false
  /// with `pos` at the first element not yet complete. Throws ProtocolError if the value cannot
  /// be delimited (byte 0xc1, nesting deeper than kMaxDepth) or would exceed `max_bytes`.
  bool advance(const char* data, std::size_t& pos, std::size_t end, std::size_t begin,
               std::size_t max_bytes) {
    const auto* bytes = reinterpret_cast<const unsigned char*>(data);
    while (pos < end) {
      const unsigned char type = bytes[pos];
      std::uint64_t elements = 0;
      // Fast path for the one-byte heads most of a message is made of. Their sizes are too small
      // to matter to the limit one by one; write_area() bounds what accumulates.
      if (type < 0x80 || type >= 0xe0 || type == 0xc0 || type == 0xc2 || type == 0xc3) {
        ++pos;  // fixint, nil, boolean: a whole element
      } else if (type >= 0xa0 && type <= 0xbf) {
        const std::size_t size = 1u + (type & 0x1fu);  // fixstr
        if (end - pos < size) return false;
        pos += size;
      } else if (type <= 0x9f) {  // fixmap, fixarray
        check_depth(data, begin, end, pos);
        elements = type <= 0x8f ? 2u * (type & 0x0fu) : (type & 0x0fu);
        ++pos;
      } else if (!advance_head(data, pos, end, begin, max_bytes, elements)) {
        return false;
      }
      if (elements > 0) {
        open_.push_back(elements);
        outstanding_ += elements;
        continue;
      }
      // An element is complete, and with it every container whose last element it was.
      for (;;) {
        if (open_.empty()) return true;
        --outstanding_;
        if (--open_.back() > 0) break;
        open_.pop_back();
      }
    }
    return false;
  }

  /// True while a value is partly scanned (its head or an element is still incomplete).
  bool in_value() const { return !open_.empty(); }

 private:
  // Any other head: moves `pos` past it and its payload, or returns false if they are not all
  // there yet. Declared sizes are checked against the limit as soon as the head is complete.
  bool advance_head(const char* data, std::size_t& pos, std::size_t end, std::size_t begin,
                    std::size_t max_bytes, std::uint64_t& elements) {
    Head head;
    if (!read_head(reinterpret_cast<const unsigned char*>(data) + pos, end - pos, head)) {
      return false;
    }
    std::uint64_t payload = 0;
    switch (head.kind) {
      case Kind::str:
      case Kind::bin:
      case Kind::ext:
        payload = head.arg;
        break;
      case Kind::array:
        check_depth(data, begin, end, pos);
        elements = head.arg;
        break;
      case Kind::map:
        check_depth(data, begin, end, pos);
        elements = 2 * head.arg;
        break;
      case Kind::never_used:
        fail(data, begin, end, pos, "byte 0xc1, which MessagePack never uses");
      default:
        break;
    }
    // Every element still expected takes at least one byte.
    const std::uint64_t others = open_.empty() ? 0 : outstanding_ - 1;
    const std::uint64_t least = (pos - begin) + head.size + payload + elements + others;
    if (payload > max_bytes || elements > max_bytes || least > max_bytes) {
      throw ProtocolError("a MessagePack message from the host is larger than the limit of " +
                          std::to_string(max_bytes) + " bytes: at byte " +
                          std::to_string(pos - begin) + " it declares " +
                          std::to_string(payload ? payload : elements) +
                          (payload ? " bytes" : " elements") + " (starts with " +
                          hex_excerpt(data + begin, end - begin, 16) + ")");
    }
    if (payload > end - pos - head.size) return false;  // wait for the whole payload
    pos += head.size + static_cast<std::size_t>(payload);
    return true;
  }

  void check_depth(const char* data, std::size_t begin, std::size_t end, std::size_t pos) const {
    if (open_.size() >= static_cast<std::size_t>(kMaxDepth)) {
      fail(data, begin, end, pos, "nesting deeper than " + std::to_string(kMaxDepth));
    }
  }

  [[noreturn]] static void fail(const char* data, std::size_t begin, std::size_t end,
                                std::size_t pos, const std::string& what) {
    throw ProtocolError("the host sent bytes that are not MessagePack (" + what + " at byte " +
                        std::to_string(pos - begin) +
                        " of a message): " + hex_excerpt(data + begin, end - begin));
  }

  std::vector<std::uint64_t> open_;  // elements still expected by each open array or map
  std::uint64_t outstanding_ = 0;    // their sum
};

// --- reading ---------------------------------------------------------------------------------

/// Builds json values from one complete MessagePack value (bounds-checked all the same).
class Reader {
 public:
  explicit Reader(std::string_view bytes)
      : begin_(reinterpret_cast<const unsigned char*>(bytes.data())),
        p_(begin_),
        end_(begin_ + bytes.size()) {}

  /// The whole input as one value. Throws ProtocolError.
  json parse_document() {
    json value = read_value(0);
    expect_end();
    return value;
  }

  // Building blocks for parsers of a known envelope (see parse_msgpack_bolt_message).

  /// The kind of the next value, without consuming it.
  Kind peek_kind() {
    const Head head = peek_head();
    return head.kind;
  }
  /// Reads a map head; the number of key/value pairs that follow.
  std::uint64_t read_map_head() {
    const Head head = take_head();
    if (head.kind != Kind::map) fail("expected a map");
    check_elements(head.arg, 2);
    return head.arg;
  }
  /// Reads a str key and returns a view of its bytes (not checked for UTF-8: compare it only).
  std::string_view read_key() {
    const Head head = take_head();
    if (head.kind != Kind::str) fail("a map key that is not a string");
    return take_payload(head.arg);
  }
  /// Reads a str value into `out` (false, nothing consumed, if the next value is no str).
  bool read_string_if_any(std::string& out) {
    const Head head = peek_head();
    if (head.kind != Kind::str) return false;
    p_ += head.size;
    const std::string_view text = take_payload(head.arg);
    check_utf8(text);
    out.assign(text.data(), text.size());
    return true;
  }
  /// Reads a value nested `depth` levels deep (the envelope's members are at depth 1).
  json read_value(int depth) {
    const Head head = take_head();
    switch (head.kind) {
      case Kind::nil:
        return json(nullptr);
      case Kind::boolean:
        return json(head.arg != 0);
      case Kind::unsigned_int:
        return json(head.arg);
      case Kind::signed_int: {
        const auto value = static_cast<std::int64_t>(head.arg);
        if (value >= 0) return json(static_cast<std::uint64_t>(value));
        return json(value);
      }
      case Kind::float32: {
        const auto bits = static_cast<std::uint32_t>(head.arg);
        float value;
        std::memcpy(&value, &bits, sizeof value);
        return json(static_cast<double>(value));
      }
      case Kind::float64: {
        double value;
        std::memcpy(&value, &head.arg, sizeof value);
        return json(value);
      }
      case Kind::str: {
        const std::string_view text = take_payload(head.arg);
        check_utf8(text);
        return json(std::string(text));
      }
      case Kind::bin: {
        const std::string_view data = take_payload(head.arg);
        const auto* first = reinterpret_cast<const std::uint8_t*>(data.data());
        return json::binary(std::vector<std::uint8_t>(first, first + data.size()));
      }
      case Kind::array: {
        check_depth(depth);
        check_elements(head.arg, 1);
        json value(json::value_t::array);
        auto& elements = value.get_ref<json::array_t&>();
        elements.reserve(static_cast<std::size_t>(head.arg));
        for (std::uint64_t i = 0; i < head.arg; ++i) elements.push_back(read_value(depth + 1));
        return value;
      }
      case Kind::map: {
        check_depth(depth);
        check_elements(head.arg, 2);
        json value(json::value_t::object);
        auto& members = value.get_ref<json::object_t&>();
        for (std::uint64_t i = 0; i < head.arg; ++i) {
          const std::string_view key = read_key();
          check_utf8(key);
          members[std::string(key)] = read_value(depth + 1);
        }
        return value;
      }
      case Kind::ext:
        p_ -= head.size;
        fail("extension type " +
             std::to_string(static_cast<int>(static_cast<std::int8_t>(p_[head.size - 1]))) +
             ", which has no JSON equivalent");
      case Kind::never_used:
        p_ -= head.size;
        fail("byte 0xc1, which MessagePack never uses");
    }
    fail("unknown type");
  }
  /// Skips a value nested `depth` levels deep without building it.
  void skip_value(int depth) {
    const Head head = take_head();
    switch (head.kind) {
      case Kind::str:
      case Kind::bin:
        take_payload(head.arg);
        return;
      case Kind::array:
      case Kind::map: {
        check_depth(depth);
        const std::uint64_t per = head.kind == Kind::map ? 2 : 1;
        check_elements(head.arg, per);
        for (std::uint64_t i = 0; i < head.arg * per; ++i) skip_value(depth + 1);
        return;
      }
      case Kind::ext:
      case Kind::never_used:
        p_ -= head.size;
        read_value(depth);  // reports it
        return;
      default:
        return;
    }
  }
  void expect_end() {
    if (p_ != end_) fail("more bytes after the value");
  }

 private:
  [[noreturn]] void fail(const std::string& what) const {
    throw ProtocolError("the host sent a MessagePack message the adapter cannot read (" + what +
                        " at byte " + std::to_string(p_ - begin_) + "): " +
                        hex_excerpt(reinterpret_cast<const char*>(begin_),
                                    static_cast<std::size_t>(end_ - begin_)));
  }

  std::size_t remaining() const { return static_cast<std::size_t>(end_ - p_); }

  Head peek_head() {
    if (p_ == end_) fail("unexpected end of the message");
    Head head;
    if (!read_head(p_, remaining(), head)) fail("truncated value");
    return head;
  }
  Head take_head() {
    const Head head = peek_head();
    p_ += head.size;
    return head;
  }
  std::string_view take_payload(std::uint64_t size) {
    if (size > remaining()) fail("a length of " + std::to_string(size) + " beyond the message");
    const std::string_view view(reinterpret_cast<const char*>(p_), static_cast<std::size_t>(size));
    p_ += size;
    return view;
  }
  // Each element takes at least one byte: a count the rest of the message cannot hold is a lie,
  // refused before anything is reserved.
  void check_elements(std::uint64_t count, std::uint64_t per_element) {
    if (count > remaining() / per_element) {
      fail(std::to_string(count) + (per_element == 2 ? " map entries" : " array elements") +
           " declared, more than the " + std::to_string(remaining()) + " bytes left can hold");
    }
  }
  void check_depth(int depth) const {
    if (depth >= kMaxDepth) fail("nesting deeper than " + std::to_string(kMaxDepth));
  }
  void check_utf8(std::string_view text) {
    const std::size_t bad = invalid_utf8_offset(text.data(), text.size());
    if (bad != text.size()) {
      p_ = reinterpret_cast<const unsigned char*>(text.data() + bad);
      fail("invalid UTF-8 in a string");
    }
  }

  const unsigned char* begin_;
  const unsigned char* p_;
  const unsigned char* end_;
};

// --- writing ---------------------------------------------------------------------------------

/// Appends `type` and the `bytes` low-order bytes of `value`, big-endian.
inline void append_typed(std::string& out, unsigned char type, std::uint64_t value, int bytes) {
  char buffer[9];
  buffer[0] = static_cast<char>(type);
  for (int i = 0; i < bytes; ++i) {
    buffer[1 + i] = static_cast<char>((value >> (8 * (bytes - 1 - i))) & 0xff);
  }
  out.append(buffer, static_cast<std::size_t>(1 + bytes));
}

inline void append_nil(std::string& out) {
  out += '\xc0';
}

inline void append_bool(std::string& out, bool value) {
  out += value ? '\xc3' : '\xc2';
}

inline void append_uint(std::string& out, std::uint64_t value) {
  if (value < 0x80) {
    out += static_cast<char>(value);
  } else if (value <= 0xff) {
    append_typed(out, 0xcc, value, 1);
  } else if (value <= 0xffff) {
    append_typed(out, 0xcd, value, 2);
  } else if (value <= 0xffffffffu) {
    append_typed(out, 0xce, value, 4);
  } else {
    append_typed(out, 0xcf, value, 8);
  }
}

inline void append_int(std::string& out, std::int64_t value) {
  if (value >= 0) {
    append_uint(out, static_cast<std::uint64_t>(value));
    return;
  }
  const auto bits = static_cast<std::uint64_t>(value);
  if (value >= -32) {
    out += static_cast<char>(bits & 0xff);
  } else if (value >= INT8_MIN) {
    append_typed(out, 0xd0, bits, 1);
  } else if (value >= INT16_MIN) {
    append_typed(out, 0xd1, bits, 2);
  } else if (value >= INT32_MIN) {
    append_typed(out, 0xd2, bits, 4);
  } else {
    append_typed(out, 0xd3, bits, 8);
  }
}

inline void append_double(std::string& out, double value) {
  if (!std::isfinite(value)) {
    append_nil(out);
    return;
  }
  std::uint64_t bits;
  std::memcpy(&bits, &value, sizeof bits);
  append_typed(out, 0xcb, bits, 8);
}

inline void check_length(std::size_t size, const char* what) {
  if (static_cast<std::uint64_t>(size) > 0xffffffffu) {
    throw std::length_error(std::string("sparse: ") + what + " of " + std::to_string(size) +
                            " is too large for MessagePack (at most 2^32-1)");
  }
}

inline void append_str_head(std::string& out, std::size_t size) {
  if (size < 32) {
    out += static_cast<char>(0xa0 | size);
  } else if (size <= 0xff) {
    append_typed(out, 0xd9, size, 1);
  } else if (size <= 0xffff) {
    append_typed(out, 0xda, size, 2);
  } else {
    check_length(size, "a string");
    append_typed(out, 0xdb, size, 4);
  }
}

/// Appends `text` as a str as it is (the caller knows it is UTF-8).
inline void append_str(std::string& out, std::string_view text) {
  append_str_head(out, text.size());
  out.append(text.data(), text.size());
}

inline void append_array_head(std::string& out, std::size_t size) {
  if (size < 16) {
    out += static_cast<char>(0x90 | size);
  } else if (size <= 0xffff) {
    append_typed(out, 0xdc, size, 2);
  } else {
    check_length(size, "an array");
    append_typed(out, 0xdd, size, 4);
  }
}

inline void append_map_head(std::string& out, std::size_t size) {
  if (size < 16) {
    out += static_cast<char>(0x80 | size);
  } else if (size <= 0xffff) {
    append_typed(out, 0xde, size, 2);
  } else {
    check_length(size, "a map");
    append_typed(out, 0xdf, size, 4);
  }
}

inline void append_bin(std::string& out, const std::vector<std::uint8_t>& data) {
  if (data.size() <= 0xff) {
    append_typed(out, 0xc4, data.size(), 1);
  } else if (data.size() <= 0xffff) {
    append_typed(out, 0xc5, data.size(), 2);
  } else {
    check_length(data.size(), "a binary");
    append_typed(out, 0xc6, data.size(), 4);
  }
  out.append(reinterpret_cast<const char*>(data.data()), data.size());
}

/// Throws the json::type_error (316) nlohmann throws for invalid UTF-8 in `text`.
[[noreturn]] inline void throw_invalid_utf8(const std::string& text) {
  (void)json(text).dump();  // throws for invalid UTF-8
  throw std::logic_error("sparse: invalid UTF-8 that nlohmann::json accepted");
}

/// Appends `text` as a str; invalid UTF-8 throws json::type_error (316).
inline void append_str_strict(std::string& out, const std::string& text) {
  if (!is_valid_utf8(text)) throw_invalid_utf8(text);
  append_str(out, text);
}

/// Appends `text` as a str, invalid UTF-8 replaced by U+FFFD: never throws on bad bytes.
inline void append_text(std::string& out, std::string_view text) {
  std::size_t bad = invalid_utf8_offset(text.data(), text.size());
  if (bad == text.size()) {
    append_str(out, text);
    return;
  }
  std::string clean(text.substr(0, bad));
  const auto* p = reinterpret_cast<const unsigned char*>(text.data());
  for (std::size_t i = bad; i < text.size();) {
    const std::size_t length = p[i] < 0x80 ? 1 : utf8_sequence_length(p + i, text.size() - i);
    if (length == 0) {
      clean += "\xEF\xBF\xBD";
      ++i;
    } else {
      clean.append(text.data() + i, length);
      i += length;
    }
  }
  append_str(out, clean);
}

/// Appends `value`. Strings and keys must be valid UTF-8: invalid UTF-8 throws json::type_error
/// (316), and the caller discards the partial message (Output::send does).
inline void append_value(std::string& out, const json& value) {
  switch (value.type()) {
    case json::value_t::null:
    case json::value_t::discarded:
      append_nil(out);
      return;
    case json::value_t::boolean:
      append_bool(out, value.get<bool>());
      return;
    case json::value_t::number_integer:
      append_int(out, value.get<std::int64_t>());
      return;
    case json::value_t::number_unsigned:
      append_uint(out, value.get<std::uint64_t>());
      return;
    case json::value_t::number_float:
      append_double(out, value.get<double>());
      return;
    case json::value_t::string:
      append_str_strict(out, value.get_ref<const std::string&>());
      return;
    case json::value_t::binary:
      append_bin(out, value.get_binary());
      return;
    case json::value_t::array: {
      const auto& elements = value.get_ref<const json::array_t&>();
      append_array_head(out, elements.size());
      for (const json& element : elements) append_value(out, element);
      return;
    }
    case json::value_t::object: {
      const auto& members = value.get_ref<const json::object_t&>();
      append_map_head(out, members.size());
      for (const auto& member : members) {
        append_str_strict(out, member.first);
        append_value(out, member.second);
      }
      return;
    }
  }
}

}  // namespace msgpack
}  // namespace detail
}  // namespace sparse
