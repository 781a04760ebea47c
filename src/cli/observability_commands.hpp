// Commands that look at topologies: `sparse stats` (numbers of a running topology, from its web
// view), `sparse visualize` (the topology as a picture) and `sparse tail` (component logs).
#pragma once

#include "cli/commands.hpp"

namespace sparse::cli {

void RegisterStats(CLI::App& app, Action& action);
void RegisterVisualize(CLI::App& app, Action& action);
void RegisterTail(CLI::App& app, Action& action);

inline void RegisterObservabilityCommands(CLI::App& app, Action& action) {
  RegisterStats(app, action);
  RegisterVisualize(app, action);
  RegisterTail(app, action);
}

}  // namespace sparse::cli
