// sparse C++ component adapter — JSON values and the text helpers the protocol writer uses.
//
// Tuple values, configuration and context are nlohmann::json values (`sparse::json`).
// The helpers below append JSON text to a caller-owned std::string so that a whole protocol
// message is composed in one buffer without intermediate strings.
#pragma once

#include <nlohmann/json.hpp>

#include <charconv>
#include <cstdint>
#include <string>
#include <string_view>
#include <system_error>
#include <type_traits>

namespace sparse {

using json = nlohmann::json;

namespace detail {

/// Appends `value` as compact JSON. Strings must be valid UTF-8: invalid UTF-8 throws
/// json::type_error (316), naming the offending byte, before anything is appended.
inline void append_json(std::string& out, const json& value) {
  if (value.is_string()) {
    // Fast path for the most common tuple value; falls through to nlohmann for escaping.
    const auto& s = value.get_ref<const std::string&>();
    bool plain = true;
    for (char ch : s) {
      const auto c = static_cast<unsigned char>(ch);
      if (c < 0x20 || c == '"' || c == '\\' || c >= 0x80) {
        plain = false;
        break;
      }
    }
    if (plain) {
      out += '"';
      out += s;
      out += '"';
      return;
    }
  }
  out += value.dump();
}

/// Appends `text` as a JSON string literal. Unlike append_json this never throws on bad UTF-8:
/// invalid bytes become U+FFFD. Used for log and error messages, where losing the report because
/// an exception message held a stray byte would be worse than a replacement character.
inline void append_json_string(std::string& out, std::string_view text) {
  for (char ch : text) {
    const auto c = static_cast<unsigned char>(ch);
    if (c < 0x20 || c == '"' || c == '\\' || c >= 0x80) {
      out += json(std::string(text)).dump(-1, ' ', false, json::error_handler_t::replace);
      return;
    }
  }
  out += '"';
  out.append(text.data(), text.size());
  out += '"';
}

/// Appends a plain decimal integer (no exponent, no fraction): what every JSON reader accepts.
template <class Int>
void append_int(std::string& out, Int value) {
  static_assert(std::is_integral<Int>::value, "append_int needs an integer");
  char digits[24];
  auto result = std::to_chars(digits, digits + sizeof digits, value);
  out.append(digits, static_cast<std::size_t>(result.ptr - digits));
}

/// A short, single-line rendering of a value for error messages.
inline std::string excerpt(const json& value, std::size_t max_chars = 60) {
  std::string text = value.dump(-1, ' ', false, json::error_handler_t::replace);
  if (text.size() > max_chars) {
    text.resize(max_chars);
    text += "...";
  }
  return text;
}

}  // namespace detail
}  // namespace sparse
