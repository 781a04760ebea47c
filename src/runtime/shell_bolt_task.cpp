#include "runtime/shell_bolt_task.hpp"

#include <boost/asio/post.hpp>
#include <charconv>

#include "multilang/loop_clock.hpp"
#include "runtime/config.hpp"
#include "runtime/delivery.hpp"

namespace sparse::runtime {

using multilang::Command;

namespace {
constexpr std::size_t kMaxQueuedBytes = 1 << 20;  // written to the pipe but not yet taken
constexpr std::size_t kExpiredMemory = 65536;
}  // namespace

ShellBoltTask::ShellBoltTask(TaskHost& host, int task_id)
    : ShellTask(host, task_id), ticks_(host.io()) {
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
    const std::uint64_t id = host_.ids().Next() >> 1;  // positive, as Storm's signed longs print
    if (t.tick) {
      encoder_.Tick(out_, id, t.tick_freq_secs);
    } else {
      const auto& src = host_.plan().components[t.tuple->source_component];
      if (auto err = encoder_.Tuple(out_, id, src.id, src.streams[t.tuple->stream].id,
                                    t.tuple->source_task, t.tuple->values_json)) {
        // Values are validated where they enter; one this encoding cannot carry fails its
        // trees (replayed by their spouts) instead of reaching the child half-written.
        for (const auto& r : t.roots) host_.acker().Fail(r.root);
        stats_.failed++;
        host_.ReportError(id_, "a tuple from `" + src.id + "` could not be encoded for this " +
                                   "component: " + *err);
        continue;
      }
    }
    ++batch;
    InFlight f;
    f.roots = std::move(t.roots);
    f.arrived_ns = t.arrived_ns;
    f.written = now;
    f.tick = t.tick;
    inflight_.emplace(id, std::move(f));
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
    default:
      return;
  }
}

ShellBoltTask::InFlight* ShellBoltTask::FindInput(const std::string& id_text,
                                                  const std::string& raw, bool& expired) {
  expired = false;
  std::uint64_t id = 0;
  auto [p, ec] = std::from_chars(id_text.data(), id_text.data() + id_text.size(), id);
  if (ec == std::errc() && p == id_text.data() + id_text.size()) {
    auto it = inflight_.find(id);
    if (it != inflight_.end()) return &it->second;
    if (expired_.count(id)) {
      expired = true;
      return nullptr;
    }
  }
  (void)raw;
  return nullptr;
}

void ShellBoltTask::HandleAckFail(multilang::ComponentMessage& msg, const std::string& raw,
                                  bool ack) {
  std::uint64_t id = 0;
  std::from_chars(msg.id.data(), msg.id.data() + msg.id.size(), id);
  auto it = inflight_.find(id);
  if (it == inflight_.end() || msg.id.empty()) {
    if (expired_.count(id)) return;  // the tree timed out already; nothing to do
    Violation(std::string("protocol violation: ") + (ack ? "ack" : "fail") +
                  " of unknown tuple id \"" + msg.id +
                  "\" (never sent, a heartbeat, or already acked/failed)",
              raw);
    return;
  }
  InFlight f = std::move(it->second);
  inflight_.erase(it);
  auto& acker = host_.acker();
  for (const auto& r : f.roots) {
    if (ack) {
      acker.Update(r.root, r.id ^ f.ack_val);
    } else {
      acker.Fail(r.root);
    }
  }
  if (!f.tick) {
    stats_.executed++;
    (ack ? stats_.acked : stats_.failed)++;
    const auto now = multilang::LoopClock::Now();
    stats_.execute_latency.Add(std::chrono::duration<double, std::milli>(now - f.written).count());
    stats_.process_latency.Add(static_cast<double>(NowNs() - f.arrived_ns) / 1e6);
  }
  // A tick is the runtime's own clock, not activity: it must not hold off --stop-when-idle.
  if (!f.tick) host_.NoteActivity();
  SchedulePump();
}

void ShellBoltTask::HandleEmit(multilang::ComponentMessage& msg, const std::string& raw) {
  // Resolve anchors before anything is routed, so a bad anchor emits nothing.
  std::vector<InFlight*> anchors;
  anchors.reserve(msg.anchors.size());
  for (const auto& a : msg.anchors) {
    bool expired = false;
    InFlight* f = FindInput(a, raw, expired);
    if (f) {
      anchors.push_back(f);
    } else if (!expired) {
      Violation("protocol violation: emit anchored to unknown tuple id \"" + a +
                    "\" (never sent, or already acked/failed)",
                raw);
      return;
    }
  }
  std::optional<std::int64_t> direct;
  if (msg.task && *msg.task != 0) direct = *msg.task;
  const bool need_ids = msg.need_task_ids && !direct;
  auto tuple = MakeEmitted(msg, raw);
  if (!tuple) return;
  targets_.clear();
  if (auto err = host_.Route(id_, *tuple, direct, targets_)) {
    Violation("protocol violation: " + *err, raw);
    return;
  }
  stats_.emitted++;
  stats_.transferred += targets_.size();
  std::vector<AnchorRef> refs;
  refs.reserve(anchors.size());
  for (InFlight* a : anchors) refs.push_back({&a->roots, &a->ack_val});
  DeliverFromBolt(host_, std::move(tuple), targets_, refs);
  if (need_ids) ReplyTaskIds(targets_);
  host_.NoteActivity();
}

void ShellBoltTask::Housekeeping(Clock::time_point now) {
  if (!Ready() || !ReadsItsStdin(now)) return;
  if (now - last_heard_ > subprocess_timeout_) {
    auto secs = std::chrono::duration_cast<std::chrono::milliseconds>(now - last_heard_).count();
    Violation("no heartbeat reply or other message for " +
                  std::to_string(secs / 1000.0).substr(0, 5) +
                  " s (topology.subprocess.timeout.secs): the process is stuck",
              {});
    return;
  }
  if (now - last_heartbeat_ >= heartbeat_every_) {
    last_heartbeat_ = now;
    std::string beat;
    encoder_.Heartbeat(beat, host_.ids().Next() >> 1);
    Send(beat);
  }
  // Forget inputs the bolt never acked once their trees have timed out.
  for (auto it = inflight_.begin(); it != inflight_.end();) {
    if (now - it->second.written > message_timeout_ + std::chrono::seconds(1)) {
      expired_.insert(it->first);
      expired_order_.push_back(it->first);
      stats_.expired_inputs++;
      it = inflight_.erase(it);
    } else {
      ++it;
    }
  }
  while (expired_order_.size() > kExpiredMemory) {
    expired_.erase(expired_order_.front());
    expired_order_.pop_front();
  }
  Pump();
}

void ShellBoltTask::OnBroken() {
  ticks_.Stop();
  // Fail what the child had; keep what is still queued for the next process.
  auto& acker = host_.acker();
  for (auto& [id, f] : inflight_) {
    for (const auto& r : f.roots) acker.Fail(r.root);
    if (!f.tick) stats_.failed++;
  }
  inflight_.clear();
  UpdateBusy();
  queue_.erase(
      std::remove_if(queue_.begin(), queue_.end(), [](const InputTuple& t) { return t.tick; }),
      queue_.end());
  stats_.queue_depth = QueueDepth();
  stats_.pending = 0;
}

}  // namespace sparse::runtime
