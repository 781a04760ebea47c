#include "runtime/builtin_task.hpp"

#include <boost/asio/post.hpp>
#include <cassert>
#include <charconv>

#include "multilang/loop_clock.hpp"
#include "multilang/messages.hpp"
#include "runtime/config.hpp"
#include "runtime/delivery.hpp"

namespace sparse::runtime {

BuiltinTask::BuiltinTask(TaskHost& host, int task_id, std::unique_ptr<BuiltinComponent> impl)
    : Task(host, task_id),
      impl_(std::move(impl)),
      spout_(cdef_.def->is_spout()),
      next_timer_(host.io()),
      ticks_(host.io()) {
  ConfigView conf(&cdef_.config);
  acking_ = conf.AckingEnabled();
  max_pending_ = spout_ ? conf.Int(keys::kMaxSpoutPending) : conf.Int(keys::kBuiltinMaxPending);
  rest_ = std::chrono::milliseconds(conf.IntValue(keys::kSleepSpoutWaitMs));
  tick_secs_ = conf.Int(keys::kTickTupleFreqSecs).value_or(0);  // unset: no ticks
}

BuiltinTask::~BuiltinTask() {
  gate_.Close();
  if (open_) impl_->Close();
}

void BuiltinTask::Start() {
  const auto& plan = host_.plan();
  if (auto err = impl_->Open(cdef_.config, id_, plan.task_index[id_],
                             static_cast<int>(cdef_.tasks.size()), *this, host_.io())) {
    FailureReport r;
    r.task = id_;
    r.component = cdef_.id;
    r.reason = "built-in `" + cdef_.def->builtin + "` failed to open: " + *err;
    r.during_start = true;
    host_.TaskFailed(std::move(r));
    return;
  }
  open_ = true;
  host_.TaskReady(id_);
  if (!spout_) ticks_.Start(tick_secs_, [this](InputTuple&& t) { Deliver(std::move(t)); });
}

void BuiltinTask::Terminate() {
  if (!open_) return;
  open_ = false;
  next_timer_.cancel();
  ticks_.Stop();
  impl_->Close();
}

void BuiltinTask::Abort() {
  for (auto& [id, f] : inflight_) {
    for (const auto& r : f.input.roots) host_.acker().Fail(r.root);
  }
  inflight_.clear();
  Terminate();
}

void BuiltinTask::Activate() {
  if (!spout_ || active_) return;
  active_ = true;
  impl_->Activate();
  ScheduleNext(std::chrono::milliseconds(0));
}

void BuiltinTask::Deactivate() {
  if (!spout_ || !active_) return;
  active_ = false;
  impl_->Deactivate();
}

void BuiltinTask::Wake() {
  if (!spout_) return;
  if (scheduled_ && resting_) {
    // Cut a rest (or a backpressure re-check) short: the timer's handler runs NextTuple now.
    wake_early_ = true;
    next_timer_.cancel();
    return;
  }
  ScheduleNext(std::chrono::milliseconds(0));
}

void BuiltinTask::ScheduleNext(std::chrono::milliseconds delay) {
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

void BuiltinTask::RunNext() {
  if (!open_ || !active_) return;
  // Everything this round emits shares one clock reading (tree starts, arrival times).
  multilang::LoopClock::Batch batch;
  const auto now = multilang::LoopClock::Now();
  if (host_.Throttled(id_)) {
    if (!throttled_since_set_) {
      throttled_since_set_ = true;
      throttled_since_ = now;
      impl_->Backpressure(true);
    }
    ScheduleNext(std::chrono::milliseconds(10));
    return;
  }
  if (throttled_since_set_) {
    throttled_since_set_ = false;
    stats_.backpressure_ms += static_cast<std::uint64_t>(
        std::chrono::duration_cast<std::chrono::milliseconds>(now - throttled_since_).count());
    impl_->Backpressure(false);
  }
  if (acking_ && max_pending_ && *max_pending_ > 0 &&
      static_cast<std::int64_t>(stats_.pending) >= *max_pending_) {
    return;  // TreeDone wakes us
  }
  emitted_ = false;
  impl_->NextTuple();
  ScheduleNext(emitted_ ? std::chrono::milliseconds(0) : rest_);
}

void BuiltinTask::TreeDone(std::string message_id, TreeOutcome outcome) {
  stats_.pending = stats_.pending ? stats_.pending - 1 : 0;
  switch (outcome) {
    case TreeOutcome::kAcked:
      stats_.acked++;
      impl_->Ack(message_id);
      break;
    case TreeOutcome::kTimedOut:
      stats_.timed_out++;
      [[fallthrough]];
    case TreeOutcome::kFailed:
      stats_.failed++;
      impl_->Fail(message_id);
      break;
    case TreeOutcome::kAbandoned:
      // As for a shell spout: the trees of a spout task that went away; nobody to tell.
      stats_.abandoned++;
      return;
  }
  ScheduleNext(std::chrono::milliseconds(0));
}

void BuiltinTask::Housekeeping(Clock::time_point) {
  if (spout_) ScheduleNext(std::chrono::milliseconds(0));
}

void BuiltinTask::Deliver(InputTuple&& tuple) {
  queue_bytes_ += tuple.ValueBytes();
  queue_.push_back(std::move(tuple));
  stats_.queue_depth = QueueDepth();
  SchedulePump();
}

void BuiltinTask::SchedulePump() {
  // One pump at a time: a running pump takes whatever arrives or frees a slot meanwhile, so a
  // bolt that acks inside Execute costs no extra turn of the loop per tuple.
  if (pumping_ || pump_scheduled_) return;
  pump_scheduled_ = true;
  auto alive = gate_.ticket();
  boost::asio::post(host_.io(), [this, alive] {
    if (!alive) return;
    pump_scheduled_ = false;
    PumpBolt();
  });
}

void BuiltinTask::PumpBolt() {
  if (!open_) return;
  multilang::LoopClock::Batch batch;
  pumping_ = true;
  const auto& plan = host_.plan();
  while (!queue_.empty() && (inflight_.size() < static_cast<std::size_t>(*max_pending_))) {
    // Ids only name inputs within this task (the acker's ids are the random ones), so a counter
    // does: short ids fit in a string without allocating.
    const std::uint64_t id = ++last_input_id_;
    InFlight& f = inflight_[id];
    f.input = std::move(queue_.front());
    queue_.pop_front();
    queue_bytes_ -= f.input.ValueBytes();
    if (++sample_counter_ >= kLatencySampleEvery) {
      sample_counter_ = 0;
      f.timed = true;
      f.started = Clock::now();
    }
    BuiltinTuple bt;
    bt.id = std::to_string(id);
    bt.tick = f.input.tick;
    if (f.input.tuple) {
      const auto& src = plan.components[f.input.tuple->source_component];
      bt.tuple = f.input.tuple.get();
      bt.component = src.id;
      bt.stream = src.streams[f.input.tuple->stream].id;
      bt.fields = &src.streams[f.input.tuple->stream].fields;
      bt.roots = &f.input.roots;
    } else {
      bt.component = "__system";
      bt.stream = "__tick";
    }
    current_ = &f;
    impl_->Execute(bt);
    current_ = nullptr;
    if (bt.tick && inflight_.count(id)) inflight_.erase(id);  // ticks need no ack
  }
  pumping_ = false;
  stats_.queue_depth = QueueDepth();
  stats_.pending = inflight_.size();
}

std::optional<TreeOrigin> BuiltinTask::OriginOf(std::uint64_t root) const {
  int spout_task = 0;
  const std::string* message_id = nullptr;
  if (!host_.acker().Origin(root, spout_task, message_id)) return std::nullopt;
  return TreeOrigin{spout_task, *message_id};
}

std::shared_ptr<EmittedTuple> BuiltinTask::NewTuple(const std::string& stream,
                                                    std::string values_json) {
  auto it = cdef_.stream_index.find(stream);
  if (it == cdef_.stream_index.end()) {
    ReportError("emit to undeclared stream `" + stream + "`: tuple dropped");
    stats_.dropped++;
    return nullptr;
  }
  auto t = std::make_shared<EmittedTuple>();
  t->values_json = std::move(values_json);
  t->source_task = id_;
  t->source_component = component_;
  t->stream = it->second;
  return t;
}

std::shared_ptr<const EmittedTuple> BuiltinTask::Prepare(const std::string& stream,
                                                         std::string values_json) {
  auto t = NewTuple(stream, std::move(values_json));
  if (!t) return nullptr;
  // Built-in components carry untrusted data too (a Kafka record): checked like a child's emit.
  if (auto err = ValidateTuple(t->values_json, t->spans)) {
    ReportError("emit of values that are not a valid JSON array (" + *err +
                "): tuple dropped: " + multilang::Truncate(t->values_json));
    stats_.dropped++;
    return nullptr;
  }
  return t;
}

std::shared_ptr<const EmittedTuple> BuiltinTask::PrepareEncoded(const std::string& stream,
                                                                std::string values_json,
                                                                const ValueSpans& spans) {
  auto t = NewTuple(stream, std::move(values_json));
  if (!t) return nullptr;
  t->spans = spans;
#ifndef NDEBUG
  // The producer's promise, checked where asserts are on (the sanitizer build's tests).
  ValueSpans checked;
  assert(!ValidateTuple(t->values_json, checked) && checked == spans);
#endif
  return t;
}

const std::vector<int>& BuiltinTask::Emit(const std::string& stream, std::string values_json,
                                          const std::string& message_id_json,
                                          const std::vector<std::string>& anchors,
                                          std::optional<int> direct_task) {
  targets_.clear();
  auto t = Prepare(stream, std::move(values_json));
  if (!t) {
    FailDropped(message_id_json);
    return targets_;
  }
  return Send(std::move(t), message_id_json, anchors, direct_task);
}

const std::vector<int>& BuiltinTask::EmitPrepared(std::shared_ptr<const EmittedTuple> tuple,
                                                  const std::string& message_id_json) {
  targets_.clear();
  if (!tuple) {
    FailDropped(message_id_json);
    return targets_;
  }
  return Send(std::move(tuple), message_id_json, {}, std::nullopt);
}

void BuiltinTask::FailDropped(const std::string& message_id_json) {
  // A spout's reliable tuple that could not be emitted is failed, like one that timed out, so
  // the spout can retry or give it up: never left waiting for an ack that cannot come.
  if (!spout_ || message_id_json.empty()) return;
  stats_.failed++;
  auto alive = gate_.ticket();
  boost::asio::post(host_.io(), [this, alive, message_id_json] {
    if (alive && open_) impl_->Fail(message_id_json);
  });
}

const std::vector<int>& BuiltinTask::Send(std::shared_ptr<const EmittedTuple> t,
                                          const std::string& message_id_json,
                                          const std::vector<std::string>& anchors,
                                          std::optional<int> direct_task) {
  targets_.clear();
  // A bolt's anchors are resolved before anything is routed, as for a shell bolt, so an emit
  // anchored to an input this task does not hold (never received, or already acked or failed)
  // goes nowhere rather than out unanchored, where its tree would no longer wait for it.
  std::vector<AnchorRef> refs;
  if (!spout_) {
    auto add = [&](InFlight* f) {
      if (f) refs.push_back({&f->input.roots, &f->ack_val});
    };
    if (anchors.empty()) {
      add(current_);
    } else {
      for (const auto& a : anchors) {
        std::uint64_t id = 0;
        std::from_chars(a.data(), a.data() + a.size(), id);
        auto f = inflight_.find(id);
        if (f == inflight_.end()) {
          ReportError("emit anchored to unknown tuple id \"" + a +
                      "\" (never received, or already acked/failed): tuple dropped");
          stats_.dropped++;
          return targets_;
        }
        add(&f->second);
      }
    }
  }
  std::optional<std::int64_t> direct;
  if (direct_task) direct = *direct_task;
  if (auto err = host_.Route(id_, *t, direct, targets_)) {
    ReportError(*err + ": tuple dropped");
    stats_.dropped++;
    targets_.clear();
    FailDropped(message_id_json);
    return targets_;
  }
  stats_.emitted++;
  stats_.transferred += targets_.size();
  emitted_ = true;
  if (spout_) {
    const bool tracked = acking_ && !message_id_json.empty();
    if (tracked) {
      stats_.pending++;
    } else if (!message_id_json.empty()) {
      stats_.acked++;
      auto alive = gate_.ticket();
      boost::asio::post(host_.io(), [this, alive, message_id_json] {
        if (alive && open_) impl_->Ack(message_id_json);
      });
    }
    DeliverFromSpout(host_, id_, std::move(t), targets_, message_id_json, tracked);
  } else {
    DeliverFromBolt(host_, std::move(t), targets_, refs);
  }
  host_.NoteActivity();
  return targets_;
}

void BuiltinTask::Finish(const std::string& tuple_id, bool ack) {
  std::uint64_t id = 0;
  std::from_chars(tuple_id.data(), tuple_id.data() + tuple_id.size(), id);
  auto it = inflight_.find(id);
  if (it == inflight_.end()) return;
  if (current_ == &it->second) current_ = nullptr;
  InFlight f = std::move(it->second);
  inflight_.erase(it);
  for (const auto& r : f.input.roots) {
    if (ack) {
      host_.acker().Update(r.root, r.id ^ f.ack_val);
    } else {
      host_.acker().Fail(r.root);
    }
  }
  if (!f.input.tick) {
    stats_.executed++;
    (ack ? stats_.acked : stats_.failed)++;
    if (f.timed) {
      stats_.execute_latency.Add(
          std::chrono::duration<double, std::milli>(Clock::now() - f.started).count());
    }
    stats_.process_latency.Add(static_cast<double>(NowNs() - f.input.arrived_ns) / 1e6);
  }
  // A tick is the runtime's own clock, not activity: it must not hold off --stop-when-idle.
  if (!f.input.tick) host_.NoteActivity();
  // Acks may come outside a pump (the Kafka bolt acks on delivery reports): the gauges must not
  // keep what the last pump saw. (A spout's `pending` counts its trees, kept elsewhere.)
  if (!spout_) {
    stats_.pending = inflight_.size();
    stats_.queue_depth = QueueDepth();
  }
  if (!queue_.empty()) SchedulePump();
}

void BuiltinTask::Ack(const std::string& tuple_id) {
  Finish(tuple_id, true);
}
void BuiltinTask::Fail(const std::string& tuple_id) {
  Finish(tuple_id, false);
}

void BuiltinTask::Fatal(const std::string& reason) {
  if (!open_) return;
  auto alive = gate_.ticket();
  boost::asio::post(host_.io(), [this, alive, reason] {
    if (!alive || !open_) return;
    Abort();  // fails the inputs in flight, closes the component
    active_ = false;
    throttled_since_set_ = false;
    FailureReport r;
    r.task = id_;
    r.component = cdef_.id;
    r.reason = "built-in `" + cdef_.def->builtin + "` failed: " + reason;
    host_.TaskFailed(std::move(r));
  });
}

void BuiltinTask::Log(int level, const std::string& msg) {
  stats_.logs++;
  host_.Log(id_, static_cast<multilang::LogLevel>(std::clamp(level, 0, 4)), msg);
}

void BuiltinTask::ReportError(const std::string& msg) {
  stats_.errors++;
  host_.ReportError(id_, msg);
}

}  // namespace sparse::runtime
