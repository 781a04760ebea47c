// Commands that look at topologies: `sparse stats` (numbers of a running topology, from its web
// view or, for a Storm cluster topology, from Nimbus), `sparse visualize` (the topology as a
// picture) and `sparse tail` (component logs of a `sparse run`).
#pragma once

#include <filesystem>
#include <string>

#include "cli/commands.hpp"

namespace sparse::cli {

// The folder of a local run's component logs: `flag` (--log-dir) if set, else the log dir of the
// run in this folder (.sparse/run.json), else the project's logs/, else ./logs (cmd_tail.cpp).
std::filesystem::path LocalLogDir(const std::string& flag);

void RegisterStats(CLI::App& app, Action& action);

// `builtins`: what topologies are loaded with (commands.hpp).
void RegisterVisualize(CLI::App& app, Action& action, const runtime::BuiltinRegistry& builtins);
void RegisterTail(CLI::App& app, Action& action);

inline void RegisterObservabilityCommands(CLI::App& app, Action& action,
                                          const runtime::BuiltinRegistry& builtins) {
  RegisterStats(app, action);
  RegisterVisualize(app, action, builtins);
  RegisterTail(app, action);
}

}  // namespace sparse::cli
