#include "runtime/builtin_spout_task.hpp"

#include <boost/asio/post.hpp>

#include "multilang/loop_clock.hpp"
#include "runtime/config.hpp"
#include "runtime/delivery.hpp"

namespace sparse::runtime {

BuiltinSpoutTask::BuiltinSpoutTask(TaskHost& host, SpoutHost& spout_host, int task_id,
                                   std::unique_ptr<BuiltinComponent> impl)
    : BuiltinTask(host, spout_host, task_id, std::move(impl)),
      spout_host_(spout_host),
      ledger_(stats_, SpoutLedger::LimitsOf(ConfigView(&cdef_.config))),
      rest_(ConfigView(&cdef_.config).IntValue(keys::kSleepSpoutWaitMs)),
      next_timer_(host.io()) {}

BuiltinSpoutTask::~BuiltinSpoutTask() {
  CloseOnDestroy();
}

void BuiltinSpoutTask::Activate() {
  if (active_) return;
  active_ = true;
  impl_->Activate();
  ScheduleNext(std::chrono::milliseconds(0));
}

void BuiltinSpoutTask::Deactivate() {
  if (!active_) return;
  active_ = false;
  impl_->Deactivate();
}

void BuiltinSpoutTask::Wake() {
  if (scheduled_ && resting_) {
    // Cut a rest (or a backpressure re-check) short: the timer's handler runs NextTuple now.
    wake_early_ = true;
    next_timer_.cancel();
    return;
  }
  ScheduleNext(std::chrono::milliseconds(0));
}

void BuiltinSpoutTask::Housekeeping(Clock::time_point) {
  ScheduleNext(std::chrono::milliseconds(0));
}

void BuiltinSpoutTask::OnFatal() {
  active_ = false;
  ledger_.ForgetThrottle();
}

void BuiltinSpoutTask::ScheduleNext(std::chrono::milliseconds delay) {
  if (scheduled_ || !open_ || !active_) return;
  scheduled_ = true;
  auto alive = gate_.ticket();
  if (delay.count() == 0) {
    boost::asio::post(host_.io(), [this, alive] {
      if (!alive) return;
      scheduled_ = false;
      RunNext();
    });
    return;
  }
  resting_ = true;
  next_timer_.expires_after(delay);
  next_timer_.async_wait([this, alive](const boost::system::error_code& ec) {
    if (!alive) return;
    scheduled_ = false;
    resting_ = false;
    const bool early = wake_early_;
    wake_early_ = false;
    if (!ec || early) RunNext();
  });
}

void BuiltinSpoutTask::RunNext() {
  if (!open_ || !active_) return;
  // Everything this round emits shares one clock reading (tree starts, arrival times).
  multilang::LoopClock::Batch batch;
  const bool throttled = spout_host_.Throttled(id_);
  switch (ledger_.Throttled(throttled, multilang::LoopClock::Now())) {
    case SpoutLedger::Throttle::kStarted:
      impl_->Backpressure(true);
      break;
    case SpoutLedger::Throttle::kEnded:
      impl_->Backpressure(false);
      break;
    case SpoutLedger::Throttle::kUnchanged:
      break;
  }
  if (throttled) {
    ScheduleNext(std::chrono::milliseconds(10));
    return;
  }
  if (ledger_.Full()) return;  // TreeDone wakes us
  emitted_ = false;
  impl_->NextTuple();
  ScheduleNext(emitted_ ? std::chrono::milliseconds(0) : rest_);
}

void BuiltinSpoutTask::TreeDone(std::string message_id, TreeOutcome outcome) {
  switch (ledger_.TreeDone(outcome)) {
    case SpoutLedger::Tell::kAck:
      impl_->Ack(message_id);
      break;
    case SpoutLedger::Tell::kFail:
      impl_->Fail(message_id);
      break;
    case SpoutLedger::Tell::kNothing:
      return;
  }
  ScheduleNext(std::chrono::milliseconds(0));
}

void BuiltinSpoutTask::Dropped(const std::string& message_id_json) {
  if (message_id_json.empty()) return;
  ledger_.FailedAtEmit();
  auto alive = gate_.ticket();
  boost::asio::post(host_.io(), [this, alive, message_id_json] {
    if (alive && open_) impl_->Fail(message_id_json);
  });
}

const std::vector<int>& BuiltinSpoutTask::Send(std::shared_ptr<const EmittedTuple> t,
                                               const std::string& message_id_json,
                                               const std::vector<std::string>& /*anchors*/,
                                               std::optional<int> direct_task) {
  if (!RouteEmit(*t, direct_task)) {
    Dropped(message_id_json);
    return targets_;
  }
  emitted_ = true;
  const SpoutLedger::Emit fate = ledger_.Emitted(message_id_json);
  if (fate == SpoutLedger::Emit::kAckAtOnce) {
    auto alive = gate_.ticket();
    boost::asio::post(host_.io(), [this, alive, message_id_json] {
      if (alive && open_) impl_->Ack(message_id_json);
    });
  }
  DeliverFromSpout(spout_host_, id_, std::move(t), targets_, message_id_json,
                   fate == SpoutLedger::Emit::kTracked);
  host_.NoteActivity();
  return targets_;
}

}  // namespace sparse::runtime
