#include "runtime/context.hpp"

namespace sparse::runtime {

nlohmann::json GroupingToJson(GroupingType type, const std::vector<std::string>& fields) {
  switch (type) {
    case GroupingType::kShuffle:
      return {{"type", "SHUFFLE"}};
    case GroupingType::kFields:
      return {{"type", "FIELDS"}, {"fields", fields}};
    case GroupingType::kGlobal:
      return {{"type", "FIELDS"}, {"fields", nlohmann::json::array()}};
    case GroupingType::kAll:
      return {{"type", "ALL"}};
    case GroupingType::kNone:
      return {{"type", "NONE"}};
    case GroupingType::kDirect:
      return {{"type", "DIRECT"}};
    case GroupingType::kLocalOrShuffle:
      return {{"type", "LOCAL_OR_SHUFFLE"}};
    case GroupingType::kPartialKey:
      return {{"type", "CUSTOM_OBJECT"}};
  }
  return {{"type", "SHUFFLE"}};
}

namespace {

// Everything of the context but `task->component`, which is the same for every task (the plan
// holds it as text).
nlohmann::json OwnContext(const Plan& plan, int task_id) {
  using nlohmann::json;
  const PlannedComponent& me = plan.component(plan.task_component.at(base::Idx(task_id)));

  json streams = json::array();
  json outputs = json::object();
  json targets = json::object();
  for (std::size_t si = 0; si < me.streams.size(); ++si) {
    const auto& s = me.streams[si];
    streams.push_back(s.id);
    outputs[s.id] = s.fields;
    json by_target = json::object();
    for (const auto& sub : me.subscribers[si]) {
      const auto& target = plan.component(sub.target_component);
      std::vector<std::string> fields;
      for (int fi : sub.field_indices) fields.push_back(s.fields[base::Idx(fi)]);
      by_target[target.id] = GroupingToJson(sub.type, fields);
    }
    targets[s.id] = by_target;
  }
  json sources = json::object();
  json source_fields = json::object();
  for (const auto& in : me.def->inputs) {
    int si = plan.FindComponent(in.component);
    if (si < 0) continue;
    const auto& src = plan.component(si);
    auto it = src.stream_index.find(in.stream);
    if (it == src.stream_index.end()) continue;
    sources[in.component][in.stream] = GroupingToJson(in.grouping.type, in.grouping.fields);
    source_fields[in.component][in.stream] = src.stream(it->second).fields;
  }
  return json{{"taskid", task_id},
              {"componentid", me.id},
              {"streams", streams},
              {"stream->outputfields", outputs},
              {"stream->target->grouping", targets},
              {"source->stream->grouping", sources},
              {"source->stream->fields", source_fields}};
}

// `{"task->component":MAP,` + the rest of `own` (a non-empty object's text, without its '{').
std::string ContextText(const Plan& plan, int task_id) {
  const std::string own = OwnContext(plan, task_id).dump();
  return "{\"task->component\":" + plan.task_to_component_json + "," + own.substr(1);
}

}  // namespace

nlohmann::json MakeContext(const Plan& plan, int task_id) {
  return nlohmann::json::parse(ContextText(plan, task_id));
}

std::string MakeHandshake(const Plan& plan, int task_id, const std::string& pid_dir) {
  const auto& me = plan.component(plan.task_component.at(base::Idx(task_id)));
  return "{\"context\":" + ContextText(plan, task_id) + ",\"conf\":" + me.config.dump() +
         ",\"pidDir\":" + nlohmann::json(pid_dir).dump() + "}";
}

}  // namespace sparse::runtime
