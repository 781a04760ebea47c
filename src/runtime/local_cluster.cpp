#include "runtime/local_cluster.hpp"

#include <algorithm>

#include <signal.h>

#include <boost/asio/post.hpp>

#include "base/invariant.hpp"
#include "runtime/builtin.hpp"
#include "runtime/builtin_bolt_task.hpp"
#include "runtime/builtin_registry.hpp"
#include "runtime/builtin_spout_task.hpp"
#include "runtime/config.hpp"
#include "runtime/shell_bolt_task.hpp"
#include "runtime/shell_spout_task.hpp"

namespace sparse::runtime {

namespace {
constexpr auto kHousekeepingEvery = std::chrono::milliseconds(100);
// After the shutdown grace (and the processes' own SIGKILL), how long the run still waits for
// the killed children to be reaped before it ends without them.
constexpr auto kReapMargin = std::chrono::seconds(2);

std::string Seconds(std::chrono::milliseconds ms) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3g s", static_cast<double>(ms.count()) / 1000.0);
  return buf;
}

Backpressure::Watermarks WatermarksOf(const Plan& plan) {
  ConfigView conf(&plan.topology_config);
  Backpressure::Watermarks m;
  m.high = static_cast<std::size_t>(conf.IntValue(keys::kQueueHighWatermark));
  m.low = static_cast<std::size_t>(conf.IntValue(keys::kQueueLowWatermark));
  m.high_bytes = static_cast<std::size_t>(conf.IntValue(keys::kQueueHighWatermarkBytes));
  m.low_bytes = static_cast<std::size_t>(conf.IntValue(keys::kQueueLowWatermarkBytes));
  return m;
}
}  // namespace

LocalCluster::LocalCluster(const Plan& plan, const BuiltinRegistry& builtins,
                           ClusterOptions options, ClusterObserver* observer)
    : plan_(plan),
      builtins_(builtins),
      options_(std::move(options)),
      observer_(observer),
      router_(plan),
      acker_(ConfigView(&plan.topology_config).SecondsValue(keys::kMessageTimeoutSecs),
             [this](int task, std::string id, TreeOutcome outcome, std::chrono::nanoseconds age) {
               OnTreeDone(task, std::move(id), outcome, age);
             }),
      logs_(options_.log_dir,
            static_cast<std::uint64_t>(
                ConfigView(&plan.topology_config).IntValue(keys::kLogMaxBytes)),
            static_cast<int>(ConfigView(&plan.topology_config).IntValue(keys::kLogBackups))),
      housekeeping_timer_(io_),
      status_timer_(io_),
      deadline_timer_(io_),
      stop_timer_(io_),
      kill_timer_(io_),
      signals_(io_),
      restarts_(plan.num_tasks()),
      backpressure_(Backpressure::UpstreamSpouts(plan), plan.task_component, WatermarksOf(plan)),
      capacity_(plan.task_component, plan.components.size()) {
  const std::size_t n = plan.components.size();
  last_error_.resize(n);
  last_error_at_.resize(n);
}

LocalCluster::~LocalCluster() {
  // Tasks' destructors kill their children (the reaper reaps them).
  tasks_.clear();
}

const std::string& LocalCluster::ComponentOf(int task) const {
  return plan_.ComponentOfTask(task).id;
}

void LocalCluster::CreateTasks() {
  tasks_.resize(base::Idx(plan_.num_tasks() + 1));
  for (int t = 1; t <= plan_.num_tasks(); ++t) {
    const auto& c = plan_.ComponentOfTask(t);
    if (!c.def->builtin.empty()) {
      const BuiltinInfo* info = builtins_.Find(c.def->builtin);
      // Validation with the same registry (the caller's duty) found every built-in.
      SPARSE_INVARIANT(info != nullptr, "built-in `" + c.def->builtin + "` is not registered");
      auto impl = info->create(c.def->builtin_options);
      if (c.def->is_spout()) {
        tasks_[base::Idx(t)] = std::make_unique<BuiltinSpoutTask>(*this, *this, t, std::move(impl));
      } else {
        tasks_[base::Idx(t)] = std::make_unique<BuiltinBoltTask>(*this, *this, t, std::move(impl));
      }
    } else if (c.def->is_spout()) {
      tasks_[base::Idx(t)] = std::make_unique<ShellSpoutTask>(*this, *this, *this, t);
    } else {
      tasks_[base::Idx(t)] = std::make_unique<ShellBoltTask>(*this, *this, *this, t);
    }
  }
}

RunStatus LocalCluster::Run() {
  if (options_.handle_signals) {
    signals_.add(SIGINT);
    signals_.add(SIGTERM);
    ArmSignals();
  }
  started_at_ = last_activity_ = Clock::now();
  capacity_.Start(started_at_);
  {
    std::vector<std::string> ids;
    for (const auto& c : plan_.components) ids.push_back(c.id);
    logs_.BeginRun(ids, plan_.topology ? plan_.topology->name : std::string());
  }
  CreateTasks();
  if (observer_) observer_->OnStarting(0, plan_.num_tasks());
  StartTasksFrom(1);

  std::function<void(const boost::system::error_code&)> tick;
  tick = [this, &tick](const boost::system::error_code& ec) {
    if (ec || state_ == State::kStopped) return;
    Housekeeping();
    housekeeping_timer_.expires_after(kHousekeepingEvery);
    housekeeping_timer_.async_wait(tick);
  };
  housekeeping_timer_.expires_after(kHousekeepingEvery);
  housekeeping_timer_.async_wait(tick);

  std::function<void(const boost::system::error_code&)> status;
  status = [this, &status](const boost::system::error_code& ec) {
    if (ec || state_ == State::kStopped) return;
    if (observer_) observer_->OnStatus(Snapshot());
    logs_.Flush();  // so `sparse tail -f` sees a running topology's logs within a second
    status_timer_.expires_after(options_.status_every);
    status_timer_.async_wait(status);
  };
  status_timer_.expires_after(options_.status_every);
  status_timer_.async_wait(status);

  if (state_ != State::kStopped) io_.run();
  logs_.Flush();
  tasks_.clear();
  return status_;
}

void LocalCluster::StartTasksFrom(int first) {
  // A few processes per turn of the loop: between batches it handles signals (Ctrl-C while a
  // large topology starts), handshakes and failures of the tasks already started.
  constexpr int kTasksPerTurn = 8;
  int t = first;
  for (; t <= plan_.num_tasks() && t < first + kTasksPerTurn && state_ == State::kStarting; ++t) {
    TaskAt(t).Start();
  }
  if (t <= plan_.num_tasks() && state_ == State::kStarting) {
    boost::asio::post(io_, [this, t] { StartTasksFrom(t); });
  }
}

void LocalCluster::ArmSignals() {
  signals_.async_wait([this](const boost::system::error_code& ec, int sig) {
    if (ec) return;
    ++signals_seen_;
    if (signals_seen_ > 1) {
      Fatal(RunStatus::kForced, "forced stop: children killed without draining");
      return;
    }
    BeginStop(sig == SIGINT ? "interrupted (Ctrl-C); press Ctrl-C again to force"
                            : "terminated (SIGTERM); send it again to force");
    ArmSignals();
  });
}

void LocalCluster::RequestStop(const std::string& reason) {
  boost::asio::post(io_, [this, reason] { BeginStop(reason); });
}

void LocalCluster::TaskReady(int task) {
  logs_.Write(ComponentOf(task), task, "INFO",
              "ready (pid " + std::to_string(TaskAt(task).pid()) + ")");
  if (state_ == State::kStarting) {
    ++ready_;
    if (observer_) observer_->OnStarting(ready_, plan_.num_tasks());
    if (ready_ == plan_.num_tasks()) {
      state_ = State::kRunning;
      all_started_once_ = true;
      last_activity_ = Clock::now();
      if (observer_) observer_->OnRunning();
      if (active_) {
        for (int t = 1; t <= plan_.num_tasks(); ++t) TaskAt(t).Activate();
      }
      if (options_.run_for) {
        deadline_timer_.expires_after(*options_.run_for);
        deadline_timer_.async_wait([this](const boost::system::error_code& ec) {
          if (!ec) BeginStop("time limit of " + Seconds(*options_.run_for) + " reached");
        });
      }
    }
    return;
  }
  // A restarted task picks up where its predecessor was, and gets a whole idle window to do so.
  last_activity_ = Clock::now();
  if (state_ == State::kRunning && active_) TaskAt(task).Activate();
}

void LocalCluster::SetActive(bool active) {
  if (active_ == active) return;
  active_ = active;
  logs_.Write("__system", 0, "INFO", active ? "activated" : "deactivated");
  if (state_ != State::kRunning) return;
  for (int t = 1; t <= plan_.num_tasks(); ++t) {
    if (active) {
      TaskAt(t).Activate();
    } else {
      TaskAt(t).Deactivate();
    }
  }
}

void LocalCluster::Kill(std::chrono::milliseconds wait, const std::string& reason) {
  SetActive(false);
  kill_timer_.expires_after(wait);
  kill_timer_.async_wait([this, reason](const boost::system::error_code& ec) {
    if (!ec) BeginStop(reason);
  });
}

void LocalCluster::TaskFailed(FailureReport report) {
  boost::asio::post(
      io_, [this, report = std::move(report)]() mutable { HandleFailure(std::move(report)); });
}

void LocalCluster::HandleFailure(FailureReport report) {
  if (state_ == State::kStopped) return;
  const int task = report.task;
  std::string detail = report.reason;
  if (!report.offending.empty()) detail += " | offending message: " + report.offending;
  logs_.Write(report.component, task, "FAILURE", detail);
  if (!report.stderr_tail.empty())
    logs_.Write(report.component, task, "FAILURE", "stderr tail:\n" + report.stderr_tail);
  if (state_ == State::kStopping) return;
  NoteLastError(task, report.reason);

  if (!all_started_once_) {
    if (observer_) observer_->OnTaskFailure(report, std::nullopt);
    Fatal(RunStatus::kStartFailed, "component `" + report.component + "` (task " +
                                       std::to_string(task) +
                                       ") failed to start: " + report.reason);
    return;
  }
  ConfigView conf(&plan_.ComponentOfTask(task).config);
  RestartPolicy::Limits limits;
  limits.max = conf.IntValue(keys::kRestartMax);
  limits.window = conf.SecondsValue(keys::kRestartWindowSecs);
  limits.base = std::chrono::milliseconds(conf.IntValue(keys::kRestartBackoffMs));
  limits.cap = std::chrono::milliseconds(conf.IntValue(keys::kRestartBackoffMaxMs));
  const auto decision = restarts_.OnFailure(task, limits, Clock::now());
  if (decision.crash_loop) {
    if (observer_) observer_->OnTaskFailure(report, std::nullopt);
    Fatal(RunStatus::kFailed,
          "crash loop: component `" + report.component + "` (task " + std::to_string(task) +
              ") failed " + std::to_string(decision.failures) + " times within " +
              Seconds(std::chrono::duration_cast<std::chrono::milliseconds>(limits.window)) + " (" +
              keys::kRestartMax + "=" + std::to_string(limits.max) +
              "); last failure: " + report.reason);
    return;
  }
  TaskAt(task).stats().restarts++;
  if (observer_) observer_->OnTaskFailure(report, decision.backoff);
  auto timer = std::make_shared<boost::asio::steady_timer>(io_, decision.backoff);
  timer->async_wait([this, timer, task](const boost::system::error_code& ec) {
    if (ec || state_ == State::kStopping || state_ == State::kStopped) return;
    logs_.Write(ComponentOf(task), task, "INFO", "restarting");
    TaskAt(task).Start();
  });
}

std::optional<std::string> LocalCluster::Route(int source_task, const EmittedTuple& tuple,
                                               std::optional<std::int64_t> direct_task,
                                               std::vector<int>& targets) {
  return router_.Route(source_task, tuple, direct_task, targets);
}

void LocalCluster::Deliver(int target_task, InputTuple&& tuple) {
  Task& t = TaskAt(target_task);
  t.Deliver(std::move(tuple));
  backpressure_.Queued(target_task, {t.QueueDepth(), t.HeldBytes()});
}

void LocalCluster::CheckBackpressure() {
  if (!backpressure_.AnyHot()) return;
  const auto released = backpressure_.Cool([this](int task) {
    return Backpressure::Load{TaskAt(task).QueueDepth(), TaskAt(task).HeldBytes()};
  });
  for (int spout : released) {
    for (int st : plan_.component(spout).tasks) TaskAt(st).Wake();
  }
}

bool LocalCluster::Throttled(int spout_task) const {
  return backpressure_.Throttled(plan_.ComponentIndexOfTask(spout_task));
}

void LocalCluster::Log(int task, multilang::LogLevel level, std::string_view msg) {
  const int l = static_cast<int>(level);
  logs_.Write(ComponentOf(task), task, LevelName(l), msg);
  if (observer_) observer_->OnLog(ComponentOf(task), task, l, msg);
}

void LocalCluster::NoteLastError(int task, std::string text) {
  const std::size_t ci = base::Idx(plan_.ComponentIndexOfTask(task));
  last_error_[ci] = std::move(text);
  last_error_at_[ci] = Clock::now();
}

void LocalCluster::ReportError(int task, std::string_view msg) {
  NoteLastError(task, std::string(msg.substr(0, 2000)));
  logs_.Write(ComponentOf(task), task, "ERROR", msg);
  if (observer_) observer_->OnComponentError(ComponentOf(task), task, msg);
}

void LocalCluster::StderrLine(int task, std::string_view line) {
  logs_.Write(ComponentOf(task), task, "STDERR", line);
  if (observer_) observer_->OnStderr(ComponentOf(task), task, line);
}

void LocalCluster::OnTreeDone(int spout_task, std::string message_id, TreeOutcome outcome,
                              std::chrono::nanoseconds age) {
  Task& t = TaskAt(spout_task);
  if (outcome == TreeOutcome::kAcked) {
    t.stats().complete_latency.Add(static_cast<double>(age.count()) / 1e6);
  }
  t.TreeDone(std::move(message_id), outcome);
  last_activity_ = multilang::LoopClock::Now();
}

bool LocalCluster::AllIdle() const {
  if (acker_.pending() != 0) return false;
  for (std::size_t t = 1; t < tasks_.size(); ++t) {
    if (tasks_[t] && tasks_[t]->QueueDepth() != 0) return false;
  }
  return true;
}

bool LocalCluster::AllReady() const {
  for (std::size_t t = 1; t < tasks_.size(); ++t) {
    if (tasks_[t] && !tasks_[t]->Ready()) return false;
  }
  return true;
}

void LocalCluster::Housekeeping() {
  const auto now = Clock::now();
  acker_.Expire(now);
  for (std::size_t t = 1; t < tasks_.size(); ++t) {
    if (tasks_[t]) tasks_[t]->Housekeeping(now);
  }
  CheckBackpressure();
  switch (state_) {
    case State::kRunning:
      if (options_.stop_when_idle && now - last_activity_ >= *options_.stop_when_idle &&
          AllIdle() && AllReady()) {
        BeginStop("idle for " + Seconds(*options_.stop_when_idle));
      }
      break;
    case State::kDraining:
      CheckDrained();
      break;
    case State::kStopping: {
      bool any = false;
      for (std::size_t t = 1; t < tasks_.size(); ++t)
        any = any || (tasks_[t] && tasks_[t]->Alive());
      if (!any) Finish(status_);
      break;
    }
    case State::kStarting:
    case State::kStopped:
      break;
  }
}

void LocalCluster::BeginStop(const std::string& reason) {
  if (state_ == State::kStarting) {
    if (observer_) observer_->OnStopping(reason);
    TerminateAll();
    return;
  }
  if (state_ != State::kRunning) return;
  state_ = State::kDraining;
  if (observer_) observer_->OnStopping(reason);
  for (std::size_t t = 1; t < tasks_.size(); ++t) tasks_[t]->Deactivate();
  ConfigView conf(&plan_.topology_config);
  // Unset: as long as a tuple tree may take.
  const auto drain = options_.drain_timeout.value_or(
      conf.Seconds(keys::kDrainSecs).value_or(conf.SecondsValue(keys::kMessageTimeoutSecs)));
  drain_deadline_ = Clock::now() + drain;
  CheckDrained();
}

void LocalCluster::CheckDrained() {
  if (state_ != State::kDraining) return;
  // Deactivated spouts may still answer a `next` written before the deactivation: its emits
  // start trees too, so the drain also waits for every spout's last `sync`.
  const bool settled = std::all_of(tasks_.begin() + 1, tasks_.end(),
                                   [](const auto& t) { return !t || t->Settled(); });
  if (settled && AllIdle()) {
    TerminateAll();
    return;
  }
  if (Clock::now() >= drain_deadline_) {
    logs_.Write(
        "__system", 0, "WARN",
        std::to_string(acker_.pending()) + " tuple trees still pending at the end of the drain");
    TerminateAll();
  }
}

void LocalCluster::TerminateAll() {
  if (state_ == State::kStopping || state_ == State::kStopped) return;
  state_ = State::kStopping;
  deadline_timer_.cancel();
  for (std::size_t t = 1; t < tasks_.size(); ++t) {
    if (tasks_[t]) tasks_[t]->Terminate();
  }
  // A shell task's process escalates to SIGKILL itself once the grace has passed, and says so
  // (ShellProcess::Terminate); the run ends when no task is alive any more (Housekeeping). This
  // timer only bounds the wait for a child that not even SIGKILL ends at once: the tasks'
  // destructors hand it to the reaper.
  ConfigView conf(&plan_.topology_config);
  stop_timer_.expires_after(conf.SecondsValue(keys::kShutdownGraceSecs) + kReapMargin);
  stop_timer_.async_wait([this](const boost::system::error_code& ec) {
    if (ec || state_ == State::kStopped) return;
    for (std::size_t t = 1; t < tasks_.size(); ++t) {
      if (tasks_[t] && tasks_[t]->Alive()) {
        logs_.Write(ComponentOf(static_cast<int>(t)), static_cast<int>(t), "WARN",
                    "still running after SIGKILL; not waited for");
      }
    }
    Finish(status_);
  });
  Housekeeping();
}

void LocalCluster::Fatal(RunStatus status, const std::string& message) {
  if (state_ == State::kStopped) return;
  logs_.Write("__system", 0, "FATAL", message);
  if (observer_) observer_->OnFatal(message);
  for (std::size_t t = 1; t < tasks_.size(); ++t) {
    if (tasks_[t]) tasks_[t]->Kill();
  }
  Finish(status);
}

void LocalCluster::Finish(RunStatus status) {
  if (state_ == State::kStopped) return;
  if (observer_) observer_->OnStatus(Snapshot());
  state_ = State::kStopped;
  status_ = status;
  housekeeping_timer_.cancel();
  status_timer_.cancel();
  deadline_timer_.cancel();
  stop_timer_.cancel();
  kill_timer_.cancel();
  boost::system::error_code ignored;
  signals_.cancel(ignored);
  io_.stop();
}

ClusterSnapshot LocalCluster::Snapshot() {
  ClusterSnapshot s;
  const auto now = Clock::now();
  s.uptime_secs = std::chrono::duration<double>(now - started_at_).count();
  switch (state_) {
    case State::kStarting:
      s.state = "starting";
      break;
    case State::kRunning:
      s.state = "running";
      break;
    case State::kDraining:
      s.state = "draining";
      break;
    case State::kStopping:
      s.state = "stopping";
      break;
    case State::kStopped:
      s.state = "stopped";
      break;
  }
  s.pending_trees = acker_.pending();
  s.tasks_total = plan_.num_tasks();
  s.tasks_ready = 0;
  s.backpressure = backpressure_.AnyHot();
  s.active = active_;
  for (std::size_t t = 1; t < tasks_.size(); ++t) {
    if (tasks_[t] && tasks_[t]->Ready()) s.tasks_ready++;
  }
  capacity_.Sample(
      [this, now](int t) -> std::optional<double> {
        if (static_cast<std::size_t>(t) >= tasks_.size() || !tasks_[base::Idx(t)])
          return std::nullopt;
        return TaskAt(t).BusyMs(now);
      },
      now);
  for (std::size_t ci = 0; ci < plan_.components.size(); ++ci) {
    const auto& c = plan_.components[ci];
    ComponentStats cs;
    cs.id = c.id;
    cs.spout = c.def->is_spout();
    cs.tasks = static_cast<int>(c.tasks.size());
    for (int t : c.tasks) {
      if (t >= static_cast<int>(tasks_.size()) || !tasks_[base::Idx(t)]) continue;
      const Task& task = TaskAt(t);
      cs.totals.Merge(task.stats());
      cs.per_task.push_back(
          TaskRow{t, task.stats(), capacity_.OfTask(t), task.Ready(), task.pid()});
    }
    for (std::size_t si = 0; si < c.streams.size(); ++si) {
      StreamStats ss{c.streams[si].id, 0, 0};
      for (int t : c.tasks) {
        ss.emitted += router_.Count(t, si).emitted;
        ss.transferred += router_.Count(t, si).transferred;
      }
      cs.per_stream.push_back(std::move(ss));
    }
    cs.last_error = last_error_[ci];
    if (!cs.last_error.empty()) {
      cs.last_error_age_secs = std::chrono::duration<double>(now - last_error_at_[ci]).count();
    }
    cs.capacity = capacity_.Of(static_cast<int>(ci));
    s.components.push_back(std::move(cs));
  }
  return s;
}

}  // namespace sparse::runtime
