// Tuples as they move through the runtime.
//
// An emitted tuple is parsed once: its values stay the raw JSON text the component wrote (never
// re-encoded) plus the byte span of each value, which groupings hash. Every receiving task shares
// the same EmittedTuple; each delivery adds its own acking identity (InputTuple).
#pragma once

// GCC 12 misreads small_vector's move of its inline elements as an overread (a known false
// positive of -Wstringop-overread after inlining); the code is Boost's, not ours.
#if defined(__GNUC__) && !defined(__clang__)  // clang (and clang-tidy) has no such warning
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wstringop-overread"
#endif
#include <boost/container/small_vector.hpp>
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic pop
#endif
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "multilang/msgpack_codec.hpp"
#include "runtime/string_pool.hpp"

namespace sparse::runtime {

// How deep a tuple may nest. Messages nest at most multilang::kMaxNestingDepth levels in either
// direction and encoding (the C++ adapter and the MessagePack reader hold them to it), and a
// tuple travels inside a message object: its array may nest one level less, and each of its
// values two levels less.
inline constexpr std::size_t kMaxTupleDepth = multilang::kMaxNestingDepth - 1;
inline constexpr std::size_t kMaxValueDepth = multilang::kMaxNestingDepth - 2;

// Offset and length of each value in a tuple's JSON text. Most tuples have a handful of values:
// they live inline, so making a tuple costs no allocation for them.
using ValueSpans = boost::container::small_vector<std::pair<std::uint32_t, std::uint32_t>, 8>;

struct EmittedTuple {
  EmittedTuple() = default;
  EmittedTuple(const EmittedTuple&) = default;
  EmittedTuple(EmittedTuple&&) noexcept = default;
  EmittedTuple& operator=(const EmittedTuple&) = default;
  EmittedTuple& operator=(EmittedTuple&&) noexcept = default;
  // Its values' buffer goes back to the thread's StringPool, for the next tuple to reuse.
  ~EmittedTuple() { StringPool::Give(std::move(values_json)); }

  std::string values_json;  // a JSON array
  ValueSpans spans;
  int source_task = 0;
  int source_component = 0;  // index into the plan's components
  int stream = 0;            // index into the source component's own streams

  std::size_t size() const { return spans.size(); }
  std::string_view value(std::size_t i) const {
    return std::string_view(values_json).substr(spans[i].first, spans[i].second);
  }
};

// A new, empty EmittedTuple, allocated (with its shared_ptr's control block) from the loop
// thread's pool (runtime/pool_allocator.hpp): every emit makes one, and with thousands in flight
// glibc's per-thread cache runs dry for them, so make_shared took its slow path each time.
std::shared_ptr<EmittedTuple> NewEmittedTuple();

// One root of a tuple tree a delivered tuple belongs to, with the XOR id it carries for it
// (Storm's MessageId.anchorsToIds).
struct RootEdge {
  std::uint64_t root = 0;
  std::uint64_t id = 0;
};
// Almost every delivered tuple belongs to one tree (a spout emit, or a bolt emit anchored to one
// input): one root inline, no allocation per delivery.
using RootEdges = boost::container::small_vector<RootEdge, 1>;

struct InputTuple {
  std::shared_ptr<const EmittedTuple> tuple;
  RootEdges roots;  // empty: not tracked
  // Ticks and heartbeats are system tuples with no EmittedTuple.
  bool tick = false;
  std::int64_t tick_freq_secs = 0;
  std::int64_t arrived_ns = 0;  // when it reached the task's queue (for latencies)
  // The bytes of its values (what a byte budget counts; system tuples count 0).
  std::size_t ValueBytes() const;
};

// Splits a JSON array's text into the spans of its values. Returns false if it is not an array.
// Cheap: one pass over the bytes, tracking strings and nesting. It does not validate the values:
// what enters the runtime goes through ValidateTuple instead.
bool SplitJsonArray(std::string_view array_json, ValueSpans& spans);

// Checks that `array_json` is a JSON array of valid JSON values nested at most kMaxTupleDepth
// levels (see json::Validate for what valid means), and sets `spans` to its values' spans, in
// one pass. On failure returns why ("invalid literal at byte 1") and leaves `spans` unspecified.
std::optional<std::string> ValidateTuple(std::string_view array_json, ValueSpans& spans);
// Checks a spout's message id (the JSON text of any value, which goes back to the spout in its
// ack or fail) by the same rules: an id the spout could not read back is refused at its emit.
std::optional<std::string> ValidateMessageId(std::string_view id_json);

}  // namespace sparse::runtime
