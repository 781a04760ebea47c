#include "runtime/shell_spout_task.hpp"

#include <boost/asio/post.hpp>

#include "multilang/loop_clock.hpp"
#include "runtime/config.hpp"
#include "runtime/delivery.hpp"
#include "runtime/seconds_text.hpp"

namespace sparse::runtime {

using multilang::Command;

ShellSpoutTask::ShellSpoutTask(TaskHost& host, ProcessHost& process, SpoutHost& spout_host,
                               int task_id)
    : ShellTask(host, process, task_id),
      next_window_(static_cast<std::size_t>(
          ConfigView(&cdef_.config).IntValue(keys::kSpoutMaxUnsyncedNexts))),
      spout_host_(spout_host),
      ledger_(stats_, SpoutLedger::LimitsOf(ConfigView(&cdef_.config))),
      rest_timer_(host.io()) {
  ConfigView conf(&cdef_.config);
  rest_ = std::chrono::milliseconds(conf.IntValue(keys::kSleepSpoutWaitMs));
  max_unsynced_ = static_cast<std::size_t>(conf.IntValue(keys::kSpoutMaxUnsynced));
  max_failing_nexts_ = conf.IntValue(keys::kSpoutMaxFailingNexts);
}

void ShellSpoutTask::OnReady() {
  // No reset of unsynced_ here: OnBroken already cleared the previous process's state, and the
  // host's TaskReady, just before this, may have activated the task and sent `activate` and a
  // `next` already; forgetting them sent a second `next` before the first one's sync.
  if (want_active_) Activate();
  Pump();
}

void ShellSpoutTask::Activate() {
  want_active_ = true;
  if (!Ready() || active_) return;
  active_ = true;
  control_.push_back(Control{"activate", "\"\""});
  Pump();
}

void ShellSpoutTask::Deactivate() {
  want_active_ = false;
  if (!Ready() || !active_) return;
  active_ = false;
  control_.push_back(Control{"deactivate", "\"\""});
  Pump();
}

void ShellSpoutTask::TreeDone(std::string message_id, TreeOutcome outcome) {
  const SpoutLedger::Tell tell = ledger_.TreeDone(outcome);
  if (tell == SpoutLedger::Tell::kNothing || !Ready()) return;
  control_.push_back(
      Control{tell == SpoutLedger::Tell::kAck ? "ack" : "fail", std::move(message_id)});
  SchedulePump();
}

void ShellSpoutTask::SchedulePump() {
  // Acks arrive one tree at a time, often hundreds per read batch: write their commands together
  // once the handler that completed the trees returns.
  if (pump_posted_) return;
  pump_posted_ = true;
  boost::asio::post(host_.io(), [this] {
    pump_posted_ = false;
    Pump();
  });
}

void ShellSpoutTask::SendCommand(const Control& c) {
  const bool is_next = c.command == "next";
  command_.clear();
  if (auto err = encoder_.SpoutCommand(command_, c.command, c.id_json)) {
    // A message id the spout emitted that this encoding cannot carry back: the spout broke
    // the protocol when it emitted it.
    Violation("protocol violation: message id " + c.id_json + " cannot be sent back: " + *err, {});
    return;
  }
  Unsynced u;
  u.is_next = is_next;
  u.sent = multilang::LoopClock::Now();
  unsynced_.push_back(u);
  if (is_next) ++nexts_unsynced_;
  Send(command_);
}

void ShellSpoutTask::Pump() {
  if (!Ready()) return;
  while (!control_.empty() && unsynced_.size() < max_unsynced_) {
    const Control c = std::move(control_.front());
    control_.pop_front();
    SendCommand(c);
    if (!Ready()) return;
  }
  while (MayAskForNext()) {
    SendCommand(Control{"next", "\"\""});
    if (!Ready()) return;
  }
}

bool ShellSpoutTask::MayAskForNext() {
  const std::size_t nexts_allowed = emitting_ && !awaits_task_ids_ ? next_window_.Allowed() : 1;
  if (nexts_unsynced_ >= nexts_allowed || unsynced_.size() >= max_unsynced_) return false;
  if (!active_ || resting_ || stopping_) return false;
  const bool throttled = spout_host_.Throttled(id_);
  ledger_.Throttled(throttled, multilang::LoopClock::Now());
  if (throttled) return false;
  // The tuples the `next`s in flight may still emit count as pending already.
  return !ledger_.Full(static_cast<std::int64_t>(nexts_unsynced_) * most_per_next_);
}

void ShellSpoutTask::OnCommand(multilang::ComponentMessage& msg, const std::string& raw) {
  switch (msg.command) {
    case Command::kEmit:
      HandleEmit(msg, raw);
      return;
    case Command::kSync: {
      if (unsynced_.empty()) return;  // tolerated: storm.py-style spouts may sync spontaneously
      const Unsynced done = unsynced_.front();
      unsynced_.pop_front();
      next_window_.Synced(done.sent, multilang::LoopClock::Now());
      if (!done.is_next) {
        Pump();
        return;
      }
      --nexts_unsynced_;
      if (done.errored && done.emitted == 0) {
        if (max_failing_nexts_ > 0 && ++failing_nexts_ >= max_failing_nexts_) {
          Violation("reported an error instead of emitting on " + std::to_string(failing_nexts_) +
                        " `next`s in a row (sparse.spout.max.failing.nexts): next_tuple() "
                        "fails every time, which is a crash",
                    last_next_error_);
          return;
        }
      } else {
        failing_nexts_ = 0;
      }
      most_per_next_ = std::max(most_per_next_, done.emitted);
      emitting_ = done.emitted > 0;
      if (!done.emitted && rest_.count() > 0) {
        resting_ = true;
        rest_timer_.expires_after(rest_);
        rest_timer_.async_wait([this](const boost::system::error_code& ec) {
          if (ec) return;
          resting_ = false;
          Pump();
        });
        Pump();  // acks and fails do not wait for the rest
        return;
      }
      // Let other tasks' work run between spout rounds.
      SchedulePump();
      return;
    }
    case Command::kAck:
    case Command::kFail:
      Violation(std::string("protocol violation: a spout sent `") +
                    std::string(multilang::CommandName(msg.command)) + "`",
                raw);
      return;
    case Command::kError:  // handled by ShellTask before OnCommand
    case Command::kLog:
    case Command::kMetrics:
    case Command::kPid:
      return;
  }
}

void ShellSpoutTask::HandleEmit(multilang::ComponentMessage& msg, const std::string& raw) {
  std::optional<std::int64_t> direct;
  if (msg.task && *msg.task != 0) direct = *msg.task;
  const bool need_ids = msg.need_task_ids && !direct;
  // A string id was checked by the message parser; any other value is forwarded as its text.
  if (!msg.id.empty() && msg.id.front() != '"' && msg.id != "null") {
    if (auto err = ValidateMessageId(msg.id)) {
      Violation("protocol violation: emit with an invalid message id: " + *err, raw);
      return;
    }
  }
  std::string message_id = std::move(msg.id);
  if (message_id == "null") message_id.clear();
  auto tuple = MakeEmitted(msg, raw);
  if (!tuple) return;
  targets_.clear();
  if (auto err = spout_host_.Route(id_, *tuple, direct, targets_)) {
    Violation("protocol violation: " + *err, raw);
    return;
  }
  if (!unsynced_.empty()) ++unsynced_.front().emitted;
  awaits_task_ids_ = need_ids;
  stats_.emitted++;
  stats_.transferred += targets_.size();
  const SpoutLedger::Emit fate = ledger_.Emitted(message_id);
  if (fate == SpoutLedger::Emit::kAckAtOnce) control_.push_back(Control{"ack", message_id});
  DeliverFromSpout(spout_host_, id_, std::move(tuple), targets_, message_id,
                   fate == SpoutLedger::Emit::kTracked);
  if (need_ids) ReplyTaskIds(targets_);
  host_.NoteActivity();
}

void ShellSpoutTask::Housekeeping(Clock::time_point now) {
  if (!Ready() || !ReadsItsStdin(now)) return;
  const auto since = unsynced_.empty() ? now : next_window_.WorkingSince(unsynced_.front().sent);
  if (now - since > subprocess_timeout_) {
    Violation("no `sync` for " + SecondsText(now - since) +
                  " s after a command (topology.subprocess.timeout.secs): the spout is stuck",
              {});
    return;
  }
  Pump();
}

void ShellSpoutTask::OnError(std::string_view msg) {
  if (unsynced_.empty() || !unsynced_.front().is_next) return;
  unsynced_.front().errored = true;
  last_next_error_.assign(msg.substr(0, 4096));
}

void ShellSpoutTask::OnBroken() {
  failing_nexts_ = 0;
  rest_timer_.cancel();
  resting_ = false;
  unsynced_.clear();
  nexts_unsynced_ = 0;
  next_window_.Reset();
  emitting_ = false;
  awaits_task_ids_ = true;
  active_ = false;
  control_.clear();
  // Trees this process started can no longer be acked or replayed by it.
  spout_host_.acker().AbandonSpoutTask(id_);
  ledger_.ForgetPending();
}

}  // namespace sparse::runtime
