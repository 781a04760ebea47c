// `sparse submit`: packages the topology (storm/jar.hpp), finds the Nimbus leader, checks the
// name, uploads the jar in chunks and submits the topology as shell components
// (storm/convert.hpp). `--dry-run` stops before the network and prints what would be sent.
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <fstream>
#include <iostream>
#include <sstream>
#include <thread>

#include "cli/console.hpp"
#include "cli/duration_option.hpp"
#include "cli/paths.hpp"
#include "cli/storm_commands.hpp"
#include "cli/streamparse_project.hpp"
#include "storm/convert.hpp"
#include "storm/jar.hpp"
#include "storm/thrift_json.hpp"

namespace sparse::cli {

namespace fs = std::filesystem;

namespace {

struct SubmitArgs {
  std::optional<std::string> topology;
  std::string env;
  std::string name;
  std::string override_name;  // streamparse's -N: the name on the cluster
  std::string nimbus;
  std::vector<std::string> options;
  bool force = false;
  bool inactive = false;
  int wait = -1;
  bool dry_run = false;
  bool no_build = false;
  double timeout = 120;
  std::string python_version;
};

std::string ReadBytes(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream buf;
  buf << in.rdbuf();
  if (!in) throw base::Error(base::Errc::kIo, "cannot read " + path.string());
  return buf.str();
}

const storm::gen::TopologySummary* FindByName(const storm::gen::ClusterSummary& info,
                                              const std::string& name) {
  for (const auto& t : info.topologies) {
    if (t.__isset.name && t.name == name) return &t;
  }
  return nullptr;
}

std::string Describe(const storm::gen::TopologySummary& t) {
  std::string s = "status " + (t.__isset.status ? t.status : std::string("?"));
  if (t.__isset.id) s += ", id " + t.id;
  return s;
}

// Kills `name` and waits until Nimbus no longer lists it.
void KillAndWait(storm::NimbusClient& client, const std::string& name, int wait_secs) {
  std::optional<int> wait;
  if (wait_secs >= 0) wait = wait_secs;
  std::cerr << "killing the running `" << name << "` first"
            << (wait ? " (Storm waits " + std::to_string(*wait) + " s before removing it)" : "")
            << "\n";
  try {
    client.KillTopology(name, wait);
  } catch (const storm::NimbusError& e) {
    if (e.kind() != storm::NimbusErrorKind::kNotAlive) throw;
  }
  using Clock = std::chrono::steady_clock;
  const auto limit = std::chrono::seconds(wait.value_or(30) + 120);
  const auto deadline = Clock::now() + limit;
  auto interval = std::chrono::milliseconds(100);
  while (true) {
    const auto info = client.GetClusterInfo();
    const auto* t = FindByName(info, name);
    if (!t) break;
    if (Clock::now() >= deadline) {
      throw base::Error(
          base::Errc::kRemote,
          "`" + name + "` is still listed by Nimbus " +
              std::to_string(std::chrono::duration_cast<std::chrono::seconds>(limit).count()) +
              " s after the kill (" + Describe(*t) + "); try again later");
    }
    std::this_thread::sleep_for(interval);
    interval = std::min(interval * 2, std::chrono::milliseconds(2000));
  }
  std::cerr << "`" << name << "` is gone\n";
}

void EnsureNameFree(storm::NimbusClient& client, const std::string& name, const SubmitArgs& a) {
  const auto info = client.GetClusterInfo();
  if (const auto* t = FindByName(info, name)) {
    if (!a.force) {
      throw base::Error(base::Errc::kRemote,
                        "a topology named `" + name + "` is already alive on Nimbus " +
                            client.address().ToString() + " (" + Describe(*t) +
                            "); replace it with `sparse submit --force`, or stop it with "
                            "`sparse kill " +
                            name + "`");
    }
    KillAndWait(client, name, a.wait);
  }
  if (auto allowed = client.IsTopologyNameAllowed(name); allowed && !*allowed) {
    throw base::Error(base::Errc::kRemote, "Nimbus at " + client.address().ToString() +
                                               " does not allow the name `" + name +
                                               "` (in use, being killed, or invalid there)");
  }
}

class UploadProgress {
 public:
  explicit UploadProgress(std::string label) : label_(std::move(label)), tty_(::isatty(2) != 0) {}
  void Update(std::size_t sent, std::size_t total) {
    if (!tty_) return;
    constexpr std::size_t kWidth = 30;
    // Clamped: a jar that grew while being read must not draw past the bar.
    const double f =
        total ? std::clamp(static_cast<double>(sent) / static_cast<double>(total), 0.0, 1.0) : 1.0;
    const auto filled = static_cast<std::size_t>(f * kWidth);
    std::cerr << "\ruploading " << label_ << " [" << std::string(filled, '#')
              << std::string(kWidth - filled, '.') << "] " << static_cast<int>(f * 100) << "% of "
              << HumanBytes(total) << std::flush;
    shown_ = true;
  }
  void Done(std::size_t total) {
    if (shown_) std::cerr << "\r\033[K";
    std::cerr << "uploaded " << label_ << " (" << HumanBytes(total) << ")\n";
  }

 private:
  std::string label_;
  bool tty_;
  bool shown_ = false;
};

// streamparse's `submit -n NAME` picks the project topology NAME (and names it so on the
// cluster); ours names the cluster topology. Both hold when -n names a project topology and no
// topology argument is given.
std::optional<std::string> TopologyArg(const SubmitArgs& a) {
  if (a.topology || a.name.empty()) return a.topology;
  const auto project = CurrentProject();
  if (!project) return std::nullopt;
  for (const auto& file : ListTopologies(*project)) {
    if (file.stem() == a.name) return a.name;
  }
  return std::nullopt;
}

int Submit(const SubmitArgs& a, const runtime::BuiltinRegistry& builtins) {
  const std::string python_version = WorkerPythonVersion(a.python_version);
  std::string env_name = a.env;
  if (env_name.empty()) {
    // A streamparse project's only environment is used without -e, as streamparse does.
    if (auto project = CurrentProject(); project && project->streamparse) {
      env_name = project->DefaultEnvironment();
    }
  }
  const StormTopologySource source = LoadTopologyForStorm(TopologyArg(a), builtins, env_name);
  std::optional<Environment> env;
  if (!env_name.empty()) env = LoadEnvironment(source.project, env_name);
  if (env && source.project && source.project->streamparse) {
    // streamparse lets the topology's config win over the environment's options.
    for (const auto& [key, value] : source.topology.config.items()) env->options.erase(key);
  }
  const nlohmann::json overrides = ParseOverrides(a.options);
  const std::string name = !a.override_name.empty() ? a.override_name
                           : a.name.empty()         ? source.topology.name
                                                    : a.name;
  if (auto why = storm::CheckTopologyName(name)) {
    throw base::Error(base::Errc::kInvalidTopology, *why);
  }
  const storm::Conversion conversion = storm::ToStormTopology(source.topology, overrides);
  for (const auto& w : conversion.warnings) {
    std::cerr << "sparse: warning: " << w.ToString() << "\n";
  }
  const nlohmann::json conf = storm::MakeJsonConf(
      source.topology, env ? env->TopologyOptions() : nlohmann::json::object(), overrides);
  const auto seeds = NimbusSeeds(a.nimbus, env);

  BuildComponentsForJar(source, a.no_build);
  const fs::path jar_path = DefaultJarPath(source);
  const storm::JarContents contents = storm::WriteJar(
      source.topology, {PythonAdapterDir(), jar_path, JarSitePackages(source, python_version)},
      jar_path);
  for (const auto& w : contents.warnings) std::cerr << "sparse: warning: " << w << "\n";
  const std::string jar = ReadBytes(jar_path);
  std::cerr << "wrote " << jar_path.string() << " (" << contents.entries.size() << " files, "
            << HumanBytes(jar.size()) << ")\n";

  if (a.dry_run) {
    nlohmann::json seeds_json = nlohmann::json::array();
    for (const auto& s : seeds) seeds_json.push_back(s.ToString());
    const nlohmann::json out = {
        {"name", name},
        {"nimbus", seeds_json},
        {"jar", jar_path.string()},
        {"jar_bytes", jar.size()},
        {"initial_status", a.inactive ? "INACTIVE" : "ACTIVE"},
        {"jsonConf", conf},
        {"topology", storm::StormTopologyToJson(conversion.topology)},
    };
    std::cout << out.dump(2) << "\n";
    std::cerr << "dry run: nothing was sent to Nimbus\n";
    return kExitOk;
  }

  auto client = ConnectLeader(seeds, MakeClientOptions(a.timeout));
  EnsureNameFree(*client, name, a);
  UploadProgress progress(jar_path.filename().string());
  const std::string location = client->UploadJar(
      jar, [&](std::size_t sent, std::size_t total) { progress.Update(sent, total); });
  progress.Done(jar.size());
  client->SubmitTopology(name, location, conf.dump(), conversion.topology, !a.inactive);

  std::string id;
  try {
    const auto info = client->GetClusterInfo();
    if (const auto* t = FindByName(info, name); t && t->__isset.id) id = t->id;
  } catch (const storm::NimbusError&) {
    // Submitted; the id is only a convenience.
  }
  std::cerr << "submitted `" << name << "` to Nimbus " << client->address().ToString() << " ("
            << (a.inactive ? "inactive: `sparse activate " + name + "` starts it" : "active")
            << "); `sparse list` shows it, `sparse kill " << name << "` stops it\n";
  std::cout << (id.empty() ? name : id) << "\n";
  return kExitOk;
}

}  // namespace

void RegisterSubmit(CLI::App& app, Action& action, const runtime::BuiltinRegistry& builtins) {
  auto args = std::make_shared<SubmitArgs>();
  CLI::App* cmd = app.add_subcommand("submit", "Submit a topology to an Apache Storm cluster");
  cmd->footer(
      R"(Builds the jar (see `sparse jar`), finds the Nimbus leader, uploads the jar and submits
the topology. Its config is the topology's `config`, then the environment's `workers`
and `options`, then -o overrides. Prints the new topology's id on stdout.

Examples:
  sparse submit -e prod                    Nimbus, workers and options from sparse.yaml
  sparse submit --nimbus nimbus.example.com:6627 -o topology.workers=4
  sparse submit -e prod --force --wait 10  replace the running topology of that name
  sparse submit -e prod --dry-run          print what would be sent, write the jar only)");
  cmd->add_option("topology", args->topology, "Topology file, or the name of one in the project");
  cmd->add_option("-e,--env,--environment", args->env,
                  "Environment from sparse.yaml or config.json (nimbus, workers, options)");
  cmd->add_option("-n,--name", args->name,
                  "Name on the cluster (default: the topology's name); without a topology "
                  "argument, also the project topology of that name, as in streamparse");
  cmd->add_option("-N,--override_name", args->override_name,
                  "Name on the cluster when -n picks the topology (streamparse's flag)");
  cmd->add_option("--nimbus", args->nimbus,
                  "Nimbus HOST:PORT (default: the environment's `nimbus`, else localhost:6627)");
  cmd->add_option("-o,--option", args->options,
                  "Set a topology config key: key=value (value parsed as YAML); repeatable")
      ->allow_extra_args(false);
  AddStreamparseOptionFlags(*cmd, args->options);
  AddIgnoredStreamparseFlags(*cmd, "submit");
  AddPythonVersionOption(*cmd, args->python_version);
  cmd->add_flag_callback(
      "-d,--debug", [args] { args->options.push_back("topology.debug=true"); },
      "Sets topology.debug=true");
  cmd->add_flag("-f,--force", args->force,
                "Kill a running topology of the same name first, and wait until it is gone");
  cmd->add_flag("-i,--inactive", args->inactive,
                "Submit deactivated (start with `sparse activate`)");
  cmd->add_option("--wait", args->wait,
                  "With --force: seconds Storm lets the old topology drain before removing it")
      ->check(CLI::Range(0, 100000000));
  cmd->add_flag("--dry-run", args->dry_run,
                "Write the jar and print the topology and config as JSON; send nothing");
  cmd->add_flag("--no-build", args->no_build,
                "Do not build the project's C++ components (CMakeLists.txt) first");
  cmd->add_option("--timeout", args->timeout, "Seconds to wait for each Nimbus reply (default 120)")
      ->check(Seconds(false));
  cmd->callback([args, &action, &builtins] {
    action = [args, &builtins] { return Submit(*args, builtins); };
  });
}

}  // namespace sparse::cli
