#include "runtime/shell_bolt_task.hpp"

#include <boost/asio/post.hpp>

#include "multilang/loop_clock.hpp"
#include "runtime/config.hpp"
#include "runtime/delivery.hpp"
#include "runtime/seconds_text.hpp"

namespace sparse::runtime {

using multilang::Command;

namespace {
constexpr std::size_t kMaxQueuedBytes = 1 << 20;  // written to the pipe but not yet taken
}  // namespace

ShellBoltTask::ShellBoltTask(TaskHost& host, ProcessHost& process, TupleHost& tuple_host,
                             int task_id)
    : ShellTask(host, process, task_id), tuple_host_(tuple_host), inflight_(1), ticks_(host.io()) {
  ConfigView conf(&cdef_.config);
  max_pending_ = static_cast<std::size_t>(conf.IntValue(keys::kShellBoltMaxPending));
  heartbeat_every_ = conf.SecondsValue(keys::kHeartbeatSecs);
  message_timeout_ = conf.SecondsValue(keys::kMessageTimeoutSecs);
  tick_secs_ = conf.Int(keys::kTickTupleFreqSecs).value_or(0);  // unset: no ticks
}

void ShellBoltTask::Deliver(InputTuple&& tuple) {
  queue_bytes_ += tuple.ValueBytes();
  queue_.push_back(std::move(tuple));
  stats_.queue_depth = QueueDepth();
  if (Ready()) SchedulePump();
}

void ShellBoltTask::SchedulePump() {
  // One Pump per turn of the event loop, after the handler that queued work returns: a read
  // batch that delivers or acks hundreds of tuples is answered with one batch, not hundreds.
  if (pump_posted_) return;
  pump_posted_ = true;
  boost::asio::post(host_.io(), [this] {
    pump_posted_ = false;
    if (Ready()) Pump();
  });
}

void ShellBoltTask::OnReady() {
  last_heartbeat_ = Clock::now();
  ticks_.Start(tick_secs_, [this](InputTuple&& t) { Deliver(std::move(t)); });
  Pump();
}

void ShellBoltTask::Pump() {
  out_.clear();
  const auto now = multilang::LoopClock::Now();
  std::size_t batch = 0;
  while (!queue_.empty() && UnwrittenMessages() + batch < max_pending_ &&
         QueuedBytes() + out_.size() < kMaxQueuedBytes) {
    InputTuple t = std::move(queue_.front());
    queue_.pop_front();
    queue_bytes_ -= t.ValueBytes();
    // Positive, as Storm's signed longs print.
    const std::uint64_t id = tuple_host_.ids().Next() >> 1;
    if (t.tick) {
      encoder_.Tick(out_, id, t.tick_freq_secs);
    } else {
      const auto& src = host_.plan().component(t.tuple->source_component);
      if (auto err = encoder_.Tuple(out_, id, src.id, src.stream(t.tuple->stream).id,
                                    t.tuple->source_task, t.tuple->values_json)) {
        // Values are validated where they enter; one this encoding cannot carry fails its
        // trees (replayed by their spouts) instead of reaching the child half-written.
        for (const auto& r : t.roots) tuple_host_.acker().Fail(r.root);
        stats_.failed++;
        host_.ReportError(id_, "a tuple from `" + src.id + "` could not be encoded for this " +
                                   "component: " + *err);
        continue;
      }
    }
    ++batch;
    inflight_.Add(id, std::move(t.roots), t.arrived_ns, t.tick, [now] { return now; });
  }
  if (!out_.empty()) Send(out_, batch);
  stats_.queue_depth = QueueDepth();
  stats_.pending = inflight_.size();
  UpdateBusy();
}

void ShellBoltTask::UpdateBusy() {
  const bool busy = !inflight_.empty();
  if (busy == busy_) return;
  const auto now = Clock::now();
  if (busy) {
    busy_since_ = now;
  } else {
    busy_ms_ += std::chrono::duration<double, std::milli>(now - busy_since_).count();
  }
  busy_ = busy;
}

void ShellBoltTask::OnCommand(multilang::ComponentMessage& msg, const std::string& raw) {
  switch (msg.command) {
    case Command::kEmit:
      HandleEmit(msg, raw);
      return;
    case Command::kAck:
      HandleAckFail(msg, raw, true);
      return;
    case Command::kFail:
      HandleAckFail(msg, raw, false);
      return;
    case Command::kSync:  // heartbeat reply; last_heard_ is already updated
      return;
    case Command::kError:  // handled by ShellTask before OnCommand
    case Command::kLog:
    case Command::kMetrics:
    case Command::kPid:
      return;
  }
}

void ShellBoltTask::HandleAckFail(multilang::ComponentMessage& msg, const std::string& raw,
                                  bool ack) {
  bool tick = false;
  switch (inflight_.Finish(
      msg.id, ack, tuple_host_.acker(), stats_, NowNs(), [] { return multilang::LoopClock::Now(); },
      tick)) {
    case InFlightTable::Known::kHeld:
      break;
    case InFlightTable::Known::kExpired:
      return;  // the tree timed out already; nothing to do
    case InFlightTable::Known::kUnknown:
      Violation(std::string("protocol violation: ") + (ack ? "ack" : "fail") +
                    " of unknown tuple id \"" + msg.id +
                    "\" (never sent, a heartbeat, or already acked/failed)",
                raw);
      return;
  }
  // A tick is the runtime's own clock, not activity: it must not hold off --stop-when-idle.
  if (!tick) host_.NoteActivity();
  SchedulePump();
}

void ShellBoltTask::HandleEmit(multilang::ComponentMessage& msg, const std::string& raw) {
  // Resolve anchors before anything is routed, so a bad anchor emits nothing.
  if (auto unknown = inflight_.Anchor(msg.anchors, anchors_)) {
    Violation("protocol violation: emit anchored to unknown tuple id \"" + *unknown +
                  "\" (never sent, or already acked/failed)",
              raw);
    return;
  }
  std::optional<std::int64_t> direct;
  if (msg.task && *msg.task != 0) direct = *msg.task;
  const bool need_ids = msg.need_task_ids && !direct;
  auto tuple = MakeEmitted(msg, raw);
  if (!tuple) return;
  targets_.clear();
  if (auto err = tuple_host_.Route(id_, *tuple, direct, targets_)) {
    Violation("protocol violation: " + *err, raw);
    return;
  }
  stats_.emitted++;
  stats_.transferred += targets_.size();
  DeliverFromBolt(tuple_host_, std::move(tuple), targets_, anchors_);
  if (need_ids) ReplyTaskIds(targets_);
  host_.NoteActivity();
}

void ShellBoltTask::Housekeeping(Clock::time_point now) {
  if (!Ready() || !ReadsItsStdin(now)) return;
  if (now - last_heard_ > subprocess_timeout_) {
    Violation("no heartbeat reply or other message for " + SecondsText(now - last_heard_) +
                  " s (topology.subprocess.timeout.secs): the process is stuck",
              {});
    return;
  }
  if (now - last_heartbeat_ >= heartbeat_every_) {
    last_heartbeat_ = now;
    std::string beat;
    encoder_.Heartbeat(beat, tuple_host_.ids().Next() >> 1);
    Send(beat);
  }
  // Forget inputs the bolt never acked once their trees have timed out.
  inflight_.Expire(now, message_timeout_ + std::chrono::seconds(1), stats_);
  Pump();
}

void ShellBoltTask::OnBroken() {
  ticks_.Stop();
  // Fail what the child had; keep what is still queued for the next process.
  stats_.failed += inflight_.FailAll(tuple_host_.acker());
  UpdateBusy();
  queue_.erase(
      std::remove_if(queue_.begin(), queue_.end(), [](const InputTuple& t) { return t.tick; }),
      queue_.end());
  stats_.queue_depth = QueueDepth();
  stats_.pending = 0;
}

}  // namespace sparse::runtime
