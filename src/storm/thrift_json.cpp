#include "storm/thrift_json.hpp"

namespace sparse::storm {

namespace {

nlohmann::json ComponentToJson(const gen::ComponentObject& object,
                               const gen::ComponentCommon& common) {
  nlohmann::json j = nlohmann::json::object();
  if (object.__isset.shell) {
    j["shell"] = {object.shell.execution_command, object.shell.script};
  } else {
    j["shell"] = nullptr;
  }
  j["parallelism_hint"] =
      common.__isset.parallelism_hint ? nlohmann::json(common.parallelism_hint) : nullptr;
  if (common.__isset.json_conf) {
    j["json_conf"] = nlohmann::json::parse(common.json_conf, nullptr, /*allow_exceptions=*/false);
  } else {
    j["json_conf"] = nullptr;
  }
  nlohmann::json streams = nlohmann::json::object();
  for (const auto& [id, info] : common.streams) {
    streams[id] = {{"output_fields", info.output_fields}, {"direct", info.direct}};
  }
  j["streams"] = std::move(streams);
  nlohmann::json inputs = nlohmann::json::array();
  for (const auto& [id, grouping] : common.inputs) {
    inputs.push_back({{"component", id.componentId},
                      {"stream", id.streamId},
                      {"grouping", GroupingToJson(grouping)}});
  }
  j["inputs"] = std::move(inputs);
  return j;
}

template <typename T>
nlohmann::json Optional(bool set, const T& value) {
  return set ? nlohmann::json(value) : nlohmann::json(nullptr);
}

}  // namespace

nlohmann::json GroupingToJson(const gen::Grouping& g) {
  const auto empty = nlohmann::json::object();
  if (g.__isset.fields) return {{"fields", g.fields}};
  if (g.__isset.shuffle) return {{"shuffle", empty}};
  if (g.__isset.all) return {{"all", empty}};
  if (g.__isset.none) return {{"none", empty}};
  if (g.__isset.direct) return {{"direct", empty}};
  if (g.__isset.local_or_shuffle) return {{"local_or_shuffle", empty}};
  return {{"unset", empty}};
}

nlohmann::json StormTopologyToJson(const gen::StormTopology& topology) {
  nlohmann::json spouts = nlohmann::json::object();
  for (const auto& [id, spec] : topology.spouts) {
    spouts[id] = ComponentToJson(spec.spout_object, spec.common);
  }
  nlohmann::json bolts = nlohmann::json::object();
  for (const auto& [id, bolt] : topology.bolts) {
    bolts[id] = ComponentToJson(bolt.bolt_object, bolt.common);
  }
  return {{"spouts", std::move(spouts)}, {"bolts", std::move(bolts)}};
}

nlohmann::json TopologySummaryToJson(const gen::TopologySummary& s) {
  return {{"id", Optional(s.__isset.id, s.id)},
          {"name", Optional(s.__isset.name, s.name)},
          {"status", Optional(s.__isset.status, s.status)},
          {"workers", Optional(s.__isset.num_workers, s.num_workers)},
          {"executors", Optional(s.__isset.num_executors, s.num_executors)},
          {"tasks", Optional(s.__isset.num_tasks, s.num_tasks)},
          {"uptime_secs", Optional(s.__isset.uptime_secs, s.uptime_secs)},
          {"owner", Optional(s.__isset.owner, s.owner)}};
}

}  // namespace sparse::storm
