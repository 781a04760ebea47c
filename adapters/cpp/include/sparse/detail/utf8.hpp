// sparse C++ component adapter — UTF-8 well-formedness, shared by the JSON and MessagePack
// readers.
#pragma once

#include <cstddef>

namespace sparse {
namespace detail {

/// Length of the well-formed UTF-8 sequence (RFC 3629: no overlongs, no surrogates, at most
/// U+10FFFF) that starts at `p` with a byte >= 0x80, or 0 if there is none.
inline std::size_t utf8_sequence_length(const unsigned char* p, std::size_t left) {
  const unsigned char lead = p[0];
  std::size_t length = 0;
  unsigned char low = 0x80, high = 0xBF;  // allowed range of the second byte
  if (lead >= 0xC2 && lead <= 0xDF) {
    length = 2;
  } else if (lead >= 0xE0 && lead <= 0xEF) {
    length = 3;
    if (lead == 0xE0) low = 0xA0;
    if (lead == 0xED) high = 0x9F;
  } else if (lead >= 0xF0 && lead <= 0xF4) {
    length = 4;
    if (lead == 0xF0) low = 0x90;
    if (lead == 0xF4) high = 0x8F;
  } else {
    return 0;
  }
  if (left < length || p[1] < low || p[1] > high) return 0;
  for (std::size_t i = 2; i < length; ++i) {
    if (p[i] < 0x80 || p[i] > 0xBF) return 0;
  }
  return length;
}

}  // namespace detail
}  // namespace sparse
