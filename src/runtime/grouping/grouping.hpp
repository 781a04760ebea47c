// Stream groupings: which tasks of a subscribing component receive an emitted tuple.
//
// One instance per (source task, subscription), so stateful strategies (round-robin, load
// counts) need no locking and stay deterministic per source. Direct grouping is not here: the
// emitting component names the task, and the router checks it.
#pragma once

#include <cstdint>
#include <memory>
#include <string_view>
#include <vector>

#include "runtime/plan.hpp"
#include "runtime/tuple.hpp"

namespace sparse::runtime {

class GroupingStrategy {
 public:
  virtual ~GroupingStrategy() = default;
  // Appends the chosen target task ids to `out`.
  virtual void Choose(const EmittedTuple& tuple, std::vector<int>& out) = 0;
};

// Stable 64-bit hashes of values (unlike std::hash: the same across runs and machines), by
// value, not by spelling: equal values however written hash alike ("café" and "caf\u00e9", 1 and
// 1.0, objects with their members in any order; the rules are in docs/tuples.md).
//
// HashValue: one value's JSON text. HashKey: the values of the selected fields, in order
// (indices past the tuple's end are skipped). SeedHash: a key's hash under one of several
// independent seeds (partial key grouping's two choices). HashFields = SeedHash(HashKey).
std::uint64_t HashValue(std::string_view value_json);
std::uint64_t HashKey(const EmittedTuple& tuple, const std::vector<int>& field_indices);
std::uint64_t SeedHash(std::uint64_t key_hash, std::uint64_t seed);
std::uint64_t HashFields(const EmittedTuple& tuple, const std::vector<int>& field_indices,
                         std::uint64_t seed = 0);

std::unique_ptr<GroupingStrategy> MakeShuffleGrouping(std::vector<int> tasks, std::uint64_t seed);
std::unique_ptr<GroupingStrategy> MakeFieldsGrouping(std::vector<int> tasks,
                                                     std::vector<int> fields);
std::unique_ptr<GroupingStrategy> MakeAllGrouping(std::vector<int> tasks);
std::unique_ptr<GroupingStrategy> MakeGlobalGrouping(std::vector<int> tasks);
std::unique_ptr<GroupingStrategy> MakePartialKeyGrouping(std::vector<int> tasks,
                                                         std::vector<int> fields);

// Builds the strategy for `sub`; returns nullptr for direct grouping.
std::unique_ptr<GroupingStrategy> MakeGrouping(const Subscription& sub,
                                               const std::vector<int>& tasks, std::uint64_t seed);

}  // namespace sparse::runtime
