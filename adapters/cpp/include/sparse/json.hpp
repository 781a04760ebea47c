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

/// Appends a plain decimal integer (no exponent, no fraction): what every JSON reader accepts.
template <class Int>
void append_int(std::string& out, Int value) {
  static_assert(std::is_integral<Int>::value, "append_int needs an integer");
  char digits[24];
  auto result = std::to_chars(digits, digits + sizeof digits, value);
  out.append(digits, static_cast<std::size_t>(result.ptr - digits));
}

/// True if `text` can be written between quotes as it is: printable ASCII without '"' or '\\'.
inline bool is_plain_json_text(std::string_view text) {
  for (char ch : text) {
    const auto c = static_cast<unsigned char>(ch);
    if (c < 0x20 || c == '"' || c == '\\' || c >= 0x80) return false;
  }
  return true;
}

/// Appends `text` as a JSON string. Strict: invalid UTF-8 throws json::type_error (316).
inline void append_json_string_strict(std::string& out, const std::string& text) {
  if (is_plain_json_text(text)) {
    out += '"';
    out += text;
    out += '"';
  } else {
    out += json(text).dump();  // escapes, and validates UTF-8
  }
}

/// Appends `value` as compact JSON, the same text as value.dump() but without building an
/// intermediate string for the common types. Strings must be valid UTF-8: invalid UTF-8 throws
/// json::type_error (316), and the caller discards the partial text (Output::send does).
inline void append_json(std::string& out, const json& value) {
  switch (value.type()) {
    case json::value_t::null:
      out += "null";
      return;
    case json::value_t::boolean:
      out += value.get<bool>() ? "true" : "false";
      return;
    case json::value_t::number_integer:
      append_int(out, value.get<std::int64_t>());
      return;
    case json::value_t::number_unsigned:
      append_int(out, value.get<std::uint64_t>());
      return;
    case json::value_t::string:
      append_json_string_strict(out, value.get_ref<const std::string&>());
      return;
    case json::value_t::array: {
      out += '[';
      bool first = true;
      for (const json& element : value.get_ref<const json::array_t&>()) {
        if (!first) out += ',';
        first = false;
        append_json(out, element);
      }
      out += ']';
      return;
    }
    case json::value_t::object: {
      out += '{';
      bool first = true;
      for (const auto& member : value.get_ref<const json::object_t&>()) {
        if (!first) out += ',';
        first = false;
        append_json_string_strict(out, member.first);
        out += ':';
        append_json(out, member.second);
      }
      out += '}';
      return;
    }
    case json::value_t::number_float:  // shortest round-trip form, non-finite as null
    case json::value_t::binary:
    case json::value_t::discarded:
      out += value.dump();
      return;
  }
}

/// Appends `text` as a JSON string literal. Unlike append_json this never throws on bad UTF-8:
/// invalid bytes become U+FFFD. Used for log and error messages, where losing the report because
/// an exception message held a stray byte would be worse than a replacement character.
inline void append_json_string(std::string& out, std::string_view text) {
  if (is_plain_json_text(text)) {
    out += '"';
    out.append(text.data(), text.size());
    out += '"';
  } else {
    out += json(std::string(text)).dump(-1, ' ', false, json::error_handler_t::replace);
  }
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
