// `sparse run [TOPOLOGY]`: validate, start every task, show progress and live status, drain on
// Ctrl-C or time limit, and print a table per component at the end.
#include <stdlib.h>
#include <sys/resource.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <iostream>

#include "cli/commands.hpp"
#include "cli/component_build.hpp"
#include "cli/console.hpp"
#include "cli/duration_option.hpp"
#include "cli/paths.hpp"
#include "cli/peak_rss.hpp"
#include "cli/project.hpp"
#include "cli/python_deps.hpp"
#include "cli/python_topology.hpp"
#include "cli/run_dir.hpp"
#include "cli/run_guard.hpp"
#include "cli/run_kafka.hpp"
#include "cli/run_observability.hpp"
#include "cli/streamparse_project.hpp"
#include "runtime/config.hpp"
#include "runtime/local_cluster.hpp"
#include "runtime/plan.hpp"
#include "runtime/topology_loader.hpp"
#include "runtime/validate.hpp"
#include "runtime/yaml_json.hpp"
#include "storm/jar.hpp"

namespace sparse::cli {

namespace fs = std::filesystem;

namespace {

struct RunArgs {
  std::optional<std::string> topology;
  std::string name;  // streamparse's -n: the project topology of that name
  std::string env;   // -e: the project environment (streamparse's per-environment `par`)
  double seconds = 0;
  std::vector<std::string> options;
  bool debug = false;
  bool no_build = false;
  double stop_when_idle = 0;
  double wait = -1;
  std::string log_dir;
  std::string stats_json;
  std::string jar;  // --jar: run a built jar as a Storm worker would (storm/jar.hpp)
  UiArgs ui;        // --no-ui, --ui-port, --ui-bind (run_observability.hpp)
};

int PrintTopologyErrors(const runtime::TopologyError& e) {
  const Style style = Style::ForStderr();
  std::cerr << style.Paint("invalid topology:", "31") << "\n";
  for (const auto& d : e.diagnostics()) std::cerr << "  " << d.ToString() << "\n";
  return ExitCode(base::Errc::kInvalidTopology);
}

int RunTopology(const RunArgs& args, const runtime::BuiltinRegistry& builtins) {
  const auto project = FindProject(fs::current_path());
  fs::path file;
  std::unique_ptr<storm::ExtractedJar> jar;
  std::optional<std::string> topology_arg = args.topology;
  if (!args.name.empty()) {
    if (topology_arg) throw std::runtime_error("give the topology either as an argument or -n");
    topology_arg = args.name;
  }
  if (!args.jar.empty()) {
    if (topology_arg) throw std::runtime_error("give either a topology or --jar, not both");
    jar = std::make_unique<storm::ExtractedJar>(args.jar);
    file = jar->topology_file();
  } else if (topology_arg || project) {
    file = ResolveTopology(topology_arg, project);
  } else {
    file = ResolveTopology(std::nullopt, project);
  }
  if (!jar) {
    // The topology's Python requirements, in its cached virtualenv (python_deps.hpp), before
    // the topology is evaluated: a .py topology imports its components.
    try {
      UseTopologyVirtualenv(file);
    } catch (const base::Error& e) {
      return ReportFailure(e);
    }
  }
  if (!jar && !args.no_build) {
    // Compiled components are built before anything starts (C++ projects have a CMakeLists.txt).
    if (auto owner = FindProject(file.parent_path()); owner && HasComponentBuild(*owner)) {
      if (!BuildProjectComponents(*owner)) return ExitCode(base::Errc::kStartFailed);
    }
  }

  nlohmann::json overrides = nlohmann::json::object();
  for (const auto& o : args.options) {
    auto kv = runtime::ParseOverride(o);
    if (!kv) {
      std::cerr << "sparse: error: -o expects key=value, got `" << o << "`\n";
      return ExitCode(base::Errc::kUsage);
    }
    overrides[kv->first] = kv->second;
  }
  if (args.debug) overrides[runtime::keys::kDebug] = true;
  // A streamparse project without -e uses its only environment, as streamparse does.
  const std::string env = !args.env.empty()                         ? args.env
                          : project && project->streamparse && !jar ? project->DefaultEnvironment()
                                                                    : std::string();
  runtime::Topology topology;
  runtime::Plan plan;
  try {
    topology = jar ? runtime::LoadTopology(file, builtins) : LoadAnyTopology(file, builtins, env);
    if (jar) topology.resources_dir = jar->resources_dir();
  } catch (const runtime::TopologyError& e) {
    return PrintTopologyErrors(e);
  }
  std::vector<runtime::ConfigSource> extra_config = {{{"command line (-o)"}, overrides}};
  if (!env.empty() && !jar) {
    // The environment's options apply under the topology's and the command line's, as
    // streamparse applies them.
    if (!project)
      throw std::runtime_error("-e " + env + " needs a project (sparse.yaml or config.json)");
    const YAML::Node envs = project->config["environments"];
    if (!envs || !envs.IsMap() || !envs[env]) {
      throw std::runtime_error("no environment `" + env + "` in " + project->config_file.string());
    }
    if (const YAML::Node opts = envs[env]["options"]; opts && opts.IsMap()) {
      runtime::ConfigSource options{
          {project->config_file.string() + " (environment `" + env + "` options)"}};
      for (const auto& kv : opts) {
        const std::string key = kv.first.as<std::string>();
        if (!overrides.contains(key) && !topology.config.contains(key)) {
          overrides[key] = options.config[key] = runtime::YamlToJson(kv.second);
        }
      }
      extra_config.insert(extra_config.begin(), std::move(options));
    }
  }
  try {
    runtime::ValidateOrThrow(topology, builtins, extra_config);
  } catch (const runtime::TopologyError& e) {
    return PrintTopologyErrors(e);
  }
  for (const auto& w : runtime::ConfigWarnings(topology, builtins, extra_config)) {
    std::cerr << "sparse: warning: " << w.ToString() << "\n";
  }

  // Before the plan: it copies the configuration that the broker's address goes into.
  std::unique_ptr<RunKafka> embedded_kafka;
  try {
    embedded_kafka = RunKafka::StartIfAsked(topology, overrides);
  } catch (const std::exception& e) {
    std::cerr << "sparse: " << e.what() << "\n";
    return ExitCode(base::Errc::kIo);
  }

  try {
    plan = runtime::MakePlan(topology, overrides);
  } catch (const runtime::TopologyError& e) {
    return PrintTopologyErrors(e);
  }

  runtime::ClusterOptions options;
  // Leftovers of runs killed with -9 go first; this run's folder goes on every way out.
  RemoveStaleRunDirs();
  const RunDir run_dir;
  options.task.pid_root = (run_dir.path() / "pids").string();
  options.task.working_dir = topology.resources_dir;
  std::string pythonpath = PythonAdapterDir().string();
  if (const char* existing = std::getenv("PYTHONPATH"); existing && *existing) {
    pythonpath += ":" + std::string(existing);
  }
  options.task.env_overrides["PYTHONPATH"] = pythonpath;
  // Marks every process of this run, so that none outlives it (run_guard.hpp).
  const RunGuard guard;
  options.task.env_overrides[kRunIdEnv] = guard.id();
  // streamparse's components run as `streamparse_run module.Class`: sparse's own comes after
  // PATH, so an installed streamparse (an activated virtualenv) is used first. Not for a jar,
  // which runs as on a worker without sparse: its launchers bring their own.
  if (!jar) {
    std::string path = std::getenv("PATH") ? std::getenv("PATH") : "/usr/bin:/bin";
    ::setenv("PATH", (path + ":" + (ShareDir() / "bin").string()).c_str(), 1);
  }
  // Python children print tracebacks promptly and never buffer the protocol pipe.
  options.task.env_overrides["PYTHONUNBUFFERED"] = "1";
  if (!args.log_dir.empty()) {
    options.log_dir = args.log_dir;
  } else {
    options.log_dir = (project ? project->root
                       : jar   ? fs::current_path()
                               : file.parent_path()) /
                      "logs";
  }
  if (args.seconds > 0) {
    options.run_for = std::chrono::milliseconds(static_cast<std::int64_t>(args.seconds * 1000));
  }
  if (args.stop_when_idle > 0) {
    options.stop_when_idle =
        std::chrono::milliseconds(static_cast<std::int64_t>(args.stop_when_idle * 1000));
  }
  if (args.wait >= 0) {
    options.drain_timeout = std::chrono::milliseconds(static_cast<std::int64_t>(args.wait * 1000));
  }

  const Style style = Style::ForStderr();
  ConsoleWriter console_out(STDERR_FILENO);
  ConsoleObserver console(topology.name, args.debug, style, console_out, options.log_dir.string());
  std::cerr << "topology " << topology.name << " from " << file.string() << " (" << plan.num_tasks()
            << " tasks; logs in " << options.log_dir.string() << ")\n";
  RunObservability observability(console, options.log_dir);
  if (embedded_kafka) observability.set_kafka(embedded_kafka->address());
  runtime::LocalCluster cluster(plan, builtins, std::move(options), observability.observer());
  auto live = observability.Start(cluster, topology, plan, args.ui,
                                  project ? project->root
                                  : jar   ? fs::current_path()
                                          : fs::absolute(file).parent_path());
  // From here until the loop ends, the console is written by its own thread (ConsoleWriter).
  console_out.Start();
  const runtime::RunStatus status = cluster.Run();
  live.reset();
  console_out.Stop();

  PrintSummary(std::cout, console.last());
  std::cout.flush();
  if (!args.stats_json.empty()) {
    // The runtime's own CPU time next to its children's, for benchmarks: the host must not be
    // the bottleneck.
    auto stats = nlohmann::json::parse(SnapshotJson(console.last(), topology.name));
    auto secs = [](const timeval& tv) {
      return static_cast<double>(tv.tv_sec) + static_cast<double>(tv.tv_usec) / 1e6;
    };
    rusage self{}, children{};
    ::getrusage(RUSAGE_SELF, &self);
    ::getrusage(RUSAGE_CHILDREN, &children);
    stats["cpu"] = {{"runtime_user_secs", secs(self.ru_utime)},
                    {"runtime_system_secs", secs(self.ru_stime)},
                    {"components_user_secs", secs(children.ru_utime)},
                    {"components_system_secs", secs(children.ru_stime)},
                    {"runtime_max_rss_kb", PeakRssKb()}};
    std::ofstream(args.stats_json) << stats.dump(2) << "\n";
  }
  if (auto never = KafkaNeverReached(topology, overrides, console.last())) {
    std::cerr << style.Paint("sparse: ", "31") << *never << "\n";
    if (status == runtime::RunStatus::kOk) return ExitCode(base::Errc::kRemote);
  }
  return ExitCode(status);
}

}  // namespace

void RegisterRun(CLI::App& app, Action& action, const runtime::BuiltinRegistry& builtins) {
  auto args = std::make_shared<RunArgs>();
  CLI::App* cmd = app.add_subcommand("run", "Run a topology on this machine");
  cmd->footer(R"(Examples:
  sparse run                      the project's topology (inside a project)
  sparse run wordcount -t 30      a named project topology, for 30 seconds
  sparse run path/to/flux.yaml -o topology.max.spout.pending=100 -o topology.debug=true)");
  cmd->add_option("topology", args->topology, "Topology file, or the name of one in the project");
  cmd->add_option("-n,--name", args->name,
                  "The project topology of this name (streamparse's flag; same as the argument)");
  cmd->add_option("-e,--env,--environment", args->env,
                  "Project environment: its `options`, and `par` per environment in streamparse "
                  "topologies (default: the project's only environment)");
  cmd->add_option("-t,--time", args->seconds, "Stop (draining) after this many seconds")
      ->check(Seconds(false));
  AddStreamparseOptionFlags(*cmd, args->options);
  AddIgnoredStreamparseFlags(*cmd, "run");
  cmd->add_option("-o,--option", args->options,
                  "Override a config key for every component: key=value (value parsed as YAML)");
  cmd->add_flag("-d,--debug", args->debug, "Show debug logs; sets topology.debug=true");
  cmd->add_flag("--no-build", args->no_build,
                "Do not build the project's C++ components (CMakeLists.txt) before running");
  cmd->add_option("--stop-when-idle", args->stop_when_idle,
                  "Stop once nothing has been emitted or acked for this many seconds, no "
                  "tuple is pending and no task is restarting")
      ->check(Seconds(false));
  cmd->add_option("--wait", args->wait,
                  "Seconds to let in-flight tuples finish when stopping (default: "
                  "topology.message.timeout.secs)")
      ->check(Seconds(true));
  cmd->add_option("--log-dir", args->log_dir, "Where per-component logs go (default: logs/)");
  cmd->add_option("--stats-json", args->stats_json, "Write the final statistics as JSON to FILE");
  cmd->add_option("--jar", args->jar,
                  "Run a jar built by `sparse jar` as a Storm worker would: extracted, resources/ "
                  "as working directory, each component started by its launcher");
  AddUiOptions(*cmd, args->ui);
  cmd->callback([args, &action, &builtins] {
    action = [args, &builtins] { return RunTopology(*args, builtins); };
  });
}

}  // namespace sparse::cli
