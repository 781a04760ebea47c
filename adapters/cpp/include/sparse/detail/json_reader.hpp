// sparse C++ component adapter — a strict JSON (RFC 8259) reader that builds nlohmann::json
// values directly.
//
// Why not json::parse: on the protocol's small messages nlohmann's character-at-a-time lexer
// and std::map-backed objects cost ~4.7 us per 90-byte tuple message, about 70% of a bolt's
// per-tuple time (bench/adapter_throughput.cpp). This reader copies runs of plain characters at
// once and lets the bolt's input path fill a Tuple without building the envelope object.
//
// It accepts what nlohmann::json::parse accepts and produces equal values (non-negative
// integers as number_unsigned, negative as number_integer, integers beyond 64 bits and numbers
// with a fraction or exponent as number_float, numbers beyond a double refused; a repeated object
// key keeps the last value; strings must be valid UTF-8, lone surrogate escapes are refused).
// Two deliberate differences: a NUL byte is an error (nlohmann stops reading there, ignoring what
// follows), and nesting is limited to kMaxDepth. tests/adapters_cpp/json_reader_test.cpp holds it
// to this with a corpus and a differential fuzz.
#pragma once

#include <sparse/detail/utf8.hpp>
#include <sparse/errors.hpp>
#include <sparse/json.hpp>

#include <clocale>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <string>
#include <string_view>
#include <utility>

namespace sparse {
namespace detail {

class JsonReader {
 public:
  /// Deepest nesting accepted (arrays and objects); deeper input is refused, not a stack overflow.
  static constexpr int kMaxDepth = 512;

  explicit JsonReader(std::string_view text)
      : begin_(text.data()), p_(text.data()), end_(text.data() + text.size()) {
    if (text.size() >= 3 && std::memcmp(p_, "\xEF\xBB\xBF", 3) == 0) p_ += 3;  // a UTF-8 BOM
  }

  /// Parses the whole text as one JSON value. Throws ProtocolError.
  json parse_document() {
    json value = parse_value(0);
    expect_end();
    return value;
  }

  // Building blocks for parsers of a known envelope (see parse_bolt_message).

  /// Skips whitespace and returns the next character without consuming it (0 at the end).
  char peek() {
    skip_whitespace();
    return p_ < end_ ? *p_ : '\0';
  }
  void expect(char c) {
    if (peek() != c) fail(std::string("expected '") + c + "'");
    ++p_;
  }
  /// After '{' or a member: true if another member follows (consumes the ','), false at '}'.
  bool next_member(bool first) {
    const char c = peek();
    if (c == '}') {
      ++p_;
      return false;
    }
    if (!first) {
      if (c != ',') fail("expected ',' or '}' in an object");
      ++p_;
    }
    return true;
  }
  /// Reads `"key":` into `key`.
  void read_key(std::string& key) {
    if (peek() != '"') fail("expected a string as object key");
    ++p_;
    key.clear();
    read_string_body(key);
    expect(':');
  }
  /// Reads a string value into `out` (false, nothing consumed, if the next value is no string).
  bool read_string_if_any(std::string& out) {
    if (peek() != '"') return false;
    ++p_;
    out.clear();
    read_string_body(out);
    return true;
  }
  json read_value() { return parse_value(1); }
  void expect_end() {
    skip_whitespace();
    if (p_ != end_) fail("unexpected text after the JSON value");
  }

 private:
  [[noreturn]] void fail(const std::string& what) const {
    throw ProtocolError("the host sent a message that is not valid JSON (" + what + " at byte " +
                        std::to_string(p_ - begin_) + "): " + excerpt_text());
  }

  std::string excerpt_text() const {
    const std::size_t size = static_cast<std::size_t>(end_ - begin_);
    std::string text(begin_, size < 80 ? size : 80);
    if (size > 80) text += "...";
    return text;
  }

  void skip_whitespace() {
    while (p_ < end_ && (*p_ == ' ' || *p_ == '\n' || *p_ == '\r' || *p_ == '\t')) ++p_;
  }

  json parse_value(int depth) {
    switch (peek()) {
      case '{':
        return parse_object(depth + 1);
      case '[':
        return parse_array(depth + 1);
      case '"': {
        ++p_;
        json value(json::value_t::string);
        read_string_body(value.get_ref<std::string&>());
        return value;
      }
      case 't':
        return parse_literal("true", json(true));
      case 'f':
        return parse_literal("false", json(false));
      case 'n':
        return parse_literal("null", json(nullptr));
      case '\0':
        fail("unexpected end of input");
      default:
        return parse_number();
    }
  }

  json parse_literal(const char* word, json value) {
    const std::size_t size = std::strlen(word);
    if (static_cast<std::size_t>(end_ - p_) < size || std::memcmp(p_, word, size) != 0) {
      fail(std::string("invalid literal, expected ") + word);
    }
    p_ += size;
    return value;
  }

  json parse_object(int depth) {
    if (depth > kMaxDepth) fail("nesting deeper than " + std::to_string(kMaxDepth));
    ++p_;  // '{'
    json value(json::value_t::object);
    auto& members = value.get_ref<json::object_t&>();
    std::string key;
    for (bool first = true; next_member(first); first = false) {
      read_key(key);
      members[key] = parse_value(depth);
    }
    return value;
  }

  json parse_array(int depth) {
    if (depth > kMaxDepth) fail("nesting deeper than " + std::to_string(kMaxDepth));
    ++p_;  // '['
    json value(json::value_t::array);
    auto& elements = value.get_ref<json::array_t&>();
    if (peek() == ']') {
      ++p_;
      return value;
    }
    for (;;) {
      elements.push_back(parse_value(depth));
      const char c = peek();
      ++p_;
      if (c == ']') return value;
      if (c != ',') {
        --p_;
        fail("expected ',' or ']' in an array");
      }
    }
  }

  // After the opening quote: appends the decoded string to `out` and consumes the closing quote.
  void read_string_body(std::string& out) {
    for (;;) {
      const char* run = p_;
      while (p_ < end_) {
        const auto c = static_cast<unsigned char>(*p_);
        if (c == '"' || c == '\\' || c < 0x20 || c >= 0x80) break;
        ++p_;
      }
      out.append(run, static_cast<std::size_t>(p_ - run));
      if (p_ == end_) fail("unterminated string");
      const auto c = static_cast<unsigned char>(*p_);
      if (c == '"') {
        ++p_;
        return;
      }
      if (c == '\\') {
        read_escape(out);
      } else if (c >= 0x80) {
        read_utf8_sequence(out);
      } else {
        fail("control character in a string");
      }
    }
  }

  void read_escape(std::string& out) {
    ++p_;  // '\'
    if (p_ == end_) fail("unterminated string");
    const char c = *p_++;
    switch (c) {
      case '"':
      case '\\':
      case '/':
        out += c;
        return;
      case 'b':
        out += '\b';
        return;
      case 'f':
        out += '\f';
        return;
      case 'n':
        out += '\n';
        return;
      case 'r':
        out += '\r';
        return;
      case 't':
        out += '\t';
        return;
      case 'u':
        break;
      default:
        --p_;
        fail("invalid escape in a string");
    }
    std::uint32_t code = read_hex4();
    if (code >= 0xDC00 && code <= 0xDFFF) fail("lone low surrogate escape");
    if (code >= 0xD800 && code <= 0xDBFF) {
      if (end_ - p_ < 2 || p_[0] != '\\' || p_[1] != 'u') fail("high surrogate without a pair");
      p_ += 2;
      const std::uint32_t low = read_hex4();
      if (low < 0xDC00 || low > 0xDFFF) fail("high surrogate without a low surrogate");
      code = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00);
    }
    append_utf8(out, code);
  }

  std::uint32_t read_hex4() {
    if (end_ - p_ < 4) fail("truncated \\u escape");
    std::uint32_t code = 0;
    for (int i = 0; i < 4; ++i) {
      const char c = *p_++;
      code <<= 4;
      if (c >= '0' && c <= '9') {
        code |= static_cast<std::uint32_t>(c - '0');
      } else if (c >= 'a' && c <= 'f') {
        code |= static_cast<std::uint32_t>(c - 'a' + 10);
      } else if (c >= 'A' && c <= 'F') {
        code |= static_cast<std::uint32_t>(c - 'A' + 10);
      } else {
        --p_;
        fail("invalid \\u escape");
      }
    }
    return code;
  }

  static void append_utf8(std::string& out, std::uint32_t code) {
    if (code < 0x80) {
      out += static_cast<char>(code);
    } else if (code < 0x800) {
      out += static_cast<char>(0xC0 | (code >> 6));
      out += static_cast<char>(0x80 | (code & 0x3F));
    } else if (code < 0x10000) {
      out += static_cast<char>(0xE0 | (code >> 12));
      out += static_cast<char>(0x80 | ((code >> 6) & 0x3F));
      out += static_cast<char>(0x80 | (code & 0x3F));
    } else {
      out += static_cast<char>(0xF0 | (code >> 18));
      out += static_cast<char>(0x80 | ((code >> 12) & 0x3F));
      out += static_cast<char>(0x80 | ((code >> 6) & 0x3F));
      out += static_cast<char>(0x80 | (code & 0x3F));
    }
  }

  // One well-formed UTF-8 sequence (RFC 3629: no overlongs, no surrogates, at most U+10FFFF).
  void read_utf8_sequence(std::string& out) {
    const std::size_t length = utf8_sequence_length(reinterpret_cast<const unsigned char*>(p_),
                                                    static_cast<std::size_t>(end_ - p_));
    if (length == 0) fail("invalid UTF-8 in a string");
    out.append(p_, length);
    p_ += static_cast<std::ptrdiff_t>(length);
  }

  json parse_number() {
    const char* start = p_;
    const bool negative = p_ < end_ && *p_ == '-';
    if (negative) ++p_;
    const char* digits = p_;
    if (p_ == end_ || *p_ < '0' || *p_ > '9') fail("invalid value");
    if (*p_ == '0') {
      ++p_;
    } else {
      while (p_ < end_ && *p_ >= '0' && *p_ <= '9') ++p_;
    }
    const char* digits_end = p_;
    bool integral = true;
    if (p_ < end_ && *p_ == '.') {
      integral = false;
      ++p_;
      if (p_ == end_ || *p_ < '0' || *p_ > '9') fail("a digit must follow the decimal point");
      while (p_ < end_ && *p_ >= '0' && *p_ <= '9') ++p_;
    }
    if (p_ < end_ && (*p_ == 'e' || *p_ == 'E')) {
      integral = false;
      ++p_;
      if (p_ < end_ && (*p_ == '+' || *p_ == '-')) ++p_;
      if (p_ == end_ || *p_ < '0' || *p_ > '9') fail("a digit must follow the exponent");
      while (p_ < end_ && *p_ >= '0' && *p_ <= '9') ++p_;
    }
    if (integral) {
      std::uint64_t magnitude = 0;
      bool overflow = false;
      for (const char* d = digits; d < digits_end; ++d) {
        const auto digit = static_cast<std::uint64_t>(*d - '0');
        if (magnitude > (std::numeric_limits<std::uint64_t>::max() - digit) / 10) {
          overflow = true;
          break;
        }
        magnitude = magnitude * 10 + digit;
      }
      if (!overflow && !negative) return json(magnitude);
      constexpr auto kMinMagnitude = std::uint64_t{1} << 63;  // |INT64_MIN|
      if (!overflow && magnitude <= kMinMagnitude) {
        if (magnitude == kMinMagnitude) return json(std::numeric_limits<std::int64_t>::min());
        return json(-static_cast<std::int64_t>(magnitude));
      }
    }
    const double value = to_double(start, p_);
    if (std::isinf(value)) {
      p_ = start;
      fail("number out of the range of a double");
    }
    return json(value);
  }

  // strtod honours the C locale's decimal point; nlohmann does the same substitution.
  static double to_double(const char* begin, const char* end) {
    std::string text(begin, end);
    const char point = *std::localeconv()->decimal_point;
    if (point != '.') {
      for (char& c : text) {
        if (c == '.') c = point;
      }
    }
    return std::strtod(text.c_str(), nullptr);
  }

  const char* begin_;
  const char* p_;
  const char* end_;
};

/// Parses one host message. Throws ProtocolError, with the position and an excerpt, if it is not
/// valid JSON.
inline json parse_message(std::string_view text) {
  return JsonReader(text).parse_document();
}

}  // namespace detail
}  // namespace sparse
