// SPARSE_INVARIANT(condition, message): an always-on check of something only a bug in sparse can
// make false (an index the code itself computed, a state the code itself set). When it fails it
// prints where and what to stderr and aborts, in release builds too: going on from a broken
// invariant corrupts data silently.
//
// Never use it on input (a child's message, a Kafka record, YAML, HTTP, a jar): bad input is an
// error value or a base::Error with a message naming the input, and the runtime goes on.
#pragma once

#include <cstdio>
#include <cstdlib>
#include <string_view>

namespace sparse::base {

[[noreturn]] inline void InvariantFailed(const char* file, int line, const char* condition,
                                         std::string_view message) {
  std::fprintf(stderr, "sparse: internal error at %s:%d: %s (%.*s)\n", file, line, condition,
               static_cast<int>(message.size()), message.data());
  std::fflush(stderr);
  std::abort();
}

}  // namespace sparse::base

#define SPARSE_INVARIANT(condition, message)                                      \
  do {                                                                            \
    if (!(condition)) [[unlikely]] {                                              \
      ::sparse::base::InvariantFailed(__FILE__, __LINE__, #condition, (message)); \
    }                                                                             \
  } while (false)
