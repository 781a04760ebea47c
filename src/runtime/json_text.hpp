// JSON text as the runtime holds it: strict validation with a nesting limit, and the few walks
// the runtime makes over text it has validated (unescaping strings, dropping blanks, reading an
// object's members, reading a number's value).
//
// Tuple values stay the JSON text a component wrote; what enters the runtime (a child's emit, a
// built-in's emit, a Kafka record decoded as JSON) is checked here once, so every later reader
// (groupings, the Kafka bolt, the components downstream) meets only valid, bounded JSON.
//
// Nothing here recurses: nesting costs a bit of heap per level, never stack, whatever the input.
// Nothing throws or allocates more than a small multiple of the input's size.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

#include "runtime/tuple.hpp"

namespace sparse::runtime::json {

// Why a text is not accepted, and where (a byte offset into it). `what` is static text.
struct Error {
  std::size_t offset = 0;
  std::string_view what;
  bool too_deep = false;  // the text is nested deeper than asked (offset: the container's start)
};

// "<what> at byte <offset>".
std::string Describe(const Error& error);

// Checks that `text` is exactly one JSON value (RFC 8259; blanks around it allowed):
//   - the grammar, with no NaN or Infinity (which some encoders write but JSON has not);
//   - strings: valid UTF-8, no control characters, valid escapes, surrogate escapes only in
//     pairs (a lone one stands for no character);
//   - numbers within a double's range (1e400 is refused; 1e-400 is a zero);
//   - arrays and objects nested at most `max_depth` levels (a scalar is 0 levels, `[]` is 1).
// When `spans` is given the value must be an array, and `spans` receives the span of each
// element (what SplitJsonArray finds, in the same pass). Returns nullopt when valid.
std::optional<Error> Validate(std::string_view text, std::size_t max_depth,
                              ValueSpans* spans = nullptr);

// Appends the UTF-8 text that a JSON string literal's content (`inner`, between its quotes)
// stands for. Returns false on a malformed escape or a lone surrogate (`out` is then
// unspecified).
bool AppendUnescaped(std::string& out, std::string_view inner);

// Appends valid JSON text without the blanks between its tokens (strings are kept as written).
void AppendMinified(std::string& out, std::string_view valid);

// The end (one past the last byte) of the value that starts at `pos` in valid JSON text.
std::size_t ValueEnd(std::string_view valid, std::size_t pos);

// The members of a valid JSON object's text, in order: key (the string's content, as written,
// escapes included) and the raw text of its value.
class MemberReader {
 public:
  explicit MemberReader(std::string_view valid_object);
  bool Next(std::string_view& key, std::string_view& value);

 private:
  std::string_view text_;
  std::size_t pos_ = 0;
};

// The value of a JSON number token (valid grammar): the nearest double, ±infinity past a
// double's range, ±0 below it. nullopt if `token` is not a number.
std::optional<double> NumberValue(std::string_view token);

// How many bytes from the start of p[0..n) a JSON string carries as they are (printable ASCII
// other than '"' and '\\'): the offset of the first byte that is not, or n.
std::size_t PlainRun(const unsigned char* p, std::size_t n);

// Length of the well-formed UTF-8 sequence at p (its first byte >= 0x80), or 0 if it is not one
// (RFC 3629: no overlong forms, no surrogates, nothing past U+10FFFF). `avail`: bytes at p.
int Utf8Length(const unsigned char* p, std::size_t avail);

}  // namespace sparse::runtime::json
