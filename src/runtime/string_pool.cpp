#include "runtime/string_pool.hpp"

#include <utility>
#include <vector>

namespace sparse::runtime {

namespace {

// Set once the thread's pool is destroyed (at thread exit). A plain bool has no destructor, so
// it can still be read then: a tuple that dies later (held by a static) frees its own buffer.
thread_local bool t_pool_gone = false;

struct Pool {
  std::vector<std::string> spare;
  std::size_t bytes = 0;
  Pool() = default;
  Pool(const Pool&) = delete;
  Pool& operator=(const Pool&) = delete;
  ~Pool() { t_pool_gone = true; }
};

Pool& Local() noexcept {
  thread_local Pool pool;
  return pool;
}

// A string this short lives inside the std::string itself: no buffer to keep. (Not a
// constexpr: clang cannot evaluate libstdc++'s string constructor at compile time.)
std::size_t InlineCapacity() noexcept {
  return std::string().capacity();
}

}  // namespace

std::string StringPool::Take(std::size_t capacity) {
  Pool& pool = Local();
  std::string s;
  if (!pool.spare.empty()) {
    s = std::move(pool.spare.back());
    pool.spare.pop_back();
    pool.bytes -= s.capacity();
  }
  s.reserve(capacity);
  return s;
}

void StringPool::Give(std::string&& s) noexcept {
  const std::size_t cap = s.capacity();
  if (cap <= InlineCapacity() || cap > kMaxCapacity || t_pool_gone) return;
  Pool& pool = Local();
  if (pool.bytes + cap > kMaxBytes) return;
  try {
    pool.spare.push_back(std::move(s));
  } catch (...) {
    return;  // no room to note it: the caller's string frees its buffer as usual
  }
  pool.spare.back().clear();
  pool.bytes += cap;
}

std::size_t StringPool::KeptStrings() noexcept {
  return Local().spare.size();
}

std::size_t StringPool::KeptBytes() noexcept {
  return Local().bytes;
}

}  // namespace sparse::runtime
