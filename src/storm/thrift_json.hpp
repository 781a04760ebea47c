// Readable JSON views of the Thrift structs sparse exchanges with Nimbus: what
// `sparse submit --dry-run` prints, what `sparse list --json` prints, and what tests compare.
#pragma once

#include <nlohmann/json.hpp>

#include "sparse/storm/gen/storm_types.h"

namespace sparse::storm {

// {"spouts": {id: component}, "bolts": {id: component}} where a component is
// {"shell": [execution_command, script], "parallelism_hint": N, "json_conf": {...},
//  "streams": {id: {"output_fields": [...], "direct": bool}},
//  "inputs": [{"component", "stream", "grouping": {"fields": [...]} | {"shuffle": {}} | ...}]}.
// Keys are sorted, so equal topologies print equally.
nlohmann::json StormTopologyToJson(const gen::StormTopology& topology);

// {"fields": [...]} | {"shuffle": {}} | {"all": {}} | {"none": {}} | {"direct": {}} |
// {"local_or_shuffle": {}}; {"unset": {}} when no member is set.
nlohmann::json GroupingToJson(const gen::Grouping& grouping);

// {"id", "name", "status", "workers", "executors", "tasks", "uptime_secs", "owner"}; absent
// optional fields are null.
nlohmann::json TopologySummaryToJson(const gen::TopologySummary& summary);

}  // namespace sparse::storm
