// `sparse tail`: the per-component logs of a local run (`<log dir>/<component>.log`), one
// component or all of them interleaved by time, optionally followed as they grow.
#include <fnmatch.h>
#include <algorithm>

#include <cctype>
#include <fstream>
#include <iostream>
#include <map>
#include <thread>

#include "cli/observability_commands.hpp"
#include "cli/project.hpp"
#include "cli/run_observability.hpp"

namespace sparse::cli {

namespace fs = std::filesystem;

namespace {

// `tail` reads the logs of a `sparse run` on this machine. Asked about a Storm cluster topology
// (-e ENV or --nimbus), it says where Storm keeps them: sparse does not read Storm's logviewer.
struct ClusterTarget {
  std::string env;
  std::string nimbus;
  bool Asked() const { return !env.empty() || !nimbus.empty(); }
};

void AddClusterTargetOptions(CLI::App* cmd, ClusterTarget& target) {
  cmd->add_option("-e,--env,--environment", target.env,
                  "A topology on this environment's Storm cluster: says where its logs are");
  cmd->add_option("--nimbus", target.nimbus,
                  "A topology on the Storm cluster of this Nimbus: says where its logs are");
}

int RefuseClusterTopology(const std::string& command, const ClusterTarget& target,
                          const std::string& where) {
  const std::string cluster =
      target.nimbus.empty() ? "environment `" + target.env + "`" : "Nimbus " + target.nimbus;
  std::cerr << "sparse: error: `sparse " << command
            << "` reads a topology that `sparse run` runs on this machine; it does not read a "
               "Storm cluster ("
            << cluster << ") yet. " << where
            << ". `sparse list` shows each cluster topology's status, workers, executors and "
               "tasks.\n";
  return ExitCode(base::Errc::kUsage);
}

constexpr std::uintmax_t kMaxInitialBytes = 4 << 20;  // per file, for the last -n entries
constexpr auto kPollEvery = std::chrono::milliseconds(200);

struct TailArgs {
  ClusterTarget cluster;
  std::optional<std::string> component;
  bool follow = false;
  int lines = 10;
  std::string topology;  // streamparse's -n NAME: checked against the project's topologies
  std::string pattern;   // streamparse's --pattern: a shell glob over the log files' names
  std::string log_dir;
};

// `-n VALUE`: a count of entries (ours, and Unix tail's), or streamparse's topology name.
void SetLinesOrName(TailArgs& args, const std::string& value) {
  const bool number =
      !value.empty() && value.size() < 9 &&
      std::all_of(value.begin(), value.end(), [](unsigned char c) { return std::isdigit(c); });
  if (number) {
    args.lines = std::stoi(value);
  } else {
    args.topology = value;
  }
}

// One log entry: a line starting with a timestamp ("YYYY-MM-DD HH:MM:SS.mmm ") and the lines
// without one that follow it (a failure's stderr tail).
struct Entry {
  std::string stamp;  // empty for continuation lines whose entry was printed before
  std::string component;
  std::vector<std::string> lines;
};

bool Stamped(std::string_view line) {
  static constexpr std::string_view kShape = "dddd-dd-dd dd:dd:dd.ddd ";
  if (line.size() < kShape.size()) return false;
  for (std::size_t i = 0; i < kShape.size(); ++i) {
    const char c = line[i];
    if (kShape[i] == 'd' ? !std::isdigit(static_cast<unsigned char>(c)) : c != kShape[i]) {
      return false;
    }
  }
  return true;
}

// A log file read incrementally: only complete lines are returned.
class LogFile {
 public:
  LogFile(fs::path path, std::string component)
      : path_(std::move(path)), component_(std::move(component)) {}
  const std::string& component() const { return component_; }

  // New entries since the last call. The first call starts `max_bytes` before the end.
  std::vector<Entry> ReadNew(std::uintmax_t max_bytes = UINTMAX_MAX) {
    std::vector<Entry> out;
    std::error_code ec;
    const std::uintmax_t size = fs::file_size(path_, ec);
    if (ec) return out;
    if (size < offset_) {  // truncated or replaced: start again
      offset_ = 0;
      partial_.clear();
    }
    bool skip_first = false;
    if (first_ && size > max_bytes) {
      offset_ = size - max_bytes;
      skip_first = true;  // most likely the middle of a line
    }
    first_ = false;
    if (size == offset_) return out;
    std::ifstream in(path_, std::ios::binary);
    in.seekg(static_cast<std::streamoff>(offset_));
    std::string data(size - offset_, '\0');
    in.read(data.data(), static_cast<std::streamsize>(data.size()));
    data.resize(static_cast<std::size_t>(in.gcount()));
    offset_ += data.size();
    partial_ += data;
    std::size_t start = 0;
    for (std::size_t nl; (nl = partial_.find('\n', start)) != std::string::npos; start = nl + 1) {
      std::string line = partial_.substr(start, nl - start);
      if (skip_first) {
        skip_first = false;
        continue;
      }
      if (Stamped(line) || out.empty()) {
        out.push_back({Stamped(line) ? line.substr(0, 23) : "", component_, {}});
      }
      out.back().lines.push_back(std::move(line));
    }
    partial_.erase(0, start);
    return out;
  }

 private:
  fs::path path_;
  std::string component_;
  std::uintmax_t offset_ = 0;
  std::string partial_;
  bool first_ = true;
};

// The components with a log in `dir` whose file name matches `pattern` (all when empty).
std::vector<std::string> Components(const fs::path& dir, const std::string& pattern = "") {
  std::vector<std::string> out;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(dir, ec)) {
    if (e.path().extension() != ".log") continue;
    const std::string name = e.path().filename().string();
    if (!pattern.empty() && ::fnmatch(pattern.c_str(), name.c_str(), 0) != 0) continue;
    out.push_back(e.path().stem().string());
  }
  std::sort(out.begin(), out.end());
  return out;
}

class Printer {
 public:
  explicit Printer(bool prefix) : prefix_(prefix) {}
  void SetWidth(std::size_t w) { width_ = std::max(width_, w); }
  // False once stdout is gone (a closed pipe).
  bool Print(std::vector<Entry>& entries) {
    std::stable_sort(entries.begin(), entries.end(),
                     [](const Entry& a, const Entry& b) { return a.stamp < b.stamp; });
    for (const auto& e : entries) {
      for (const auto& l : e.lines) {
        if (prefix_) {
          std::cout << e.component
                    << std::string(width_ - std::min(width_, e.component.size()), ' ') << " | ";
        }
        std::cout << l << '\n';
      }
    }
    std::cout.flush();
    return static_cast<bool>(std::cout);
  }

 private:
  bool prefix_;
  std::size_t width_ = 0;
};

int Tail(const TailArgs& args) {
  if (args.cluster.Asked()) {
    return RefuseClusterTopology(
        "tail", args.cluster,
        "On a Storm cluster the components' log lines are in the worker logs of each supervisor "
        "machine, <storm.log.dir>/workers-artifacts/<topology id>/<port>/worker.log (a line "
        "`ShellLog pid:PID, name:COMPONENT MESSAGE` per log call; Storm's logviewer serves them, "
        "port 8000 by default, when it runs); scripts/storm-cluster.sh keeps them in "
        "DIR/logs/workers-artifacts/");
  }
  if (!args.topology.empty()) {
    // streamparse's -n names the topology: locally, the logs are the run's, in one folder.
    try {
      ResolveTopology(args.topology, FindProject(fs::current_path()));
    } catch (const std::runtime_error& e) {
      std::cerr << "sparse: error: " << e.what() << " (-n takes a number of entries, or "
                << "streamparse's topology name)\n";
      return ExitCode(base::Errc::kUsage);
    }
  }
  const fs::path dir = LocalLogDir(args.log_dir);
  if (!fs::is_directory(dir)) {
    std::cerr << "sparse: error: no logs in " << dir.string()
              << " (run a topology first, or give --log-dir)\n";
    return ExitCode(base::Errc::kNotFound);
  }
  std::map<std::string, LogFile> files;
  auto add = [&](const std::string& component) {
    files.try_emplace(component, dir / (component + ".log"), component);
  };
  if (args.component) {
    if (!fs::exists(dir / (*args.component + ".log")) && !args.follow) {
      std::string known;
      for (const auto& c : Components(dir)) known += " " + c;
      std::cerr << "sparse: error: no log of `" << *args.component << "` in " << dir.string()
                << (known.empty() ? "" : "; there are:" + known) << "\n";
      return ExitCode(base::Errc::kNotFound);
    }
    add(*args.component);
  } else {
    for (const auto& c : Components(dir, args.pattern)) add(c);
    if (files.empty() && !args.pattern.empty() && !args.follow) {
      std::cerr << "sparse: error: no log in " << dir.string() << " matches --pattern `"
                << args.pattern << "`\n";
      return ExitCode(base::Errc::kNotFound);
    }
  }
  Printer printer(!args.component);
  for (const auto& [c, _] : files) printer.SetWidth(c.size());

  std::vector<Entry> initial;
  for (auto& [_, f] : files) {
    auto e = f.ReadNew(kMaxInitialBytes);
    initial.insert(initial.end(), std::make_move_iterator(e.begin()),
                   std::make_move_iterator(e.end()));
  }
  std::stable_sort(initial.begin(), initial.end(),
                   [](const Entry& a, const Entry& b) { return a.stamp < b.stamp; });
  const std::size_t keep = static_cast<std::size_t>(std::max(0, args.lines));
  if (initial.size() > keep)
    initial.erase(initial.begin(), initial.end() - static_cast<std::ptrdiff_t>(keep));
  if (!printer.Print(initial)) return kExitOk;

  while (args.follow) {
    std::this_thread::sleep_for(kPollEvery);
    if (!args.component) {
      for (const auto& c : Components(dir, args.pattern)) {
        if (!files.count(c)) {
          add(c);
          printer.SetWidth(c.size());
        }
      }
    }
    std::vector<Entry> fresh;
    for (auto& [_, f] : files) {
      auto e = f.ReadNew();
      fresh.insert(fresh.end(), std::make_move_iterator(e.begin()),
                   std::make_move_iterator(e.end()));
    }
    if (!fresh.empty() && !printer.Print(fresh)) return kExitOk;
  }
  return kExitOk;
}

}  // namespace

fs::path LocalLogDir(const std::string& flag) {
  if (!flag.empty()) return flag;
  if (auto run = FindRun(fs::current_path()); run && !run->state.log_dir.empty()) {
    return run->state.log_dir;
  }
  if (auto project = FindProject(fs::current_path())) return project->root / "logs";
  return fs::current_path() / "logs";
}

void RegisterTail(CLI::App& app, Action& action) {
  auto args = std::make_shared<TailArgs>();
  CLI::App* cmd = app.add_subcommand("tail", "Show (and follow) the component logs of a local run");
  cmd->footer(R"(Reads <log dir>/<component>.log: the log dir of the run in this folder (from
.sparse/run.json), else the project's logs/, else ./logs. Without a component, every
component's log is shown, interleaved by time, each line prefixed by its component.

Examples:
  sparse tail                 the last 10 entries of all components
  sparse tail count -n 50     the last 50 entries of `count`
  sparse tail -f              follow every component (Ctrl-C stops)
  sparse tail --pattern 'count*'   the logs whose file name matches (streamparse's flag)
  sparse tail -n wordcount    streamparse's -n NAME (the topology) is accepted too)");
  cmd->add_option("component", args->component, "Only this component");
  cmd->add_flag("-f,--follow", args->follow, "Keep printing entries as they are written");
  cmd->add_option_function<std::string>(
      "-n", [args](const std::string& v) { SetLinesOrName(*args, v); },
      "How many of the last entries to show (default 10); a name instead of a number is "
      "streamparse's -n NAME, the topology");
  cmd->add_option("--lines,-l,--num_lines", args->lines,
                  "How many of the last entries to show (-l/--num_lines: streamparse's)");
  cmd->add_option("--name", args->topology, "The topology (streamparse's flag; checked)");
  cmd->add_option("--pattern", args->pattern,
                  "Only the logs whose file name matches this shell pattern (e.g. 'count*')");
  cmd->add_option("--log-dir", args->log_dir, "Where the logs are (default: see below)");
  AddClusterTargetOptions(cmd, args->cluster);
  cmd->callback([args, &action] { action = [args] { return Tail(*args); }; });
}

}  // namespace sparse::cli
