#include "runtime/shell_task.hpp"

#include <signal.h>

#include <boost/process/search_path.hpp>
#include <filesystem>

#include "multilang/loop_clock.hpp"
#include "runtime/config.hpp"
#include "runtime/context.hpp"
#include "runtime/seconds_text.hpp"

namespace sparse::runtime {

namespace fs = std::filesystem;
using multilang::Command;

ShellTask::ShellTask(TaskHost& host, ProcessHost& process, int task_id)
    : Task(host, task_id),
      encoder_(cdef_.serializer),
      process_(process),
      handshake_timer_(host.io()) {
  ConfigView conf(&cdef_.config);
  subprocess_timeout_ = conf.SubprocessTimeout();
}

ShellTask::~ShellTask() = default;

std::vector<std::string> ShellTask::ResolveArgv() const {
  std::vector<std::string> argv = cdef_.def->command;
  // Storm's examples say `python`; Debian only has python3 unless python-is-python3 is installed.
  if (!argv.empty() && argv[0] == "python" && boost::process::search_path("python").empty() &&
      !boost::process::search_path("python3").empty()) {
    argv[0] = "python3";
  }
  return argv;
}

void ShellTask::Start() {
  handshaken_ = false;
  failed_ = false;
  stopping_ = false;
  pid_dir_ = (fs::path(process_.settings().pid_root) / std::to_string(id_)).string();
  std::error_code ec;
  fs::remove_all(pid_dir_, ec);
  fs::create_directories(pid_dir_, ec);

  multilang::ProcessOptions opts;
  opts.argv = ResolveArgv();
  opts.working_dir = process_.settings().working_dir;
  opts.env_overrides = process_.settings().env_overrides;
  ConfigView conf(&cdef_.config);
  opts.max_message_bytes = static_cast<std::size_t>(conf.IntValue(keys::kMaxMessageBytes));
  opts.serializer = encoder_.serializer();

  multilang::ShellProcess::Callbacks cb;
  cb.on_message = [this](std::string& body) { OnMessage(body); };
  cb.on_stderr_line = [this](std::string_view line) { process_.StderrLine(id_, line); };
  cb.on_stream_error = [this](const std::string& reason) {
    if (stopping_) return;  // it is being stopped; its exit is expected
    Violation("protocol violation: " + reason, {});
  };
  cb.on_exit = [this](const multilang::ExitStatus& st) { OnExit(st); };
  cb.on_written = [this] { OnWritten(); };
  proc_ = std::make_unique<multilang::ShellProcess>(host_.io(), std::move(opts), std::move(cb));
  if (auto err = proc_->Start()) {
    FailureReport r = NewReport("cannot start `" + cdef_.def->command.front() + "`: " + *err);
    r.during_start = !ever_ready_;
    Fail(std::move(r));
    return;
  }
  last_heard_ = Clock::now();
  std::string handshake;
  if (auto err = encoder_.Json(handshake, MakeHandshake(host_.plan(), id_, pid_dir_))) {
    // The handshake is the runtime's own JSON: failing to encode it is a bug, reported as one.
    Fail(NewReport("cannot encode the handshake: " + *err));
    return;
  }
  proc_->Send(handshake);

  auto timeout = conf.SecondsValue(keys::kHandshakeTimeoutSecs);
  handshake_timer_.expires_after(timeout);
  handshake_timer_.async_wait([this, timeout](const boost::system::error_code& waited) {
    if (waited || handshaken_ || failed_) return;
    std::string reason = "no handshake reply within " + SecondsText(timeout) + " s (" +
                         keys::kHandshakeTimeoutSecs + "): the component never sent {\"pid\": N}";
    if (encoder_.serializer() == multilang::Serializer::kMsgpack) {
      reason +=
          "; the topology says it speaks MessagePack (serializer: msgpack), and a component "
          "that speaks JSON, such as Storm's storm.py, waits for `end` lines that never come";
    }
    Fail(NewReport(std::move(reason)));
  });
}

void ShellTask::Terminate() {
  stopping_ = true;
  // The process escalates to SIGKILL itself; its exit says whether it had to.
  ConfigView conf(&host_.plan().topology_config);
  if (proc_) proc_->Terminate(conf.SecondsValue(keys::kShutdownGraceSecs));
}

void ShellTask::Kill() {
  stopping_ = true;
  if (proc_) proc_->Signal(SIGKILL);
}

void ShellTask::Abort() {
  failed_ = true;
  Kill();
  OnBroken();
}

FailureReport ShellTask::NewReport(std::string reason, std::string_view offending) const {
  FailureReport r;
  r.task = id_;
  r.component = cdef_.id;
  r.pid = proc_ ? proc_->pid() : -1;
  r.reason = std::move(reason);
  r.offending = multilang::Truncate(offending);
  r.stderr_tail = proc_ ? proc_->StderrTail() : "";
  r.during_start = !ever_ready_;
  return r;
}

void ShellTask::Fail(FailureReport report) {
  if (failed_) return;
  failed_ = true;
  handshake_timer_.cancel();
  if (proc_) proc_->Signal(SIGKILL);
  OnBroken();
  host_.TaskFailed(std::move(report));
}

void ShellTask::Violation(const std::string& reason, std::string_view offending) {
  stats_.errors++;
  Fail(NewReport(reason, offending));
}

void ShellTask::OnExit(const multilang::ExitStatus& status) {
  if (failed_) return;
  if (stopping_) {
    if (status.after_grace) {
      host_.ReportError(id_, std::string("did not exit after SIGTERM within ") +
                                 keys::kShutdownGraceSecs + ": killed");
    }
    OnBroken();
    return;
  }
  FailureReport r = NewReport("process " + status.Describe());
  if (r.during_start) {
    if (auto hint = multilang::MismatchHint(encoder_.serializer(), r.stderr_tail)) {
      r.reason += "; " + *hint;
    }
  }
  Fail(std::move(r));
}

void ShellTask::OnMessage(std::string& body) {
  if (failed_) return;
  last_heard_ = multilang::LoopClock::Now();
  // Parsing only reserves padding in `body`; its text stays intact for error reports.
  const std::string& raw = body;
  if (auto err = parser_.Parse(body, msg_)) {
    Violation("protocol violation: " + *err, raw);
    return;
  }
  if (!handshaken_) {
    if (msg_.command != Command::kPid) {
      if (msg_.command == Command::kLog) {  // some adapters log before answering
        host_.Log(id_, msg_.level, msg_.msg);
        return;
      }
      Violation("protocol violation: expected the handshake reply {\"pid\": N}", raw);
      return;
    }
    // The pid file is not checked: storm.py and storm.js write {"pid": N} first and create
    // pidDir/N only afterwards, and Storm's ShellProcess never looks at it either.
    handshaken_ = true;
    ever_ready_ = true;
    handshake_timer_.cancel();
    host_.TaskReady(id_);
    OnReady();
    return;
  }
  switch (msg_.command) {
    case Command::kLog:
      stats_.logs++;
      host_.Log(id_, msg_.level, msg_.msg);
      return;
    case Command::kError:
      stats_.errors++;
      host_.ReportError(id_, msg_.msg);
      OnError(msg_.msg);
      return;
    case Command::kMetrics:
      stats_.metrics_received++;
      if (!msg_.metric_name.empty()) {
        try {
          auto v = nlohmann::json::parse(msg_.metric_params_json);
          if (v.is_number()) stats_.gauges[msg_.metric_name] = v.get<double>();
        } catch (...) {
          // Non-numeric params are accepted and counted, never fatal.
        }
      }
      return;
    case Command::kPid:
      Violation("protocol violation: a second handshake reply", raw);
      return;
    case Command::kEmit:
    case Command::kAck:
    case Command::kFail:
    case Command::kSync:
      OnCommand(msg_, raw);
      return;
  }
}

std::shared_ptr<EmittedTuple> ShellTask::MakeEmitted(multilang::ComponentMessage& msg,
                                                     const std::string& raw) {
  auto it = cdef_.stream_index.find(msg.stream);
  if (it == cdef_.stream_index.end()) {
    std::string known;
    for (const auto& s : cdef_.streams) known += (known.empty() ? "" : ", ") + s.id;
    Violation("protocol violation: emit to undeclared stream `" + msg.stream +
                  "` (declared: " + (known.empty() ? "none" : known) + ")",
              raw);
    return nullptr;
  }
  auto t = NewEmittedTuple();
  t->values_json = std::move(msg.tuple_json);
  t->source_task = id_;
  t->source_component = component_;
  t->stream = it->second;
  // Checked here, where the tuple enters: invalid or over-deep values would otherwise reach the
  // receivers and break them instead, who would be blamed for the sender's fault.
  if (auto err = ValidateTuple(t->values_json, t->spans)) {
    Violation("protocol violation: `tuple` is not a valid JSON array: " + *err, raw);
    return nullptr;
  }
  return t;
}

bool ShellTask::ReadsItsStdin(Clock::time_point now) {
  if (!proc_) return true;
  const auto since = proc_->write_blocked_since();
  if (!since || now - *since <= subprocess_timeout_) return true;
  Violation("has not read its stdin for " + SecondsText(now - *since) + " s with " +
                std::to_string(proc_->queued_bytes()) +
                " bytes waiting (topology.subprocess.timeout.secs): it stopped reading or is stuck",
            {});
  return false;
}

void ShellTask::ReplyTaskIds(const std::vector<int>& tasks) {
  reply_.clear();
  encoder_.TaskIds(reply_, tasks);
  Send(reply_);
}

}  // namespace sparse::runtime
