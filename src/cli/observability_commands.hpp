// Commands that look at topologies: `sparse stats` (numbers of a running topology, from its web
// view), `sparse visualize` (the topology as a picture) and `sparse tail` (component logs).
#pragma once

#include <filesystem>
#include <string>

#include "cli/commands.hpp"

namespace sparse::cli {

// The folder of a local run's component logs: `flag` (--log-dir) if set, else the log dir of the
// run in this folder (.sparse/run.json), else the project's logs/, else ./logs (cmd_tail.cpp).
std::filesystem::path LocalLogDir(const std::string& flag);

void RegisterStats(CLI::App& app, Action& action);

// `stats` and `tail` read a `sparse run` on this machine. Asked about a Storm cluster topology
// (-e ENV or --nimbus), they say where Storm keeps what was asked for, since sparse reads neither
// Storm's UI REST API nor its logviewer yet. Adds both options to `cmd`; `where` says where
// Storm keeps it. The command's action checks Asked() first.
struct ClusterTarget {
  std::string env;
  std::string nimbus;
  bool Asked() const { return !env.empty() || !nimbus.empty(); }
};
void AddClusterTargetOptions(CLI::App* cmd, ClusterTarget& target);
int RefuseClusterTopology(const std::string& command, const ClusterTarget& target,
                          const std::string& where);
void RegisterVisualize(CLI::App& app, Action& action);
void RegisterTail(CLI::App& app, Action& action);

inline void RegisterObservabilityCommands(CLI::App& app, Action& action) {
  RegisterStats(app, action);
  RegisterVisualize(app, action);
  RegisterTail(app, action);
}

}  // namespace sparse::cli
