// Spare string buffers, per thread, for the values of tuples made on the hot path.
//
// Why: a Kafka record becomes a tuple whose values are a fresh string of a hundred bytes or so,
// and the tuple lives until its tree completes. With thousands of tuples in flight, glibc's small
// per-thread cache (7 blocks per size) is always empty for them, so every record paid malloc's
// slow path to make the string and free's to drop it (~7% of the Kafka spout's loop thread in
// bench/kafka). An EmittedTuple gives its string back here when it dies; a producer takes one.
//
// Take and Give use the calling thread's pool, so no lock is taken; a string given on another
// thread than the one it was taken on is simply kept by that thread. A pool keeps strings of at
// most kMaxCapacity bytes, kMaxBytes of them in all; what it cannot keep is freed as usual.
#pragma once

#include <cstddef>
#include <string>

namespace sparse::runtime {

class StringPool {
 public:
  static constexpr std::size_t kMaxCapacity = 4096;
  static constexpr std::size_t kMaxBytes = std::size_t{1} << 20;

  // An empty string with room for at least `capacity` bytes: a kept one if the pool has any.
  static std::string Take(std::size_t capacity);
  // Keeps `s`'s buffer for a later Take if it is worth keeping and the pool has room.
  static void Give(std::string&& s) noexcept;
  // The calling thread's pool: strings and bytes kept (for tests).
  static std::size_t KeptStrings() noexcept;
  static std::size_t KeptBytes() noexcept;
};

}  // namespace sparse::runtime
