#include "runtime/grouping/grouping.hpp"

namespace sparse::runtime {

std::unique_ptr<GroupingStrategy> MakeGrouping(const Subscription& sub,
                                               const std::vector<int>& tasks, std::uint64_t seed) {
  switch (sub.type) {
    case GroupingType::kShuffle:
    case GroupingType::kNone:
    case GroupingType::kLocalOrShuffle:
      return MakeShuffleGrouping(tasks, seed);
    case GroupingType::kFields:
      return MakeFieldsGrouping(tasks, sub.field_indices);
    case GroupingType::kAll:
      return MakeAllGrouping(tasks);
    case GroupingType::kGlobal:
      return MakeGlobalGrouping(tasks);
    case GroupingType::kPartialKey:
      return MakePartialKeyGrouping(tasks, sub.field_indices);
    case GroupingType::kDirect:
      return nullptr;
  }
  return nullptr;
}

}  // namespace sparse::runtime
