#include "runtime/grouping/grouping.hpp"

namespace sparse::runtime {

namespace {
std::uint64_t Mix(std::uint64_t x) {  // splitmix64 finalizer: spreads FNV's weak low bits
  x ^= x >> 30;
  x *= 0xbf58476d1ce4e5b9ULL;
  x ^= x >> 27;
  x *= 0x94d049bb133111ebULL;
  x ^= x >> 31;
  return x;
}
}  // namespace

std::uint64_t HashFields(const EmittedTuple& tuple, const std::vector<int>& field_indices,
                         std::uint64_t seed) {
  std::uint64_t h = 0xcbf29ce484222325ULL ^ Mix(seed + 1);
  for (int i : field_indices) {
    if (static_cast<std::size_t>(i) >= tuple.size()) continue;
    for (unsigned char c : tuple.value(static_cast<std::size_t>(i))) {
      h ^= c;
      h *= 0x100000001b3ULL;
    }
    h ^= 0xff;  // separator, so ["ab","c"] and ["a","bc"] differ
    h *= 0x100000001b3ULL;
  }
  return Mix(h);
}

}  // namespace sparse::runtime
