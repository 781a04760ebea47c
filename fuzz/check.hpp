// What a fuzz target asserts: a property of the code under test that every input must keep.
// A broken property prints what broke and aborts, which libFuzzer reports as a crash and saves
// the input (fuzz targets may assert; the product never asserts on untrusted input).
#pragma once

#include <cstdio>
#include <cstdlib>
#include <string_view>

#define FUZZ_CHECK(cond, what)                                                                \
  do {                                                                                        \
    if (!(cond)) {                                                                            \
      std::fprintf(stderr, "fuzz property broken at %s:%d: %s\n  (%s)\n", __FILE__, __LINE__, \
                   static_cast<const char*>(what), #cond);                                    \
      std::abort();                                                                           \
    }                                                                                         \
  } while (0)

namespace sparse::fuzz {

// Chunk sizes derived from the input itself, to feed a stream reader in pieces the way a pipe
// delivers them: the same input always splits the same way (libFuzzer needs determinism).
class Chunker {
 public:
  explicit Chunker(std::string_view data) : state_(0x9E3779B97F4A7C15ull ^ data.size()) {
    for (unsigned char c : data.substr(0, 16)) state_ = state_ * 131 + c;
  }
  std::size_t Next(std::size_t remaining) {
    state_ ^= state_ << 13;
    state_ ^= state_ >> 7;
    state_ ^= state_ << 17;
    const std::size_t n = 1 + state_ % 17;
    return n < remaining ? n : remaining;
  }

 private:
  unsigned long long state_;
};

}  // namespace sparse::fuzz
