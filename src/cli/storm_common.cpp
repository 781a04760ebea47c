// Helpers shared by the Storm subcommands (storm_commands.hpp), and their registration.
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <iostream>

#include "cli/component_build.hpp"
#include "cli/console.hpp"
#include "cli/duration_option.hpp"
#include "cli/python_topology.hpp"
#include "cli/storm_commands.hpp"
#include "runtime/config.hpp"
#include "runtime/topology_loader.hpp"
#include "runtime/validate.hpp"
#include "runtime/yaml_json.hpp"
#include "storm/convert.hpp"
#include "storm/jar.hpp"

namespace sparse::cli {

namespace fs = std::filesystem;

void RegisterStormCommands(CLI::App& app, Action& action,
                           const runtime::BuiltinRegistry& builtins) {
  RegisterJar(app, action, builtins);
  RegisterSubmit(app, action, builtins);
  RegisterNimbusCommands(app, action);
  RegisterClusterUsageCommands(app, action);
}

std::string UptimeText(std::optional<int> secs) {
  if (!secs) return "-";
  int s = *secs;
  const int d = s / 86400, h = s % 86400 / 3600, m = s % 3600 / 60;
  s %= 60;
  char buf[48];
  if (d > 0) {
    std::snprintf(buf, sizeof buf, "%dd%dh%dm", d, h, m);
  } else if (h > 0) {
    std::snprintf(buf, sizeof buf, "%dh%dm", h, m);
  } else if (m > 0) {
    std::snprintf(buf, sizeof buf, "%dm%ds", m, s);
  } else {
    std::snprintf(buf, sizeof buf, "%ds", s);
  }
  return buf;
}

void PrintTable(std::ostream& out, const std::vector<std::vector<std::string>>& rows) {
  if (rows.empty()) return;
  std::vector<std::size_t> width(rows.front().size(), 0);
  for (const auto& r : rows) {
    for (std::size_t i = 0; i < r.size() && i < width.size(); ++i) {
      width[i] = std::max(width[i], r[i].size());
    }
  }
  for (const auto& r : rows) {
    for (std::size_t i = 0; i < r.size(); ++i) {
      out << r[i];
      if (i + 1 < r.size() && i < width.size()) {
        out << std::string(width[i] - r[i].size() + 2, ' ');
      }
    }
    out << "\n";
  }
}

nlohmann::json Environment::TopologyOptions() const {
  nlohmann::json out = options;
  if (workers) out[runtime::keys::kWorkers] = *workers;
  return out;
}

namespace {

storm::NimbusAddress ParseSeed(const fs::path& file, const YAML::Node& node) {
  if (!node.IsScalar()) {
    throw base::Error(base::Errc::kInvalidTopology,
                      YamlWhere(file, node) + ": `nimbus` must be HOST:PORT or a list of them");
  }
  try {
    return storm::ParseNimbusAddress(node.Scalar());
  } catch (const std::invalid_argument& e) {
    throw base::Error(base::Errc::kInvalidTopology,
                      YamlWhere(file, node) + ": `nimbus`: " + std::string(e.what()));
  }
}

}  // namespace

std::optional<Project> CurrentProject() {
  try {
    return FindProject(fs::current_path());
  } catch (const std::runtime_error& e) {
    throw base::Error(base::Errc::kInvalidTopology, e.what());
  }
}

std::string ClusterTopologyName(const std::string& given, const std::string& verb) {
  if (!given.empty()) return given;
  const auto project = CurrentProject();
  if (!project) {
    throw base::Error(base::Errc::kNotFound,
                      "name the topology to " + verb + " (not inside a project)");
  }
  try {
    return ResolveTopology(std::nullopt, project).stem().string();
  } catch (const std::runtime_error& e) {
    throw base::Error(base::Errc::kNotFound,
                      "name the topology to " + verb + ": " + std::string(e.what()));
  }
}

Environment LoadEnvironment(const std::optional<Project>& project, const std::string& name) {
  if (!project) {
    throw base::Error(base::Errc::kNotFound, "environment `" + name +
                                                 "` asked for, but this is not inside a sparse "
                                                 "project (no sparse.yaml here or above)");
  }
  const fs::path file = project->config_file;
  const YAML::Node envs = project->config["environments"];
  std::vector<std::string> known;
  if (envs && envs.IsMap()) {
    for (const auto& kv : envs) known.push_back(kv.first.as<std::string>());
  } else if (envs && !envs.IsNull()) {
    throw base::Error(base::Errc::kInvalidTopology,
                      YamlWhere(file, envs) + ": `environments` must map names to settings");
  }
  const YAML::Node node = envs && envs.IsMap() ? envs[name] : YAML::Node();
  if (!node) {
    std::string list;
    for (const auto& k : known) list += (list.empty() ? "" : ", ") + k;
    throw base::Error(base::Errc::kNotFound, "no environment `" + name + "` in " + file.string() +
                                                 (known.empty() ? " (it defines no `environments:`)"
                                                                : " (known: " + list + ")"));
  }
  if (!node.IsMap()) {
    throw base::Error(base::Errc::kInvalidTopology,
                      YamlWhere(file, node) + ": environment `" + name +
                          "` must be a mapping with nimbus, workers, options");
  }
  Environment env;
  env.name = name;
  for (const auto& kv : node) {
    const std::string key = kv.first.as<std::string>();
    const YAML::Node& value = kv.second;
    if (key == "nimbus") {
      if (value.IsSequence()) {
        for (const auto& seed : value) env.nimbus.push_back(ParseSeed(file, seed));
      } else {
        env.nimbus.push_back(ParseSeed(file, value));
      }
    } else if (key == "workers") {
      int workers = 0;
      try {
        workers = value.as<int>();
      } catch (const YAML::Exception&) {
        workers = 0;
      }
      if (workers < 1) {
        throw base::Error(
            base::Errc::kInvalidTopology,
            YamlWhere(file, value) + ": `workers` must be a whole number of at least 1");
      }
      env.workers = workers;
    } else if (key == "options") {
      if (!value.IsMap()) {
        throw base::Error(base::Errc::kInvalidTopology,
                          YamlWhere(file, value) + ": `options` must map config keys to values");
      }
      env.options = runtime::YamlToJson(value);
    } else {
      // Other subsystems may add their own keys; say so without failing.
      std::cerr << "sparse: warning: " << YamlWhere(file, kv.first) << ": environment `" << name
                << "`: `" << key << "` is not used by Storm commands (known: nimbus, workers, "
                << "options)\n";
    }
  }
  return env;
}

std::vector<storm::NimbusAddress> NimbusSeeds(const std::string& nimbus_flag,
                                              const std::optional<Environment>& env) {
  if (!nimbus_flag.empty()) {
    try {
      return {storm::ParseNimbusAddress(nimbus_flag)};
    } catch (const std::invalid_argument& e) {
      throw base::Error(base::Errc::kUsage, std::string("--nimbus ") + e.what());
    }
  }
  if (env && !env->nimbus.empty()) return env->nimbus;
  return {storm::NimbusAddress{"localhost", storm::kDefaultNimbusPort}};
}

nlohmann::json ParseOverrides(const std::vector<std::string>& options) {
  nlohmann::json out = nlohmann::json::object();
  for (const auto& o : options) {
    auto kv = runtime::ParseOverride(o);
    if (!kv) throw base::Error(base::Errc::kUsage, "-o expects key=value, got `" + o + "`");
    out[kv->first] = kv->second;
  }
  return out;
}

StormTopologySource LoadTopologyForStorm(const std::optional<std::string>& arg,
                                         const runtime::BuiltinRegistry& builtins,
                                         const std::string& env) {
  StormTopologySource source;
  source.project = CurrentProject();
  try {
    source.file = ResolveTopology(arg, source.project);
  } catch (const std::runtime_error& e) {
    throw base::Error(base::Errc::kNotFound, e.what());
  }
  // The topology may import its components, and they their requirements.
  source.requirements = UseTopologyVirtualenv(source.file);
  source.topology = LoadAnyTopology(source.file, builtins, env);
  runtime::ValidateOrThrow(source.topology, builtins);
  if (auto problems = storm::CheckSubmittable(source.topology, &builtins); !problems.empty()) {
    throw runtime::TopologyError(std::move(problems));
  }
  return source;
}

void BuildComponentsForJar(const StormTopologySource& source, bool skip) {
  if (skip) return;
  const auto owner = FindProject(source.file.parent_path());
  if (owner && HasComponentBuild(*owner) && !BuildProjectComponents(*owner)) {
    throw base::Error(base::Errc::kBuildFailed,
                      "the C++ components could not be built, so there is no jar (use "
                      "--no-build to package what is already in the resources folder)");
  }
}

fs::path JarSitePackages(const StormTopologySource& source, const std::string& python_version) {
  if (!source.requirements) return {};
  return VendorRequirements(*source.requirements, python_version);
}

void AddPythonVersionOption(CLI::App& cmd, std::string& python_version) {
  cmd.add_option("--python-version", python_version,
                 "The workers' Python (MAJOR.MINOR) for the requirements the jar carries "
                 "(default: $SPARSE_WORKER_PYTHON_VERSION, else this machine's python3)");
}

fs::path DefaultJarPath(const StormTopologySource& source) {
  const fs::path base = source.project ? source.project->root : fs::current_path();
  return base / "_build" / (source.topology.name + ".jar");
}

storm::ClientOptions MakeClientOptions(double timeout_secs) {
  storm::ClientOptions o;
  if (timeout_secs > 0) {
    o.recv_timeout = std::chrono::milliseconds(static_cast<std::int64_t>(timeout_secs * 1000));
    o.connect_timeout = std::min(o.connect_timeout, o.recv_timeout);
  }
  return o;
}

std::unique_ptr<storm::NimbusClient> ConnectLeader(const std::vector<storm::NimbusAddress>& seeds,
                                                   const storm::ClientOptions& options) {
  return storm::ConnectToLeader(seeds, options,
                                [](const std::string& note) { std::cerr << note << "\n"; });
}

std::optional<Environment> NimbusTarget::FindEnvironment() const {
  if (!env.empty()) return LoadEnvironment(CurrentProject(), env);
  if (!nimbus.empty()) return std::nullopt;
  // A streamparse project's only environment is used without -e, as streamparse does.
  const auto project = CurrentProject();
  if (project && project->streamparse && !project->DefaultEnvironment().empty()) {
    return LoadEnvironment(project, project->DefaultEnvironment());
  }
  return std::nullopt;
}

std::vector<storm::NimbusAddress> NimbusTarget::Seeds() const {
  return NimbusSeeds(nimbus, FindEnvironment());
}

void AddNimbusOptions(CLI::App* cmd, NimbusTarget& target, const std::string& env_flags) {
  cmd->add_option("--nimbus", target.nimbus,
                  "Nimbus HOST:PORT (default: the environment's `nimbus`, else localhost:6627)");
  cmd->add_option(env_flags, target.env, "Environment from sparse.yaml (its `nimbus` address)");
  cmd->add_option("--timeout", target.timeout_secs,
                  "Seconds to wait for each Nimbus reply (default 120)")
      ->check(Seconds(false));
}

std::string HumanBytes(std::uintmax_t bytes) {
  char buf[32];
  if (bytes < 1024) {
    std::snprintf(buf, sizeof buf, "%ju B", bytes);
  } else if (bytes < 1024 * 1024) {
    std::snprintf(buf, sizeof buf, "%.1f KiB", static_cast<double>(bytes) / 1024);
  } else {
    std::snprintf(buf, sizeof buf, "%.1f MiB", static_cast<double>(bytes) / (1024 * 1024));
  }
  return buf;
}

}  // namespace sparse::cli
