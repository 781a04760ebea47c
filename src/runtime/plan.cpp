#include "runtime/plan.hpp"

#include <algorithm>

#include "runtime/config.hpp"
#include "runtime/serializer_choice.hpp"
#include "runtime/topology_loader.hpp"

namespace sparse::runtime {

int Plan::FindComponent(std::string_view id) const {
  for (std::size_t i = 0; i < components.size(); ++i) {
    if (components[i].id == id) return static_cast<int>(i);
  }
  return -1;
}

namespace {

void CheckTaskLimit(const std::vector<const ComponentDef*>& defs, const nlohmann::json& conf) {
  const std::int64_t limit = ConfigView(&conf).IntValue(keys::kMaxTasks);
  std::int64_t total = 0;
  const ComponentDef* largest = nullptr;
  for (const ComponentDef* def : defs) {
    total += std::max(def->parallelism, 0);
    if (!largest || def->parallelism > largest->parallelism) largest = def;
  }
  if (total <= limit || !largest) return;
  throw TopologyError({Diagnostic{
      largest->where, "the topology has " + std::to_string(total) + " tasks (`" + largest->id +
                          "` alone has " + std::to_string(largest->parallelism) +
                          "); a local run allows at most " + std::to_string(limit) +
                          " (each task is a process). Lower `parallelism`, or raise " +
                          keys::kMaxTasks + " if this machine can take it"}});
}

std::string TaskToComponentJson(const Plan& plan) {
  nlohmann::json map = nlohmann::json::object();
  for (int t = 1; t <= plan.num_tasks(); ++t) {
    map[std::to_string(t)] = plan.ComponentOfTask(t).id;
  }
  return map.dump();
}

}  // namespace

Plan MakePlan(const Topology& topology, const nlohmann::json& overrides) {
  Plan plan;
  plan.topology = &topology;
  plan.topology_config = DefaultConfig();
  MergeConfig(plan.topology_config, topology.config);
  MergeConfig(plan.topology_config, overrides);
  // As Storm's submitter does: the topology's own name, whatever a configuration says (here and
  // for each component below, whose configuration re-applies the overrides).
  plan.topology_config[keys::kTopologyName] = topology.name;

  std::vector<const ComponentDef*> defs;
  for (const auto& c : topology.components) defs.push_back(&c);
  CheckTaskLimit(defs, plan.topology_config);
  std::sort(defs.begin(), defs.end(),
            [](const ComponentDef* a, const ComponentDef* b) { return a->id < b->id; });

  plan.task_component.push_back(-1);
  plan.task_index.push_back(-1);
  for (const ComponentDef* def : defs) {
    PlannedComponent pc;
    pc.def = def;
    pc.id = def->id;
    for (const auto& s : def->streams) {
      PlannedStream ps{s.id, s.fields, s.direct};
      pc.stream_index[s.id] = static_cast<int>(pc.streams.size());
      pc.streams.push_back(std::move(ps));
    }
    pc.subscribers.resize(pc.streams.size());
    pc.config = plan.topology_config;
    MergeConfig(pc.config, def->config);
    MergeConfig(pc.config, overrides);
    pc.config[keys::kTopologyName] = topology.name;
    pc.serializer = ChooseSerializer(*def, pc.config).serializer;  // validation reported errors
    const int ci = static_cast<int>(plan.components.size());
    for (int i = 0; i < def->parallelism; ++i) {
      pc.tasks.push_back(static_cast<int>(plan.task_component.size()));
      plan.task_component.push_back(ci);
      plan.task_index.push_back(i);
    }
    plan.components.push_back(std::move(pc));
  }
  plan.task_to_component_json = TaskToComponentJson(plan);

  for (std::size_t ti = 0; ti < plan.components.size(); ++ti) {
    for (const auto& in : plan.components[ti].def->inputs) {
      int si = plan.FindComponent(in.component);
      if (si < 0) continue;  // validation reports it
      auto& src = plan.components[base::Idx(si)];
      auto it = src.stream_index.find(in.stream);
      if (it == src.stream_index.end()) continue;
      Subscription sub;
      sub.target_component = static_cast<int>(ti);
      sub.type = in.grouping.type;
      for (const auto& f : in.grouping.fields) {
        const auto& fields = src.stream(it->second).fields;
        auto pos = std::find(fields.begin(), fields.end(), f);
        if (pos != fields.end())
          sub.field_indices.push_back(static_cast<int>(pos - fields.begin()));
      }
      src.subscribers[base::Idx(it->second)].push_back(std::move(sub));
    }
  }
  return plan;
}

}  // namespace sparse::runtime
