// Chooses the receiving tasks of every emit: one Grouping per (source task, stream, subscriber),
// built once from the plan. Checks what the topology declares: the stream's arity, direct vs
// non-direct streams, and that a direct target subscribes to the stream with direct grouping.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "runtime/grouping/grouping.hpp"
#include "runtime/plan.hpp"

namespace sparse::runtime {

class Router {
 public:
  explicit Router(const Plan& plan, std::uint64_t seed = 0x5eed);

  // Appends the receiving task ids to `targets`; returns a description of the violation if the
  // emit is not allowed by the topology. `source_task` must be a task of the plan and
  // `tuple.stream` one of its component's streams (SPARSE_INVARIANT: the runtime resolves both).
  std::optional<std::string> Route(int source_task, const EmittedTuple& tuple,
                                   std::optional<std::int64_t> direct_task,
                                   std::vector<int>& targets);

  // Emits routed so far from one task on one stream (by the stream's index in its component),
  // and the deliveries they made.
  struct StreamCount {
    std::uint64_t emitted = 0;
    std::uint64_t transferred = 0;
  };
  const StreamCount& Count(int task, std::size_t stream) const {
    return counts_[static_cast<std::size_t>(task)][stream];
  }

 private:
  struct Out {
    const Subscription* sub;
    std::unique_ptr<GroupingStrategy> grouping;  // null for direct
  };
  const Plan& plan_;
  // routes_[task][stream] = one Out per subscriber.
  std::vector<std::vector<std::vector<Out>>> routes_;
  std::vector<std::vector<StreamCount>> counts_;  // counts_[task][stream]
};

}  // namespace sparse::runtime
