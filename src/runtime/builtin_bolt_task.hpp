// A task that hosts a built-in bolt: queues its inputs and hands them to Execute, at most
// sparse.builtin.max.pending un-acked at a time; the inputs handed over are held in an
// InFlightTable (acking, anchoring, latency: the rules of a shell bolt) until the component acks
// or fails them, inside Execute or later (the Kafka bolt acks on delivery reports). An emit with
// no anchors is anchored to the input being executed, if it is still held. Ticks
// (topology.tick.tuple.freq.secs) are queued like any input and need no ack.
#pragma once

#include <cstdint>
#include <deque>
#include <optional>

#include "runtime/builtin_task.hpp"
#include "runtime/delivery.hpp"
#include "runtime/inflight_table.hpp"
#include "runtime/tick_source.hpp"

namespace sparse::runtime {

class BuiltinBoltTask final : public BuiltinTask {
 public:
  BuiltinBoltTask(TaskHost& host, TupleHost& tuple_host, int task_id,
                  std::unique_ptr<BuiltinComponent> impl);
  ~BuiltinBoltTask() override;

  void Deliver(InputTuple&& tuple) override;
  std::size_t QueueDepth() const override { return queue_.size() + inflight_.size(); }
  std::size_t HeldBytes() const override { return queue_bytes_; }

  // BuiltinCollector.
  void Ack(const std::string& tuple_id) override { Finish(tuple_id, true); }
  void Fail(const std::string& tuple_id) override { Finish(tuple_id, false); }
  void Wakeup() override {}  // for spouts: a bolt is woken by its inputs

 private:
  // Like Storm (topology.stats.sample.rate 0.05), execute latency is measured on one tuple in
  // kLatencySampleEvery: reading the clock twice per tuple cost more than the count sink's work.
  static constexpr unsigned kLatencySampleEvery = 20;

  void OnOpened() override;
  void OnClosing() override { ticks_.Stop(); }
  // The inputs in flight fail (their trees); not counted as failed by this task.
  void OnAbort() override { inflight_.FailAll(tuple_host_.acker()); }
  const std::vector<int>& Send(std::shared_ptr<const EmittedTuple> tuple,
                               const std::string& message_id_json,
                               const std::vector<std::string>& anchors,
                               std::optional<int> direct_task) override;
  void Finish(const std::string& tuple_id, bool ack);
  void Pump();
  void SchedulePump();

  std::optional<std::int64_t> max_pending_;
  TickSource ticks_;
  std::int64_t tick_secs_ = 0;
  std::deque<InputTuple> queue_;
  std::size_t queue_bytes_ = 0;  // ValueBytes of queue_
  InFlightTable inflight_{kLatencySampleEvery};
  std::uint64_t last_input_id_ = 0;
  std::optional<std::uint64_t> current_;  // the input being executed (auto-anchor target)
  std::vector<AnchorRef> anchors_;        // of the emit being sent (kept for its capacity)
  bool pumping_ = false;                  // Pump is running
  bool pump_scheduled_ = false;           // a Pump is posted
};

}  // namespace sparse::runtime
