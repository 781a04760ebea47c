// The local cluster: one event loop that runs a whole topology on this machine.
//
// It owns the tasks, the router and the acker, implements the task hosts (task.hpp) for them,
// supervises (restart with backoff, crash-loop detection), applies backpressure, and drives
// start-up, the run and the drain. Everything happens on the thread that calls Run(); observers are
// called on it too.
//
// Start-up failures (a command that cannot start, no handshake) are fatal: the topology is wrong.
// Failures after a task has once been ready are restarted, only that task, until a crash loop.
#pragma once

#include <boost/asio/io_context.hpp>
#include <boost/asio/signal_set.hpp>
#include <boost/asio/steady_timer.hpp>
#include <chrono>
#include <deque>
#include <memory>
#include <optional>
#include <set>

#include <string>
#include <vector>
#include "multilang/loop_clock.hpp"

#include "runtime/acker.hpp"
#include "runtime/backpressure.hpp"
#include "runtime/capacity.hpp"
#include "runtime/component_logs.hpp"
#include "runtime/metrics.hpp"
#include "runtime/plan.hpp"
#include "runtime/restart_policy.hpp"
#include "runtime/router.hpp"
#include "runtime/task.hpp"

namespace sparse::runtime {

class BuiltinRegistry;

// Documented exit codes of `sparse run` (see `sparse --help`).
// How a run ended (the CLI maps it to an exit code: cli/exit_status.hpp).
enum class RunStatus : int {
  kOk,           // stopped as asked: time limit, Ctrl-C drain, idle stop
  kStartFailed,  // a component could not start or never completed its handshake
  kFailed,       // a component kept failing (crash loop) or the runtime could not go on
  kForced,       // a second Ctrl-C: stopped without draining
};

struct ClusterSnapshot {
  double uptime_secs = 0;
  std::string state;  // starting, running, draining, stopping, stopped
  std::vector<ComponentStats> components;
  std::size_t pending_trees = 0;
  int tasks_ready = 0;
  int tasks_total = 0;
  bool backpressure = false;
  // False while deactivated (Storm's INACTIVE): the spouts are not asked for tuples.
  bool active = true;
};

class ClusterObserver {
 public:
  virtual ~ClusterObserver() = default;
  virtual void OnStarting(int /*ready*/, int /*total*/) {}
  virtual void OnRunning() {}
  virtual void OnLog(const std::string& /*component*/, int /*task*/, int /*level*/,
                     std::string_view /*msg*/) {}
  virtual void OnStderr(const std::string& /*component*/, int /*task*/, std::string_view /*line*/) {
  }
  virtual void OnComponentError(const std::string& /*component*/, int /*task*/,
                                std::string_view /*msg*/) {}
  // `restart_in` is set when the task will be restarted.
  virtual void OnTaskFailure(const FailureReport& /*report*/,
                             std::optional<std::chrono::milliseconds> /*restart_in*/) {}
  virtual void OnStatus(const ClusterSnapshot& /*snapshot*/) {}
  virtual void OnStopping(const std::string& /*reason*/) {}
  virtual void OnFatal(const std::string& /*message*/) {}
};

struct ClusterOptions {
  TaskSettings task;
  std::filesystem::path log_dir;  // empty: no log files
  std::optional<std::chrono::milliseconds> run_for;
  std::optional<std::chrono::milliseconds> stop_when_idle;
  std::optional<std::chrono::milliseconds> drain_timeout;  // default: the message timeout
  std::chrono::milliseconds status_every{1000};
  bool handle_signals = true;  // SIGINT/SIGTERM: drain; a second one forces
};

class LocalCluster final : public TaskHost, public ProcessHost, public SpoutHost {
 public:
  // `builtins` creates the plan's built-in components: the registry the topology was loaded and
  // validated with (builtin_registry.hpp). `plan` and `builtins` must outlive the cluster.
  LocalCluster(const Plan& plan, const BuiltinRegistry& builtins, ClusterOptions options,
               ClusterObserver* observer);
  ~LocalCluster() override;

  // Runs until stopped; returns the exit status.
  RunStatus Run();
  // Asks for a graceful stop (from the loop's thread or a posted handler).
  void RequestStop(const std::string& reason);
  // Storm's deactivate and activate, on the loop's thread: a deactivated topology's spouts are
  // sent `deactivate` and no more `next` (built-in spouts stop being called); trees in flight
  // still complete. Activating sends `activate` and resumes. Tasks restarted meanwhile follow
  // the current setting. Before the topology runs it only sets what happens when it does.
  void SetActive(bool active);
  bool active() const { return active_; }
  // Storm's kill with a wait: deactivates now, and after `wait` stops the run as Ctrl-C does
  // (drain, then stop). On the loop's thread.
  void Kill(std::chrono::milliseconds wait, const std::string& reason);
  ClusterSnapshot Snapshot();
  boost::asio::io_context& io() override { return io_; }

  // TaskHost.
  const Plan& plan() const override { return plan_; }
  void Log(int task, multilang::LogLevel level, std::string_view msg) override;
  void ReportError(int task, std::string_view msg) override;
  void TaskReady(int task) override;
  void TaskFailed(FailureReport report) override;
  void NoteActivity() override {
    last_activity_ = multilang::LoopClock::Now();
    if (backpressure_.AnyHot()) CheckBackpressure();
  }
  // ProcessHost.
  const TaskSettings& settings() const override { return options_.task; }
  void StderrLine(int task, std::string_view line) override;
  // TupleHost.
  Acker& acker() override { return acker_; }
  IdGenerator& ids() override { return ids_; }
  std::optional<std::string> Route(int source_task, const EmittedTuple& tuple,
                                   std::optional<std::int64_t> direct_task,
                                   std::vector<int>& targets) override;
  void Deliver(int target_task, InputTuple&& tuple) override;
  // SpoutHost.
  bool Throttled(int spout_task) const override;

 private:
  enum class State { kStarting, kRunning, kDraining, kStopping, kStopped };
  void CreateTasks();
  void StartTasksFrom(int first);  // starts tasks first.. in batches, yielding to the loop
  void ArmSignals();
  void HandleFailure(FailureReport report);
  void Housekeeping();
  void CheckBackpressure();
  void BeginStop(const std::string& reason);
  void CheckDrained();
  void TerminateAll();
  void Finish(RunStatus status);
  void Fatal(RunStatus status, const std::string& message);
  void OnTreeDone(int spout_task, std::string message_id, TreeOutcome outcome,
                  std::chrono::nanoseconds age);
  bool AllIdle() const;
  // False while a task waits out its restart backoff or is starting again: a topology that is
  // restarting a task is not idle, however long the backoff.
  bool AllReady() const;
  const std::string& ComponentOf(int task) const;

  const Plan& plan_;
  const BuiltinRegistry& builtins_;
  ClusterOptions options_;
  ClusterObserver* observer_;
  boost::asio::io_context io_;
  Router router_;
  Acker acker_;
  IdGenerator ids_;
  ComponentLogs logs_;
  std::vector<std::unique_ptr<Task>> tasks_;                     // by task id (index 0 unused)
  Task& TaskAt(int id) const { return *tasks_[base::Idx(id)]; }  // an existing task's
  // The component's last error and when it came (the stats' last_error), for `task`'s component.
  void NoteLastError(int task, std::string text);
  std::vector<std::string> last_error_;
  std::vector<Clock::time_point> last_error_at_;
  boost::asio::steady_timer housekeeping_timer_;
  boost::asio::steady_timer status_timer_;
  boost::asio::steady_timer deadline_timer_;
  boost::asio::steady_timer stop_timer_;
  boost::asio::steady_timer kill_timer_;
  boost::asio::signal_set signals_;
  State state_ = State::kStarting;
  RunStatus status_ = RunStatus::kOk;
  int ready_ = 0;
  bool all_started_once_ = false;
  bool active_ = true;
  int signals_seen_ = 0;
  Clock::time_point started_at_;
  Clock::time_point last_activity_;
  Clock::time_point drain_deadline_;
  RestartPolicy restarts_;
  Backpressure backpressure_;
  CapacityMeter capacity_;
};

}  // namespace sparse::runtime
