#include "runtime/router.hpp"

#include "base/invariant.hpp"

namespace sparse::runtime {

Router::Router(const Plan& plan, std::uint64_t seed) : plan_(plan) {
  routes_.resize(base::Idx(plan.num_tasks() + 1));
  counts_.resize(base::Idx(plan.num_tasks() + 1));
  for (int task = 1; task <= plan.num_tasks(); ++task) {
    const auto& c = plan.ComponentOfTask(task);
    auto& per_stream = routes_[base::Idx(task)];
    per_stream.resize(c.streams.size());
    counts_[base::Idx(task)].resize(c.streams.size());
    for (std::size_t s = 0; s < c.streams.size(); ++s) {
      for (const auto& sub : c.subscribers[s]) {
        const auto& tasks = plan.component(sub.target_component).tasks;
        const std::uint64_t stream_seed = seed ^ (static_cast<std::uint64_t>(task) * 7919U + s);
        per_stream[s].push_back(Out{&sub, MakeGrouping(sub, tasks, stream_seed)});
      }
    }
  }
}

std::optional<std::string> Router::Route(int source_task, const EmittedTuple& tuple,
                                         std::optional<std::int64_t> direct_task,
                                         std::vector<int>& targets) {
  // Both come from the runtime (the task's own id, the stream index it resolved), never from a
  // child: out of range is a bug in sparse.
  SPARSE_INVARIANT(source_task >= 1 && source_task <= plan_.num_tasks(),
                   "routing an emit of a task that is not in the plan");
  const auto& src = plan_.ComponentOfTask(source_task);
  SPARSE_INVARIANT(tuple.stream >= 0 && static_cast<std::size_t>(tuple.stream) < src.streams.size(),
                   "routing an emit on a stream its component does not have");
  const auto& stream = src.stream(tuple.stream);
  if (tuple.size() != stream.fields.size()) {
    std::string fields;
    for (const auto& f : stream.fields) fields += (fields.empty() ? "" : ", ") + f;
    return "emit of " + std::to_string(tuple.size()) + " value(s) to stream `" + stream.id +
           "`, which declares " + std::to_string(stream.fields.size()) + " field(s) [" + fields +
           "]";
  }
  const auto& outs = routes_[base::Idx(source_task)][base::Idx(tuple.stream)];
  auto& count = counts_[base::Idx(source_task)][base::Idx(tuple.stream)];
  if (direct_task) {
    if (!stream.direct) {
      return "direct emit (task " + std::to_string(*direct_task) + ") to stream `" + stream.id +
             "`, which is not declared direct";
    }
    const std::int64_t t = *direct_task;
    if (t < 1 || t > plan_.num_tasks()) {
      return "direct emit to task " + std::to_string(t) + ", which does not exist";
    }
    const int target_component = plan_.ComponentIndexOfTask(static_cast<int>(t));
    for (const auto& out : outs) {
      if (out.sub->target_component == target_component) {
        targets.push_back(static_cast<int>(t));
        count.emitted++;
        count.transferred++;
        return std::nullopt;
      }
    }
    return "direct emit to task " + std::to_string(t) + " (`" +
           plan_.component(target_component).id + "`), which does not subscribe to stream `" +
           stream.id + "` of `" + src.id + "`";
  }
  if (stream.direct) {
    return "emit without a task to direct stream `" + stream.id + "`";
  }
  const std::size_t before = targets.size();
  for (const auto& out : outs) out.grouping->Choose(tuple, targets);
  count.emitted++;
  count.transferred += targets.size() - before;
  return std::nullopt;
}

}  // namespace sparse::runtime
