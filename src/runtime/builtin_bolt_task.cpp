#include "runtime/builtin_bolt_task.hpp"

#include <boost/asio/post.hpp>

#include "multilang/loop_clock.hpp"
#include "runtime/config.hpp"

namespace sparse::runtime {

BuiltinBoltTask::BuiltinBoltTask(TaskHost& host, TupleHost& tuple_host, int task_id,
                                 std::unique_ptr<BuiltinComponent> impl)
    : BuiltinTask(host, tuple_host, task_id, std::move(impl)),
      max_pending_(ConfigView(&cdef_.config).Int(keys::kBuiltinMaxPending)),
      ticks_(host.io()),
      // Unset: no ticks.
      tick_secs_(ConfigView(&cdef_.config).Int(keys::kTickTupleFreqSecs).value_or(0)) {}

BuiltinBoltTask::~BuiltinBoltTask() {
  CloseOnDestroy();
}

void BuiltinBoltTask::OnOpened() {
  ticks_.Start(tick_secs_, [this](InputTuple&& t) { Deliver(std::move(t)); });
}

void BuiltinBoltTask::Deliver(InputTuple&& tuple) {
  queue_bytes_ += tuple.ValueBytes();
  queue_.push_back(std::move(tuple));
  stats_.queue_depth = QueueDepth();
  SchedulePump();
}

void BuiltinBoltTask::SchedulePump() {
  // One pump at a time: a running pump takes whatever arrives or frees a slot meanwhile, so a
  // bolt that acks inside Execute costs no extra turn of the loop per tuple.
  if (pumping_ || pump_scheduled_) return;
  pump_scheduled_ = true;
  auto alive = gate_.ticket();
  boost::asio::post(host_.io(), [this, alive] {
    if (!alive) return;
    pump_scheduled_ = false;
    Pump();
  });
}

void BuiltinBoltTask::Pump() {
  if (!open_) return;
  multilang::LoopClock::Batch batch;
  pumping_ = true;
  const auto& plan = host_.plan();
  while (!queue_.empty() && (inflight_.size() < static_cast<std::size_t>(*max_pending_))) {
    // Ids only name inputs within this task (the acker's ids are the random ones), so a counter
    // does: short ids fit in a string without allocating.
    const std::uint64_t id = ++last_input_id_;
    // Taken apart in place (its roots go straight into the table): no InputTuple is moved.
    InputTuple& front = queue_.front();
    queue_bytes_ -= front.ValueBytes();
    const std::shared_ptr<const EmittedTuple> tuple = std::move(front.tuple);
    const bool tick = front.tick;
    InFlightTable::Input& held = inflight_.Add(id, std::move(front.roots), front.arrived_ns, tick,
                                               [] { return Clock::now(); });
    queue_.pop_front();
    BuiltinTuple bt;
    bt.id = std::to_string(id);
    bt.tick = tick;
    if (tuple) {
      const auto& src = plan.component(tuple->source_component);
      bt.tuple = tuple.get();
      bt.component = src.id;
      bt.stream = src.stream(tuple->stream).id;
      bt.fields = &src.stream(tuple->stream).fields;
      bt.roots = &held.roots;
    } else {
      bt.component = "__system";
      bt.stream = "__tick";
    }
    current_ = id;
    impl_->Execute(bt);
    current_.reset();
    if (bt.tick) inflight_.Forget(id);  // ticks need no ack
  }
  pumping_ = false;
  stats_.queue_depth = QueueDepth();
  stats_.pending = inflight_.size();
}

const std::vector<int>& BuiltinBoltTask::Send(std::shared_ptr<const EmittedTuple> t,
                                              const std::string& /*message_id_json*/,
                                              const std::vector<std::string>& anchors,
                                              std::optional<int> direct_task) {
  targets_.clear();
  // The anchors are resolved before anything is routed, as for a shell bolt, so an emit anchored
  // to an input this task does not hold (never received, or already acked or failed) goes
  // nowhere rather than out unanchored, where its tree would no longer wait for it.
  if (anchors.empty()) {
    anchors_.clear();
    if (InFlightTable::Input* in = current_ ? inflight_.Find(*current_) : nullptr) {
      anchors_.push_back({&in->roots, &in->ack_val});
    }
  } else if (auto unknown = inflight_.Anchor(anchors, anchors_)) {
    ReportError("emit anchored to unknown tuple id \"" + *unknown +
                "\" (never received, or already acked/failed): tuple dropped");
    stats_.dropped++;
    return targets_;
  }
  if (!RouteEmit(*t, direct_task)) return targets_;
  DeliverFromBolt(tuple_host_, std::move(t), targets_, anchors_);
  host_.NoteActivity();
  return targets_;
}

void BuiltinBoltTask::Finish(const std::string& tuple_id, bool ack) {
  bool tick = false;
  if (inflight_.Finish(
          tuple_id, ack, tuple_host_.acker(), stats_, NowNs(), [] { return Clock::now(); }, tick) !=
      InFlightTable::Known::kHeld) {
    return;
  }
  // A tick is the runtime's own clock, not activity: it must not hold off --stop-when-idle.
  if (!tick) host_.NoteActivity();
  // Acks may come outside a pump (the Kafka bolt acks on delivery reports): the gauges must not
  // keep what the last pump saw.
  stats_.pending = inflight_.size();
  stats_.queue_depth = QueueDepth();
  if (!queue_.empty()) SchedulePump();
}

}  // namespace sparse::runtime
