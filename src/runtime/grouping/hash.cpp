// The hash of a tuple's key fields, by value: components written in different languages spell
// the same value differently ("café" or "caf\u00e9", 1.0 or 1e0, {"a":1,"b":2} or {"b":2,"a":1}),
// and Storm, which hashes the deserialized objects, sends them all to the same task. So each
// value is hashed in a canonical form (the rules are in docs/tuples.md):
//   - a string: its UTF-8 text, escapes decoded; one without a backslash is hashed straight
//     from the bytes between its quotes (the common case costs no decoding);
//   - a number: as the value a JSON reader gives it: an integer that fits 64 bits is that
//     integer; any other number is the nearest double, and a double with an integral value in
//     the 64-bit range is that integer (so 1, 1.0, 1e0 and 10e-1 are equal, as 0.1 and 1e-1);
//   - true, false, null: themselves;
//   - an array: its elements in order; an object: its members in any order.
// Values reach groupings validated (runtime/json_text.hpp), but this never trusts it: text it
// cannot read is hashed as its bytes, never out of bounds, and nesting costs heap, not stack.
#include <bit>
#include <cmath>
#include <cstring>

#include "runtime/grouping/grouping.hpp"
#include "runtime/json_text.hpp"

namespace sparse::runtime {

namespace {

constexpr std::uint64_t kGolden = 0x9e3779b97f4a7c15ULL;
constexpr std::uint64_t kMul = 0xbf58476d1ce4e5b9ULL;

// Distinct starting points, so values of different kinds do not collide by construction.
enum Tag : std::uint64_t {
  kNull = 1,
  kFalse,
  kTrue,
  kInteger,
  kDouble,
  kString,
  kArray,
  kObject,
  kRawText,
  kFields,
};

constexpr std::uint64_t Mix(std::uint64_t x) {  // splitmix64's finalizer
  x ^= x >> 30;
  x *= kMul;
  x ^= x >> 27;
  x *= 0x94d049bb133111ebULL;
  x ^= x >> 31;
  return x;
}

constexpr std::uint64_t Start(Tag tag) {
  return Mix(tag * kGolden);
}

// Little-endian loads, so a value hashes alike on every machine.
std::uint64_t Load8(const unsigned char* p) {
  std::uint64_t w;
  std::memcpy(&w, p, 8);
  if constexpr (std::endian::native == std::endian::big) w = __builtin_bswap64(w);
  return w;
}

std::uint64_t LoadTail(const unsigned char* p, std::size_t n) {
  std::uint64_t w = 0;
  for (std::size_t k = 0; k < n; ++k) w |= static_cast<std::uint64_t>(p[k]) << (8 * k);
  return w;
}

// Bytes, eight at a time.
std::uint64_t HashBytes(Tag tag, std::string_view bytes) {
  const auto* p = reinterpret_cast<const unsigned char*>(bytes.data());
  std::size_t n = bytes.size();
  std::uint64_t h = Start(tag) ^ (n * kGolden);
  for (; n >= 8; p += 8, n -= 8) {
    h = (h ^ Load8(p)) * kMul;
    h ^= h >> 29;
  }
  if (n > 0) {
    h = (h ^ LoadTail(p, n)) * kMul;
    h ^= h >> 29;
  }
  return Mix(h);
}

std::uint64_t HashInteger(std::int64_t v) {
  return Mix(Start(kInteger) ^ static_cast<std::uint64_t>(v));
}

// A string literal's content (between its quotes), decoded when it has escapes.
std::uint64_t HashStringContent(std::string_view inner) {
  if (std::memchr(inner.data(), '\\', inner.size()) == nullptr) return HashBytes(kString, inner);
  thread_local std::string decoded;
  decoded.clear();
  if (!runtime::json::AppendUnescaped(decoded, inner)) return HashBytes(kRawText, inner);
  return HashBytes(kString, decoded);
}

std::uint64_t HashNumber(std::string_view token) {
  // Integers that fit 64 bits: read here, the common case.
  std::size_t i = token.size() > 0 && token[0] == '-' ? 1 : 0;
  const bool negative = i == 1;
  if (token.size() > i && token.size() - i <= 19) {
    std::uint64_t magnitude = 0;
    std::size_t k = i;
    for (; k < token.size() && token[k] >= '0' && token[k] <= '9'; ++k) {
      magnitude = magnitude * 10 + static_cast<std::uint64_t>(token[k] - '0');
    }
    if (k == token.size()) {
      constexpr std::uint64_t kLimit = std::uint64_t{1} << 63;
      if (!negative && magnitude < kLimit) return HashInteger(static_cast<std::int64_t>(magnitude));
      if (negative && magnitude <= kLimit) {
        return HashInteger(static_cast<std::int64_t>(0 - magnitude));
      }
    }
  }
  const auto value = runtime::json::NumberValue(token);
  if (!value) return HashBytes(kRawText, token);
  const double d = *value;
  // -2^63 <= d < 2^63, integral: the integer it equals (-0.0 is 0).
  if (d >= -9223372036854775808.0 && d < 9223372036854775808.0 && std::trunc(d) == d) {
    return HashInteger(static_cast<std::int64_t>(d));
  }
  return Mix(Start(kDouble) ^ std::bit_cast<std::uint64_t>(d));
}

bool IsBlank(char c) {
  return c == ' ' || c == '\n' || c == '\r' || c == '\t';
}

std::size_t SkipBlanks(std::string_view s, std::size_t i) {
  while (i < s.size() && IsBlank(s[i])) ++i;
  return i;
}

// One past the closing quote of the string opening at s[i], or npos.
std::size_t StringEnd(std::string_view s, std::size_t i) {
  for (++i; i < s.size(); ++i) {
    if (s[i] == '\\') {
      ++i;
    } else if (s[i] == '"') {
      return i + 1;
    }
  }
  return std::string_view::npos;
}

// The scalar at s[i]: its hash, and `i` moved past it. nullopt if there is none.
std::optional<std::uint64_t> HashScalar(std::string_view s, std::size_t& i) {
  const char c = s[i];
  if (c == '"') {
    const std::size_t end = StringEnd(s, i);
    if (end == std::string_view::npos) return std::nullopt;
    const std::string_view inner = s.substr(i + 1, end - i - 2);
    i = end;
    return HashStringContent(inner);
  }
  std::size_t end = i;
  while (end < s.size() && !IsBlank(s[end]) && s[end] != ',' && s[end] != ']' && s[end] != '}' &&
         s[end] != ':') {
    ++end;
  }
  const std::string_view token = s.substr(i, end - i);
  i = end;
  if (token == "true") return Start(kTrue);
  if (token == "false") return Start(kFalse);
  if (token == "null") return Start(kNull);
  if (!token.empty() && (token[0] == '-' || (token[0] >= '0' && token[0] <= '9'))) {
    return HashNumber(token);
  }
  return std::nullopt;
}

struct Open {
  bool object = false;
  std::uint64_t acc = 0;
  std::uint64_t count = 0;
  std::uint64_t key = 0;  // objects: the hash of the current member's key
};

std::uint64_t Close(const Open& c) {
  return Mix(c.acc ^ Start(c.object ? kObject : kArray) ^ (c.count * kGolden));
}

// A member's key at s[i] (blanks skipped), the ':' and the blanks after it.
bool ReadKey(std::string_view s, std::size_t& i, std::uint64_t& key) {
  if (i >= s.size() || s[i] != '"') return false;
  const std::size_t end = StringEnd(s, i);
  if (end == std::string_view::npos) return false;
  key = HashStringContent(s.substr(i + 1, end - i - 2));
  i = SkipBlanks(s, end);
  if (i >= s.size() || s[i] != ':') return false;
  i = SkipBlanks(s, i + 1);
  return true;
}

// Arrays and objects, without recursion.
std::optional<std::uint64_t> HashContainer(std::string_view s) {
  boost::container::small_vector<Open, 16> open;
  std::size_t i = 0;
  for (;;) {
    i = SkipBlanks(s, i);
    if (i >= s.size()) return std::nullopt;
    std::uint64_t done = 0;  // the hash of the value that just ended
    const char c = s[i];
    if (c == '[' || c == '{') {
      Open& o = open.emplace_back();
      o.object = c == '{';
      i = SkipBlanks(s, i + 1);
      if (i < s.size() && s[i] == (o.object ? '}' : ']')) {
        ++i;
        done = Close(o);
        open.pop_back();
      } else {
        if (o.object && !ReadKey(s, i, o.key)) return std::nullopt;
        continue;
      }
    } else {
      const auto h = HashScalar(s, i);
      if (!h) return std::nullopt;
      done = *h;
    }
    for (;;) {
      if (open.empty()) return done;
      Open& o = open.back();
      if (o.object) {
        o.acc += Mix(o.key * kGolden + done);  // a sum: members in any order
      } else {
        o.acc = Mix(o.acc ^ done) + kGolden;  // a chain: elements in order
      }
      ++o.count;
      i = SkipBlanks(s, i);
      if (i >= s.size()) return std::nullopt;
      if (s[i] == ',') {
        i = SkipBlanks(s, i + 1);
        if (o.object && !ReadKey(s, i, o.key)) return std::nullopt;
        break;
      }
      if (s[i] != (o.object ? '}' : ']')) return std::nullopt;
      ++i;
      done = Close(o);
      open.pop_back();
    }
  }
}

}  // namespace

std::uint64_t HashValue(std::string_view value) {
  if (value.empty()) return HashBytes(kRawText, value);
  const char c = value.front();
  if (c == '"' && value.size() >= 2 && value.back() == '"') {
    return HashStringContent(value.substr(1, value.size() - 2));
  }
  std::optional<std::uint64_t> h;
  if (c == '[' || c == '{') {
    h = HashContainer(value);
  } else {
    std::size_t i = 0;
    h = HashScalar(value, i);
  }
  return h ? *h : HashBytes(kRawText, value);
}

std::uint64_t HashKey(const EmittedTuple& tuple, const std::vector<int>& field_indices) {
  std::uint64_t h = Start(kFields);
  for (int i : field_indices) {
    if (static_cast<std::size_t>(i) >= tuple.size()) continue;
    h = Mix(h ^ HashValue(tuple.value(static_cast<std::size_t>(i)))) + kGolden;
  }
  return h;
}

std::uint64_t SeedHash(std::uint64_t key_hash, std::uint64_t seed) {
  return Mix(key_hash ^ Mix((seed + 1) * kGolden));
}

std::uint64_t HashFields(const EmittedTuple& tuple, const std::vector<int>& field_indices,
                         std::uint64_t seed) {
  return SeedHash(HashKey(tuple, field_indices), seed);
}

}  // namespace sparse::runtime
