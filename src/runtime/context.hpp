// The handshake Storm sends each component: {"pidDir", "conf", "context"} with the real context
// keys (task->component, taskid, componentid, streams, stream->outputfields,
// stream->target->grouping, source->stream->grouping, source->stream->fields).
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "runtime/plan.hpp"

namespace sparse::runtime {

// A grouping object as Storm writes it: {"type": "FIELDS", "fields": [...]} etc. Global is
// FIELDS with an empty list; partial key is a custom grouping in Storm (CUSTOM_OBJECT).
nlohmann::json GroupingToJson(GroupingType type, const std::vector<std::string>& fields);

nlohmann::json MakeContext(const Plan& plan, int task_id);

std::string MakeHandshake(const Plan& plan, int task_id, const std::string& pid_dir);

}  // namespace sparse::runtime
