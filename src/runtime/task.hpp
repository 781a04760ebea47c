// Tasks: one instance of a component. A shell task drives one child process; a built-in task
// hosts a BuiltinComponent in the runtime. All run on the cluster's single event loop.
//
// The hosts (TaskHost, ProcessHost, TupleHost, SpoutHost) are what a task may ask of the cluster,
// split by who needs it: each task is given only the ones it uses. Tasks never call each other
// directly, and never block.
#pragma once

#include <sys/types.h>

#include <boost/asio/io_context.hpp>
#include <chrono>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "multilang/messages.hpp"
#include "runtime/acker.hpp"
#include "runtime/ids.hpp"
#include "runtime/metrics.hpp"
#include "runtime/plan.hpp"
#include "runtime/tuple.hpp"

namespace sparse::runtime {

using Clock = std::chrono::steady_clock;

// Why a task stopped working, for the report and the supervisor.
struct FailureReport {
  int task = 0;
  std::string component;
  pid_t pid = -1;
  std::string reason;     // one line: "exited with code 1", "no heartbeat reply for 30 s", ...
  std::string offending;  // the offending message, truncated, if any
  std::string stderr_tail;
  bool during_start = false;  // failed before its first successful handshake
};

struct TaskSettings {
  std::string pid_root;                              // per-task pid dirs are made under it
  std::map<std::string, std::string> env_overrides;  // e.g. PYTHONPATH with the adapter
  std::filesystem::path working_dir;
};

// What every task may ask of the cluster: the loop, the plan, reporting, and its own state.
class TaskHost {
 public:
  virtual ~TaskHost() = default;
  virtual boost::asio::io_context& io() = 0;
  virtual const Plan& plan() const = 0;
  virtual void Log(int task, multilang::LogLevel level, std::string_view msg) = 0;
  virtual void ReportError(int task, std::string_view msg) = 0;
  virtual void TaskReady(int task) = 0;
  // The task is broken; the host decides (asynchronously) whether to restart it.
  virtual void TaskFailed(FailureReport report) = 0;
  // Tuples moved (emitted, acked): the topology is not idle.
  virtual void NoteActivity() = 0;
};

// What a task that runs a child process needs besides.
class ProcessHost {
 public:
  virtual ~ProcessHost() = default;
  virtual const TaskSettings& settings() const = 0;
  virtual void StderrLine(int task, std::string_view line) = 0;
};

// Emitting tuples and settling inputs with Storm's acking identities: what a bolt needs besides,
// and what delivery.hpp works with.
class TupleHost {
 public:
  virtual ~TupleHost() = default;
  virtual Acker& acker() = 0;
  virtual IdGenerator& ids() = 0;
  // Chooses the receiving tasks of an emit. Returns a description of the violation for an emit
  // the topology does not allow (undeclared stream, wrong number of values, bad direct task).
  virtual std::optional<std::string> Route(int source_task, const EmittedTuple& tuple,
                                           std::optional<std::int64_t> direct_task,
                                           std::vector<int>& targets) = 0;
  virtual void Deliver(int target_task, InputTuple&& tuple) = 0;
};

// What a spout needs besides: all a bolt does, and whether backpressure holds it back.
class SpoutHost : public TupleHost {
 public:
  virtual bool Throttled(int spout_task) const = 0;
};

class Task {
 public:
  Task(TaskHost& host, int task_id)
      : host_(host),
        id_(task_id),
        component_(host.plan().task_component.at(static_cast<std::size_t>(task_id))),
        cdef_(host.plan().components[static_cast<std::size_t>(component_)]) {}
  virtual ~Task() = default;
  Task(const Task&) = delete;
  Task& operator=(const Task&) = delete;

  int id() const { return id_; }
  int component() const { return component_; }
  const PlannedComponent& component_def() const { return cdef_; }
  TaskStats& stats() { return stats_; }
  const TaskStats& stats() const { return stats_; }

  // Starts (or restarts) the task: spawn and handshake. Reports TaskReady or TaskFailed.
  virtual void Start() = 0;
  // Bolts: a tuple for this task. Never refused; the host watches QueueDepth for backpressure.
  virtual void Deliver(InputTuple&& /*tuple*/) {}
  // Spouts.
  virtual void Activate() {}
  virtual void Deactivate() {}
  virtual void TreeDone(std::string message_id, TreeOutcome /*outcome*/) { (void)message_id; }
  virtual void Wake() {}
  // Periodic housekeeping (about every 100 ms): heartbeats, liveness, expiry.
  virtual void Housekeeping(Clock::time_point /*now*/) {}
  // Asks the task to stop (SIGTERM for children); Kill forces (SIGKILL).
  virtual void Terminate() = 0;
  virtual void Kill() = 0;
  // Stops a broken task: kills its process and fails the tuples it had in flight, keeping the
  // ones still queued in the runtime for the restarted process.
  virtual void Abort() = 0;
  virtual bool Alive() const = 0;
  virtual pid_t pid() const { return -1; }
  // Tuples waiting in the runtime for this task, plus in flight to it.
  virtual std::size_t QueueDepth() const { return 0; }
  // Bytes of tuple values the runtime holds for this task and has not handed over yet (its
  // queue, and for a shell task its unwritten pipe buffer): the byte side of backpressure.
  virtual std::size_t HeldBytes() const { return 0; }
  // Every command written to the component has been answered, so nothing it was asked can still
  // produce a tuple (a shell spout's `next` may emit until its `sync`). The drain waits for it.
  virtual bool Settled() const { return true; }
  virtual bool Ready() const = 0;
  // Bolts: total time with at least one tuple in flight to the component (for capacity).
  virtual double BusyMs(Clock::time_point /*now*/) const { return 0; }

 protected:
  TaskHost& host_;
  int id_;
  int component_;
  const PlannedComponent& cdef_;
  TaskStats stats_;
};

}  // namespace sparse::runtime
