#include "runtime/json_text.hpp"

#include <charconv>
#include <cstdint>
#include <cstring>
#include <limits>
#include <system_error>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace sparse::runtime::json {

namespace {

bool IsBlank(char c) {
  return c == ' ' || c == '\n' || c == '\r' || c == '\t';
}

bool IsDigit(char c) {
  return c >= '0' && c <= '9';
}

std::size_t SkipBlanks(std::string_view s, std::size_t i) {
  while (i < s.size() && IsBlank(s[i])) ++i;
  return i;
}

// The bytes a string scan must look at one by one: '"', '\\', a control character, or a byte
// that is not ASCII (the start of a UTF-8 sequence to check).
bool IsSpecialByte(unsigned char c) {
  return c == '"' || c == '\\' || c < 0x20 || c >= 0x80;
}

// The special bytes of the 8 in `w` (little-endian), as the high bit of each byte. Only the lowest
// set bit is exact (a borrow may flag bytes above a special one), which is all PlainRun asks.
std::uint64_t SpecialBytes(std::uint64_t w) {
  constexpr std::uint64_t kOnes = 0x0101010101010101ull;
  constexpr std::uint64_t kHigh = 0x8080808080808080ull;
  auto zero_bytes = [](std::uint64_t x) { return (x - kOnes) & ~x & kHigh; };
  return zero_bytes(w ^ (kOnes * '"')) | zero_bytes(w ^ (kOnes * '\\')) |
         ((w - kOnes * 0x20) & ~w & kHigh) | (w & kHigh);
}

}  // namespace

// Sixteen bytes at a time with SSE2 (every x86-64 has it), eight otherwise: string values are
// most of a tuple's bytes, and every tuple entering the runtime is scanned.
std::size_t PlainRun(const unsigned char* p, std::size_t n) {
  std::size_t i = 0;
#if defined(__SSE2__)
  const __m128i quote = _mm_set1_epi8('"');
  const __m128i backslash = _mm_set1_epi8('\\');
  const __m128i space = _mm_set1_epi8(0x20);
  for (; i + 16 <= n; i += 16) {
    const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p + i));
    // Signed, bytes of 0x80 and above are negative: "below a space" is a control character or
    // a byte that is not ASCII.
    const __m128i special =
        _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(v, quote), _mm_cmpeq_epi8(v, backslash)),
                     _mm_cmplt_epi8(v, space));
    if (const int mask = _mm_movemask_epi8(special)) {
      return i + static_cast<std::size_t>(__builtin_ctz(static_cast<unsigned>(mask)));
    }
  }
#endif
  for (; i + 8 <= n; i += 8) {
    std::uint64_t w;
    std::memcpy(&w, p + i, 8);
    if (const std::uint64_t special = SpecialBytes(w)) {
      return i + static_cast<std::size_t>(__builtin_ctzll(special)) / 8;
    }
  }
  while (i < n && !IsSpecialByte(p[i])) ++i;
  return i;
}

namespace {

// Four hex digits at s[i..i+4) as a code unit.
bool Hex4(std::string_view s, std::size_t i, std::uint32_t& out) {
  if (i + 4 > s.size()) return false;
  out = 0;
  for (std::size_t k = i; k < i + 4; ++k) {
    const char c = s[k];
    std::uint32_t d = 0;
    if (c >= '0' && c <= '9') {
      d = static_cast<std::uint32_t>(c - '0');
    } else if (c >= 'a' && c <= 'f') {
      d = static_cast<std::uint32_t>(c - 'a' + 10);
    } else if (c >= 'A' && c <= 'F') {
      d = static_cast<std::uint32_t>(c - 'A' + 10);
    } else {
      return false;
    }
    out = (out << 4) | d;
  }
  return true;
}

// The code point of the \u escape whose 'u' is at s[i], with its low surrogate when it is a high
// one; `i` moves past the escape(s). nullopt for bad hex digits or a lone surrogate.
std::optional<std::uint32_t> UnicodeEscape(std::string_view s, std::size_t& i) {
  std::uint32_t cp = 0;
  if (!Hex4(s, i + 1, cp)) return std::nullopt;
  i += 5;
  if (cp >= 0xDC00 && cp <= 0xDFFF) return std::nullopt;
  if (cp >= 0xD800 && cp <= 0xDBFF) {
    std::uint32_t low = 0;
    if (i + 6 > s.size() || s[i] != '\\' || s[i + 1] != 'u' || !Hex4(s, i + 2, low) ||
        low < 0xDC00 || low > 0xDFFF) {
      return std::nullopt;
    }
    i += 6;
    cp = 0x10000 + ((cp - 0xD800) << 10) + (low - 0xDC00);
  }
  return cp;
}

void AppendUtf8(std::string& out, std::uint32_t cp) {
  if (cp < 0x80) {
    out.push_back(static_cast<char>(cp));
  } else if (cp < 0x800) {
    out.push_back(static_cast<char>(0xC0 | (cp >> 6)));
    out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else if (cp < 0x10000) {
    out.push_back(static_cast<char>(0xE0 | (cp >> 12)));
    out.push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else {
    out.push_back(static_cast<char>(0xF0 | (cp >> 18)));
    out.push_back(static_cast<char>(0x80 | ((cp >> 12) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  }
}

// The checker. Each Scan* starts at the token's first byte and leaves `i_` one past its end.
class Checker {
 public:
  Checker(std::string_view s, std::size_t max_depth) : s_(s), max_depth_(max_depth) {}

  std::optional<Error> Run(ValueSpans* spans) {
    i_ = SkipBlanks(s_, 0);
    if (spans) {
      spans->clear();
      if (i_ >= s_.size() || s_[i_] != '[') return Error{i_, "not a JSON array"};
      if (s_.size() > std::numeric_limits<std::uint32_t>::max()) return Error{0, "too long"};
    }
    std::size_t depth = 0;
    std::size_t element_start = 0;
    for (;;) {
      // A value starts at i_.
      if (i_ >= s_.size()) return Error{i_, "a value is missing"};
      if (depth == 1) element_start = i_;
      const char c = s_[i_];
      if (c == '[' || c == '{') {
        if (++depth > max_depth_) return Error{i_, "nested too deep", true};
        SetKind(depth, c == '{');
        i_ = SkipBlanks(s_, i_ + 1);
        if (i_ < s_.size() && s_[i_] == (c == '{' ? '}' : ']')) {
          ++i_;
          --depth;
        } else {
          if (c == '{') {
            if (auto e = ScanKey()) return e;
          }
          continue;
        }
      } else if (auto e = ScanScalar()) {
        return e;
      }
      // A value ended at i_: the next one, or the ends of the containers it closes.
      for (;;) {
        if (depth == 0) {
          i_ = SkipBlanks(s_, i_);
          if (i_ != s_.size()) return Error{i_, "unexpected text after the value"};
          return std::nullopt;
        }
        if (depth == 1 && spans) {
          spans->emplace_back(static_cast<std::uint32_t>(element_start),
                              static_cast<std::uint32_t>(i_ - element_start));
        }
        i_ = SkipBlanks(s_, i_);
        const bool object = Kind(depth);
        if (i_ >= s_.size()) {
          return Error{i_, object ? "unterminated object" : "unterminated array"};
        }
        if (s_[i_] == ',') {
          i_ = SkipBlanks(s_, i_ + 1);
          if (object) {
            if (auto e = ScanKey()) return e;
          }
          break;
        }
        if (s_[i_] != (object ? '}' : ']')) {
          return Error{i_, object ? "expected ',' or '}'" : "expected ',' or ']'"};
        }
        ++i_;
        --depth;
      }
    }
  }

 private:
  std::optional<Error> ScanScalar() {
    const char c = s_[i_];
    if (c == '"') return ScanString();
    if (c == '-' || IsDigit(c)) return ScanNumber();
    if (c == 't') return ScanLiteral("true");
    if (c == 'f') return ScanLiteral("false");
    if (c == 'n') return ScanLiteral("null");
    if (c == 'N' || c == 'I') return Error{i_, "NaN and Infinity are not JSON"};
    return Error{i_, "a value is missing"};
  }

  std::optional<Error> ScanLiteral(std::string_view word) {
    if (s_.substr(i_, word.size()) != word) return Error{i_, "invalid literal"};
    i_ += word.size();
    return std::nullopt;
  }

  // A member's key, the ':' and the blanks after it; i_ ends at the member's value.
  std::optional<Error> ScanKey() {
    if (i_ >= s_.size() || s_[i_] != '"') return Error{i_, "expected a string key"};
    if (auto e = ScanString()) return e;
    i_ = SkipBlanks(s_, i_);
    if (i_ >= s_.size() || s_[i_] != ':') return Error{i_, "expected ':'"};
    i_ = SkipBlanks(s_, i_ + 1);
    return std::nullopt;
  }

  std::optional<Error> ScanString() {
    const std::size_t open = i_;
    const auto* p = reinterpret_cast<const unsigned char*>(s_.data());
    const std::size_t n = s_.size();
    std::size_t i = i_ + 1;
    for (;;) {
      i += PlainRun(p + i, n - i);
      if (i >= n) return Error{open, "unterminated string"};
      const unsigned char c = p[i];
      if (c == '"') {
        i_ = i + 1;
        return std::nullopt;
      }
      if (c == '\\') {
        if (i + 1 >= n) return Error{open, "unterminated string"};
        switch (s_[i + 1]) {
          case '"':
          case '\\':
          case '/':
          case 'b':
          case 'f':
          case 'n':
          case 'r':
          case 't':
            i += 2;
            break;
          case 'u': {
            std::size_t at = i + 1;
            if (!UnicodeEscape(s_, at)) {
              return Error{i, "invalid \\u escape (bad hex digits, or a lone surrogate)"};
            }
            i = at;
            break;
          }
          default:
            return Error{i, "invalid escape"};
        }
      } else if (c < 0x20) {
        return Error{i, "control character in a string"};
      } else if (c >= 0x80) {
        const int len = Utf8Length(p + i, n - i);
        if (len == 0) return Error{i, "invalid UTF-8"};
        i += static_cast<std::size_t>(len);
      } else {
        ++i;
      }
    }
  }

  std::optional<Error> ScanNumber() {
    const std::size_t start = i_;
    const std::size_t n = s_.size();
    std::size_t i = i_;
    if (s_[i] == '-') ++i;
    if (i < n && (s_[i] == 'I' || s_[i] == 'N'))
      return Error{start, "NaN and Infinity are not JSON"};
    if (i >= n || !IsDigit(s_[i])) return Error{start, "invalid number"};
    if (s_[i] == '0') {
      ++i;
    } else {
      while (i < n && IsDigit(s_[i])) ++i;
    }
    const std::size_t integer_digits = i - start;
    bool exponent = false;
    if (i < n && s_[i] == '.') {
      ++i;
      if (i >= n || !IsDigit(s_[i])) return Error{start, "invalid number"};
      while (i < n && IsDigit(s_[i])) ++i;
    }
    if (i < n && (s_[i] == 'e' || s_[i] == 'E')) {
      exponent = true;
      ++i;
      if (i < n && (s_[i] == '+' || s_[i] == '-')) ++i;
      if (i >= n || !IsDigit(s_[i])) return Error{start, "invalid number"};
      while (i < n && IsDigit(s_[i])) ++i;
    }
    i_ = i;
    // Only an exponent or more than 308 digits before the point can reach past a double.
    if (exponent || integer_digits > 308) {
      const auto v = NumberValue(s_.substr(start, i - start));
      if (!v || *v == std::numeric_limits<double>::infinity() ||
          *v == -std::numeric_limits<double>::infinity()) {
        return Error{start, "number out of the range of a double"};
      }
    }
    return std::nullopt;
  }

  // One bit per open container: set for an object.
  void SetKind(std::size_t depth, bool object) {
    const std::size_t word = depth / 64;
    if (word >= kinds_.size()) kinds_.resize(word + 1, 0);
    const std::uint64_t bit = std::uint64_t{1} << (depth % 64);
    kinds_[word] = object ? (kinds_[word] | bit) : (kinds_[word] & ~bit);
  }
  bool Kind(std::size_t depth) const { return (kinds_[depth / 64] >> (depth % 64)) & 1; }

  std::string_view s_;
  std::size_t max_depth_;
  std::size_t i_ = 0;
  boost::container::small_vector<std::uint64_t, 9> kinds_;  // 576 levels without allocating
};

// The end of the string whose opening quote is at s[i] (one past its closing quote), or npos.
std::size_t StringEnd(std::string_view s, std::size_t i) {
  for (++i; i < s.size();) {
    const char* here = s.data() + i;
    const char* stop = static_cast<const char*>(std::memchr(here, '"', s.size() - i));
    if (!stop) return std::string_view::npos;
    const char* backslash =
        static_cast<const char*>(std::memchr(here, '\\', static_cast<std::size_t>(stop - here)));
    if (!backslash) return static_cast<std::size_t>(stop - s.data()) + 1;
    i = static_cast<std::size_t>(backslash - s.data()) + 2;
  }
  return std::string_view::npos;
}

}  // namespace

std::string Describe(const Error& error) {
  return std::string(error.what) + " at byte " + std::to_string(error.offset);
}

std::optional<Error> Validate(std::string_view text, std::size_t max_depth, ValueSpans* spans) {
  return Checker(text, max_depth).Run(spans);
}

bool AppendUnescaped(std::string& out, std::string_view inner) {
  std::size_t i = 0;
  while (i < inner.size()) {
    const char* here = inner.data() + i;
    const auto* backslash = static_cast<const char*>(std::memchr(here, '\\', inner.size() - i));
    if (!backslash) {
      out.append(here, inner.size() - i);
      return true;
    }
    out.append(here, static_cast<std::size_t>(backslash - here));
    i = static_cast<std::size_t>(backslash - inner.data());
    if (i + 1 >= inner.size()) return false;
    switch (inner[i + 1]) {
      case '"':
      case '\\':
      case '/':
        out.push_back(inner[i + 1]);
        break;
      case 'b':
        out.push_back('\b');
        break;
      case 'f':
        out.push_back('\f');
        break;
      case 'n':
        out.push_back('\n');
        break;
      case 'r':
        out.push_back('\r');
        break;
      case 't':
        out.push_back('\t');
        break;
      case 'u': {
        std::size_t at = i + 1;
        const auto cp = UnicodeEscape(inner, at);
        if (!cp) return false;
        AppendUtf8(out, *cp);
        i = at;
        continue;
      }
      default:
        return false;
    }
    i += 2;
  }
  return true;
}

void AppendMinified(std::string& out, std::string_view valid) {
  std::size_t i = 0;
  while (i < valid.size()) {
    const char c = valid[i];
    if (c == '"') {
      std::size_t end = StringEnd(valid, i);
      if (end == std::string_view::npos) end = valid.size();
      out.append(valid.data() + i, end - i);
      i = end;
    } else {
      if (!IsBlank(c)) out.push_back(c);
      ++i;
    }
  }
}

std::size_t ValueEnd(std::string_view valid, std::size_t pos) {
  std::size_t i = pos;
  const std::size_t n = valid.size();
  std::size_t depth = 0;
  while (i < n) {
    const char c = valid[i];
    if (c == '"') {
      i = StringEnd(valid, i);
      if (i == std::string_view::npos) return n;
      if (depth == 0) return i;
      continue;
    }
    if (c == '[' || c == '{') {
      ++depth;
    } else if (c == ']' || c == '}') {
      if (depth == 0) return i;  // the end of the enclosing container: a scalar ended here
      if (--depth == 0) return i + 1;
    } else if (depth == 0 && (c == ',' || IsBlank(c))) {
      return i;
    }
    ++i;
  }
  return n;
}

MemberReader::MemberReader(std::string_view valid_object) : text_(valid_object) {
  pos_ = SkipBlanks(text_, 0);
  if (pos_ < text_.size() && text_[pos_] == '{') ++pos_;
}

bool MemberReader::Next(std::string_view& key, std::string_view& value) {
  pos_ = SkipBlanks(text_, pos_);
  if (pos_ < text_.size() && text_[pos_] == ',') pos_ = SkipBlanks(text_, pos_ + 1);
  if (pos_ >= text_.size() || text_[pos_] != '"') return false;
  const std::size_t key_end = StringEnd(text_, pos_);
  if (key_end == std::string_view::npos) return false;
  key = text_.substr(pos_ + 1, key_end - pos_ - 2);
  pos_ = SkipBlanks(text_, key_end);
  if (pos_ >= text_.size() || text_[pos_] != ':') return false;
  pos_ = SkipBlanks(text_, pos_ + 1);
  const std::size_t end = ValueEnd(text_, pos_);
  value = text_.substr(pos_, end - pos_);
  pos_ = end;
  return !value.empty();
}

std::optional<double> NumberValue(std::string_view token) {
  double v = 0;
  const char* first = token.data();
  const char* last = token.data() + token.size();
  const auto [ptr, ec] = std::from_chars(first, last, v);
  if (ptr != last || token.empty()) return std::nullopt;
  if (ec == std::errc()) return v;
  if (ec != std::errc::result_out_of_range) return std::nullopt;
  // Past a double one way or the other: which way is the decimal exponent of the first
  // significant digit (the digits alone are far too few to decide it otherwise).
  const bool negative = token.front() == '-';
  std::size_t i = negative ? 1 : 0;
  std::int64_t before_point = 0;        // digits before the decimal point
  std::int64_t first_significant = -1;  // index of the first non-zero digit
  std::int64_t index = 0;
  bool seen_point = false;
  for (; i < token.size(); ++i) {
    const char c = token[i];
    if (c == '.') {
      seen_point = true;
      continue;
    }
    if (!IsDigit(c)) break;
    if (c != '0' && first_significant < 0) first_significant = index;
    ++index;
    if (!seen_point) ++before_point;
  }
  std::int64_t exponent = 0;
  if (i < token.size() && (token[i] == 'e' || token[i] == 'E')) {
    ++i;
    const bool minus = i < token.size() && token[i] == '-';
    if (i < token.size() && (token[i] == '-' || token[i] == '+')) ++i;
    for (; i < token.size() && exponent < 1'000'000'000; ++i) {
      exponent = exponent * 10 + (token[i] - '0');
    }
    if (minus) exponent = -exponent;
  }
  const bool huge = first_significant >= 0 && (before_point - 1 - first_significant) + exponent > 0;
  const double magnitude = huge ? std::numeric_limits<double>::infinity() : 0.0;
  return negative ? -magnitude : magnitude;
}

int Utf8Length(const unsigned char* p, std::size_t avail) {
  const unsigned char c = p[0];
  int len = 0;
  std::uint32_t cp = 0;
  if ((c & 0xE0) == 0xC0) {
    len = 2;
    cp = c & 0x1F;
  } else if ((c & 0xF0) == 0xE0) {
    len = 3;
    cp = c & 0x0F;
  } else if ((c & 0xF8) == 0xF0) {
    len = 4;
    cp = c & 0x07;
  } else {
    return 0;
  }
  if (avail < static_cast<std::size_t>(len)) return 0;
  for (int k = 1; k < len; ++k) {
    if ((p[k] & 0xC0) != 0x80) return 0;
    cp = (cp << 6) | (p[k] & 0x3F);
  }
  if ((len == 2 && cp < 0x80) || (len == 3 && cp < 0x800) || (len == 4 && cp < 0x10000) ||
      (cp >= 0xD800 && cp <= 0xDFFF) || cp > 0x10FFFF) {
    return 0;
  }
  return len;
}

}  // namespace sparse::runtime::json
