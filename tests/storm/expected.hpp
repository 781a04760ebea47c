// What the `full` fixture (fixtures/full/topologies/full.yaml) must become on the wire, written
// out by hand from the topology file: the StormTopology (as thrift_json.hpp prints it).
#pragma once

#include <nlohmann/json.hpp>

namespace sparse::storm::testing {

// `events_pending` is the events spout's topology.max.spout.pending (10 in the file; -o
// overrides replace it).
inline nlohmann::json ExpectedFullTopology(int events_pending) {
  auto shell = [](const char* launcher) {
    return nlohmann::json::array({"sh", std::string("_sparse/launch/") + launcher});
  };
  auto input = [](const char* component, const char* stream, nlohmann::json grouping) {
    return nlohmann::json{{"component", component}, {"stream", stream}, {"grouping", grouping}};
  };
  const nlohmann::json empty = nlohmann::json::object();
  const nlohmann::json no_streams = nlohmann::json::object();
  auto sink = [&](const char* launcher, nlohmann::json inputs) {
    return nlohmann::json{{"shell", shell(launcher)},
                          {"parallelism_hint", 1},
                          {"json_conf", nullptr},
                          {"streams", no_streams},
                          {"inputs", std::move(inputs)}};
  };
  nlohmann::json spouts = {
      {"events",
       {{"shell", shell("events.sh")},
        {"parallelism_hint", 2},
        {"json_conf", {{"topology.max.spout.pending", events_pending}}},
        {"streams",
         {{"default", {{"output_fields", {"user", "action"}}, {"direct", false}}},
          {"alerts", {{"output_fields", {"msg"}}, {"direct", true}}}}},
        {"inputs", nlohmann::json::array()}}}};
  nlohmann::json bolts = {
      // '_' is not kept in launcher names: by_user -> by_5fuser.
      {"by_user",
       {{"shell", shell("by_5fuser.sh")},
        {"parallelism_hint", 3},
        {"json_conf", {{"topology.tick.tuple.freq.secs", 5}}},
        {"streams", {{"default", {{"output_fields", {"user", "n"}}, {"direct", false}}}}},
        {"inputs", {input("events", "default", {{"fields", {"user"}}})}}}},
      {"every", sink("every.sh", {input("events", "default", {{"all", empty}})})},
      // Global grouping is fields grouping on no fields.
      {"total",
       sink("total.sh", {input("by_user", "default", {{"fields", nlohmann::json::array()}})})},
      // Inputs are listed in GlobalStreamId order (component, then stream).
      {"anywhere", sink("anywhere.sh", {input("by_user", "default", {{"local_or_shuffle", empty}}),
                                        input("events", "default", {{"none", empty}})})},
      {"shuffled", sink("shuffled.sh", {input("events", "alerts", {{"direct", empty}}),
                                        input("events", "default", {{"shuffle", empty}})})},
      // partial_key is sent as fields grouping on its fields.
      {"partial", sink("partial.sh", {input("by_user", "default", {{"fields", {"user"}}})})},
  };
  return {{"spouts", spouts}, {"bolts", bolts}};
}

}  // namespace sparse::storm::testing
