// What `sparse run` adds so a running topology can be seen: the web view on the cluster's loop,
// a fan-out so the console and the web view get the same snapshots (the end-of-run table and
// the web page show the same numbers), and the run-state file through which `sparse stats` and
// `sparse tail` find the run (`<project or topology folder>/.sparse/run.json`).
#pragma once

#include <CLI/CLI.hpp>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>

#include "runtime/fanout_observer.hpp"
#include "runtime/local_cluster.hpp"
#include "runtime/plan.hpp"

namespace sparse::web {
class WebUi;
}

namespace sparse::cli {

struct UiArgs {
  bool no_ui = false;
  std::uint16_t port = 0;  // 0: a free port chosen by the OS
  std::string bind = "127.0.0.1";
};

// Adds --no-ui, --ui-port and --ui-bind to `sparse run`.
void AddUiOptions(CLI::App& cmd, UiArgs& ui);

// The run-state file: where a running `sparse run` can be reached.
struct RunState {
  int pid = 0;
  std::uint64_t pid_start = 0;  // the run's start time (ProcessIdentity): a reused pid is stale
  std::string topology;         // name
  std::string id;               // id in the web API
  std::string url;              // empty with --no-ui
  std::uint16_t port = 0;
  std::string bind;
  std::string log_dir;
  std::string file;  // the topology file
  std::int64_t started_ms = 0;
  std::string kafka;  // the embedded Kafka broker's address, when the run started one
};

std::filesystem::path RunStatePath(const std::filesystem::path& dir);  // dir/.sparse/run.json
// Writes atomically (temporary file, then rename). Throws std::runtime_error on failure.
void WriteRunState(const std::filesystem::path& path, const RunState& state);
// nullopt when the file is missing or unreadable.
std::optional<RunState> ReadRunState(const std::filesystem::path& path);
// The run that wrote the state is still running (the same process, not a reused pid).
bool RunAlive(const RunState& state);

struct FoundRun {
  std::filesystem::path path;
  RunState state;
};
// The run-state file of a live run in `start` or one of its parents. When only stale files
// (their process is gone) are found, `stale` names the first one.
std::optional<FoundRun> FindRun(const std::filesystem::path& start,
                                std::optional<std::filesystem::path>* stale = nullptr);

class RunObservability {
 public:
  // `console` must outlive this object; create it before the cluster, which observes
  // observer().
  RunObservability(runtime::ClusterObserver& console, std::filesystem::path log_dir);
  ~RunObservability();
  runtime::ClusterObserver* observer() { return &fanout_; }
  // The embedded Kafka broker of the run (run_kafka.hpp), recorded in the run-state file.
  void set_kafka(std::string address) { kafka_ = std::move(address); }

  // The live part of a run's observability. Destroy it before the cluster (it holds sockets on
  // the cluster's loop); it removes the run-state file.
  class Live {
   public:
    ~Live();
    const std::string& url() const { return url_; }

   private:
    friend class RunObservability;
    Live() = default;
    runtime::FanoutObserver* fanout_ = nullptr;
    std::unique_ptr<web::WebUi> ui_;
    std::filesystem::path state_path_;
    std::string url_;
  };

  // Starts the web view on the cluster's loop (unless args.no_ui), prints its URL on stderr and
  // writes the run-state file into `state_dir`/.sparse. Throws std::runtime_error when the
  // address cannot be bound.
  std::unique_ptr<Live> Start(runtime::LocalCluster& cluster, const runtime::Topology& topology,
                              const runtime::Plan& plan, const UiArgs& args,
                              const std::filesystem::path& state_dir);

 private:
  runtime::FanoutObserver fanout_;
  std::filesystem::path log_dir_;
  std::string kafka_;
};

}  // namespace sparse::cli
