#include "kafka/message_id.hpp"

#include <charconv>

namespace sparse::kafka {

std::string MessageId(std::int64_t slot, std::int64_t offset) {
  // Two 64-bit numbers take at most 20 characters each; the buffer leaves room for the rest.
  char buf[64];
  buf[0] = '[';
  char* p = std::to_chars(buf + 1, buf + 22, slot).ptr;
  *p = ',';
  p = std::to_chars(p + 1, p + 22, offset).ptr;
  *p = ']';
  return std::string(buf, p + 1);
}

bool ParseMessageId(std::string_view id, std::int64_t& slot, std::int64_t& offset) {
  const char* p = id.data();
  const char* end = p + id.size();
  if (p == end || *p != '[') return false;
  auto r = std::from_chars(p + 1, end, slot);
  if (r.ec != std::errc() || r.ptr == end || *r.ptr != ',') return false;
  r = std::from_chars(r.ptr + 1, end, offset);
  return r.ec == std::errc() && r.ptr + 1 == end && *r.ptr == ']';
}

}  // namespace sparse::kafka
