// Random 64-bit ids for tuple trees and edges (Storm uses random longs too). splitmix64 is fast,
// has no bad seeds, and ids never repeat within a period of 2^64.
#pragma once

#include <cstdint>
#include <random>

namespace sparse::runtime {

class IdGenerator {
 public:
  IdGenerator() : state_(std::random_device{}() ^ (std::uint64_t{std::random_device{}()} << 32)) {}
  explicit IdGenerator(std::uint64_t seed) : state_(seed) {}
  std::uint64_t Next() {
    std::uint64_t z = (state_ += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    z ^= z >> 31;
    return z == 0 ? 1 : z;  // 0 means "no id" in places
  }

 private:
  std::uint64_t state_;
};

}  // namespace sparse::runtime
