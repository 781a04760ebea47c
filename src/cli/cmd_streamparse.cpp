// streamparse's commands that act on its SSH-and-virtualenv model, kept so a streamparse user's
// muscle memory works, each doing what it means here:
//
//   sparse update_virtualenv [-n NAME] [--overwrite_virtualenv]
//       streamparse built a virtualenv on every worker over SSH. sparse does not: the packages
//       travel in the jar and `sparse run` uses a cached local virtualenv (python_deps.hpp). The
//       command says so, checks the topology's requirements (the file exists, every line reads),
//       and brings the local virtualenv up to date (--overwrite_virtualenv rebuilds it).
//   sparse remove_logs [-n NAME] [--log-dir DIR]
//       streamparse removed the topology's worker logs over SSH. Here: the component logs of the
//       local run (the log dir `sparse tail` reads), each named as it goes; refused while a run
//       still writes them.
#include <algorithm>
#include <iostream>

#include "cli/observability_commands.hpp"
#include "cli/project.hpp"
#include "cli/python_deps.hpp"
#include "cli/run_observability.hpp"
#include "cli/storm_commands.hpp"
#include "cli/streamparse_project.hpp"

namespace sparse::cli {

namespace fs = std::filesystem;

namespace {

struct VenvArgs {
  std::string name;
  std::string env;  // accepted: the requirements are the same in every environment
  bool overwrite = false;
};

int UpdateVirtualenv(const VenvArgs& a) {
  const auto project = CurrentProject();
  fs::path file;
  try {
    file = ResolveTopology(a.name.empty() ? std::nullopt : std::optional<std::string>(a.name),
                           project);
  } catch (const std::runtime_error& e) {
    throw base::Error(base::Errc::kNotFound, e.what());
  }
  const auto owner = FindProject(file.parent_path());
  const std::string topology = file.stem().string();
  std::cerr << "sparse builds no virtualenvs on workers: `sparse jar` and `sparse submit` put "
               "the topology's Python packages in the jar (resources/_sparse/site, installed "
               "with pip), and `sparse run` uses a cached local virtualenv (_build/venv/).\n";
  if (owner && owner->streamparse) {
    const fs::path expected = StreamparseRequirementsFile(*owner, topology);
    std::error_code ec;
    if (!fs::is_regular_file(expected, ec)) {
      throw base::Error(base::Errc::kNotFound, "no requirements file " + expected.string() +
                                                   " for topology `" + topology + "`");
    }
  }
  const auto requirements = owner ? FindRequirements(*owner, topology) : std::nullopt;
  if (!requirements) {
    std::cerr << "`" << topology << "` needs no packages beyond what sparse brings"
              << (owner && owner->streamparse ? "" : " (sparse.yaml has no python_requirements)")
              << "\n";
    return kExitOk;
  }
  std::cerr << requirements->file.string() << ": " << requirements->lines.size() << " requirement"
            << (requirements->lines.size() == 1 ? "" : "s") << ", all readable\n";
  const fs::path venv = EnsureVirtualenv(*owner, topology, *requirements, a.overwrite);
  std::cerr << "local virtualenv up to date: " << venv.string() << "\n";
  return kExitOk;
}

struct LogsArgs {
  std::string name;
  std::string env;  // accepted: the local run's logs are in one place
  std::string log_dir;
};

int RemoveLogs(const LogsArgs& a) {
  const fs::path dir = LocalLogDir(a.log_dir);
  if (auto run = FindRun(fs::current_path()); run && run->state.log_dir == dir.string()) {
    throw base::Error(base::Errc::kUsage, "the run of " + run->state.topology + " (pid " +
                                              std::to_string(run->state.pid) +
                                              ") still writes the logs in " + dir.string() +
                                              ": stop it first");
  }
  if (!a.name.empty()) {
    // streamparse's -n names the topology; locally one folder holds the run's logs.
    const auto project = CurrentProject();
    try {
      ResolveTopology(a.name, project);
    } catch (const std::runtime_error& e) {
      throw base::Error(base::Errc::kNotFound, e.what());
    }
  }
  std::error_code ec;
  std::vector<fs::path> logs;
  for (const auto& e : fs::directory_iterator(dir, ec)) {
    const std::string file = e.path().filename().string();
    // Component logs, and the rotated ones (NAME.log.1, ...).
    if (e.is_regular_file(ec) &&
        (e.path().extension() == ".log" || file.find(".log.") != std::string::npos)) {
      logs.push_back(e.path());
    }
  }
  std::sort(logs.begin(), logs.end());
  if (logs.empty()) {
    std::cerr << "no component logs in " << dir.string() << "\n";
    return kExitOk;
  }
  std::uintmax_t bytes = 0;
  for (const auto& p : logs) {
    std::error_code size_ec;
    const std::uintmax_t size = fs::file_size(p, size_ec);
    if (!fs::remove(p, ec) || ec) {
      throw base::Error(base::Errc::kIo, "cannot remove " + p.string() + ": " + ec.message());
    }
    if (!size_ec) bytes += size;
    std::cout << p.string() << "\n";
  }
  std::cerr << "removed " << logs.size() << " log" << (logs.size() == 1 ? "" : "s") << " ("
            << HumanBytes(bytes) << ") from " << dir.string() << "\n";
  return kExitOk;
}

}  // namespace

void RegisterStreamparseCommands(CLI::App& app, Action& action) {
  {
    auto args = std::make_shared<VenvArgs>();
    CLI::App* cmd = app.add_subcommand(
        "update_virtualenv",
        "Check the topology's Python requirements and update its local virtualenv");
    cmd->footer(R"(streamparse's command. sparse builds nothing on workers: the requirements
(virtualenvs/NAME.txt, or python_requirements in sparse.yaml) travel in the jar,
and `sparse run` uses a cached virtualenv in _build/venv/.

Examples:
  sparse update_virtualenv                        the project's only topology
  sparse update_virtualenv -n wordcount --overwrite_virtualenv)");
    cmd->add_option("-n,--name", args->name, "The topology (default: the project's only one)");
    cmd->add_flag("--overwrite_virtualenv", args->overwrite, "Rebuild the local virtualenv");
    cmd->add_option("-e,--environment", args->env,
                    "Accepted (streamparse's flag): the requirements are the same everywhere");
    cmd->callback([args, &action] { action = [args] { return UpdateVirtualenv(*args); }; });
  }
  {
    auto args = std::make_shared<LogsArgs>();
    CLI::App* cmd = app.add_subcommand("remove_logs", "Remove the component logs of the local run");
    cmd->footer(R"(streamparse removed worker logs on the cluster; a Storm cluster's logs are
Storm's own. This removes the logs `sparse tail` reads (<log dir>/*.log) and
prints each path removed. Refused while a run still writes them.

Examples:
  sparse remove_logs
  sparse remove_logs --log-dir /tmp/run-logs)");
    cmd->add_option("-n,--name", args->name, "The topology (checked; its logs are the run's)");
    cmd->add_option("-e,--environment", args->env, "Accepted (streamparse's flag)");
    cmd->add_option("--log-dir", args->log_dir, "Where the logs are (default: as `sparse tail`)");
    cmd->callback([args, &action] { action = [args] { return RemoveLogs(*args); }; });
  }
}

}  // namespace sparse::cli
