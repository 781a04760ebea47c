// The Apache Storm subcommands: `jar`, `submit`, `list`, `kill`, `activate`, `deactivate`,
// `rebalance` (one file each or per family: cmd_jar.cpp, cmd_submit.cpp, cmd_nimbus.cpp), and the
// helpers they share: project environments, Nimbus addresses, loading a topology for Storm, and
// turning failures into messages and exit codes.
#pragma once

#include <filesystem>
#include <functional>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "cli/commands.hpp"
#include "cli/project.hpp"
#include "cli/python_deps.hpp"
#include "runtime/topology.hpp"
#include "storm/nimbus_client.hpp"

namespace sparse::cli {

// Registers every subcommand above (called from RegisterExtraCommands). `builtins` is what
// topologies are loaded with (commands.hpp).
void RegisterStormCommands(CLI::App& app, Action& action, const runtime::BuiltinRegistry& builtins);

void RegisterJar(CLI::App& app, Action& action, const runtime::BuiltinRegistry& builtins);
void RegisterSubmit(CLI::App& app, Action& action, const runtime::BuiltinRegistry& builtins);
void RegisterNimbusCommands(CLI::App& app, Action& action);  // list, kill, (de)activate, rebalance

// One entry of `environments:` in sparse.yaml:
//   environments:
//     prod:
//       nimbus: nimbus1.example.com:6627     # or a list of seeds; port defaults to 6627
//       workers: 4                           # topology.workers
//       options: {topology.max.spout.pending: 5000}
struct Environment {
  std::string name;
  std::vector<storm::NimbusAddress> nimbus;  // empty when the environment names none
  std::optional<int> workers;
  nlohmann::json options = nlohmann::json::object();

  // The topology options it sets: `options`, plus topology.workers from `workers`.
  nlohmann::json TopologyOptions() const;
};

// The environment `name` of the project. Throws base::Error (kNotFound, exit 1) when there is no
// project or no such environment (listing the known ones), exit 2 when the entry is malformed
// (file:line).
Environment LoadEnvironment(const std::optional<Project>& project, const std::string& name);

// Where to find Nimbus: --nimbus if given, else the environment's, else localhost:6627.
std::vector<storm::NimbusAddress> NimbusSeeds(const std::string& nimbus_flag,
                                              const std::optional<Environment>& env);

// Parses `-o key=value` options (base::Error kUsage on a malformed one).
nlohmann::json ParseOverrides(const std::vector<std::string>& options);

struct StormTopologySource {
  std::optional<Project> project;
  std::filesystem::path file;
  runtime::Topology topology;
  std::optional<TopologyRequirements> requirements;  // its Python requirements, if any
};

// Resolves, loads and validates a topology for Storm: invalid or not submittable (built-in
// components) -> TopologyError. `env` resolves streamparse's per-environment `par`. A topology
// with Python requirements is evaluated in its local virtualenv (python_deps.hpp), built first.
StormTopologySource LoadTopologyForStorm(const std::optional<std::string>& arg,
                                         const runtime::BuiltinRegistry& builtins,
                                         const std::string& env = "");

// Builds the project's compiled (C++) components into its resources folder first, as
// `sparse run` does, unless `skip`: the jar must carry the binaries. base::Error on failure.
void BuildComponentsForJar(const StormTopologySource& source, bool skip);

// The Python packages the jar carries (python_deps.hpp: VendorRequirements) for the workers'
// Python version `python_version` (WorkerPythonVersion's answer), or an empty path when
// the topology has no requirements.
std::filesystem::path JarSitePackages(const StormTopologySource& source,
                                      const std::string& python_version);

// `--python-version X.Y` on `jar` and `submit`.
void AddPythonVersionOption(CLI::App& cmd, std::string& python_version);

// The jar's default path: <project or current folder>/_build/<topology name>.jar.
std::filesystem::path DefaultJarPath(const StormTopologySource& source);

// The project around the current folder; a project file that does not parse is a base::Error
// with exit code 2 (invalid configuration), naming the file and line.
std::optional<Project> CurrentProject();

// The name of the cluster topology a command acts on: `given` when set, else the project's only
// topology (or its default_topology), as streamparse does. base::Error (kNotFound) otherwise, with
// `verb` in the message ("name the topology to kill").
std::string ClusterTopologyName(const std::string& given, const std::string& verb);

storm::ClientOptions MakeClientOptions(double timeout_secs);

// ConnectToLeader, printing redirection notes to stderr.
std::unique_ptr<storm::NimbusClient> ConnectLeader(const std::vector<storm::NimbusAddress>& seeds,
                                                   const storm::ClientOptions& options);

// Options every Nimbus command takes: --nimbus, the environment, --timeout.
struct NimbusTarget {
  std::string nimbus;
  std::string env;
  double timeout_secs = 120;

  std::optional<Environment> FindEnvironment() const;
  std::vector<storm::NimbusAddress> Seeds() const;
};
// Adds --nimbus and --timeout, and the environment as `env_flags` ("-e,--env" or "--env").
void AddNimbusOptions(CLI::App* cmd, NimbusTarget& target, const std::string& env_flags);

std::string HumanBytes(std::uintmax_t bytes);

// An uptime as Storm's UI shows it: 3725 -> "1h2m"; nullopt -> "-".
std::string UptimeText(std::optional<int> secs);

// Rows (the first is the header) as columns aligned with two spaces between them.
void PrintTable(std::ostream& out, const std::vector<std::vector<std::string>>& rows);

// `sparse worker_uptime` and `sparse slot_usage` (streamparse's commands; cmd_cluster_usage.cpp).
void RegisterClusterUsageCommands(CLI::App& app, Action& action);

}  // namespace sparse::cli
