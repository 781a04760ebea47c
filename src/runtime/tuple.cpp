#include "runtime/tuple.hpp"

#include <cstring>

#include "runtime/json_text.hpp"
#include "runtime/pool_allocator.hpp"

namespace sparse::runtime {

namespace {
bool IsSpace(char c) {
  return c == ' ' || c == '\n' || c == '\r' || c == '\t';
}
}  // namespace

std::shared_ptr<EmittedTuple> NewEmittedTuple() {
  return std::allocate_shared<EmittedTuple>(PoolAllocator<EmittedTuple>{});
}

std::size_t InputTuple::ValueBytes() const {
  return tuple ? tuple->values_json.size() : 0;
}

bool SplitJsonArray(std::string_view s, ValueSpans& spans) {
  spans.clear();
  std::size_t i = 0;
  const std::size_t n = s.size();
  while (i < n && IsSpace(s[i])) ++i;
  if (i >= n || s[i] != '[') return false;
  ++i;
  int depth = 0;
  bool in_string = false;
  std::size_t start = std::string::npos;
  std::size_t last_non_space = 0;
  for (; i < n; ++i) {
    char c = s[i];
    if (in_string) {
      // Jump to the string's next quote or backslash (values are mostly string bytes).
      const char* here = s.data() + i;
      const char* end = s.data() + n;
      const char* quote =
          static_cast<const char*>(std::memchr(here, '"', static_cast<std::size_t>(end - here)));
      const char* stop = quote ? quote : end;
      const char* backslash =
          static_cast<const char*>(std::memchr(here, '\\', static_cast<std::size_t>(stop - here)));
      if (backslash) {
        i = static_cast<std::size_t>(backslash - s.data()) + 1;  // the escaped character
      } else if (quote) {
        i = static_cast<std::size_t>(quote - s.data());
        in_string = false;
      } else {
        return false;  // unterminated string
      }
      last_non_space = i;
      continue;
    }
    if (IsSpace(c)) continue;
    if (depth == 0 && (c == ',' || c == ']')) {
      if (start != std::string::npos) {
        spans.emplace_back(static_cast<std::uint32_t>(start),
                           static_cast<std::uint32_t>(last_non_space + 1 - start));
        start = std::string::npos;
      } else if (c == ',') {
        return false;  // empty element
      }
      if (c == ']') return true;
      continue;
    }
    if (start == std::string::npos) start = i;
    last_non_space = i;
    if (c == '"') {
      in_string = true;
    } else if (c == '[' || c == '{') {
      ++depth;
    } else if (c == ']' || c == '}') {
      --depth;
      if (depth < 0) return false;
    }
  }
  return false;
}

namespace {

std::optional<std::string> Check(std::string_view json_text, ValueSpans* spans) {
  if (const auto error = json::Validate(json_text, kMaxTupleDepth, spans)) {
    if (error->too_deep) {
      return "nested deeper than " + std::to_string(kMaxTupleDepth) + " levels (byte " +
             std::to_string(error->offset) + "; messages nest at most " +
             std::to_string(multilang::kMaxNestingDepth) + ")";
    }
    return json::Describe(*error);
  }
  return std::nullopt;
}

}  // namespace

std::optional<std::string> ValidateTuple(std::string_view array_json, ValueSpans& spans) {
  return Check(array_json, &spans);
}

std::optional<std::string> ValidateMessageId(std::string_view id_json) {
  return Check(id_json, nullptr);
}

}  // namespace sparse::runtime
