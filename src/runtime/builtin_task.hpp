// Tasks that host a BuiltinComponent inside the runtime, with the same semantics as shell tasks
// (acking, anchoring, pacing, max pending) but no process and no serialization.
#pragma once

#include <boost/asio/steady_timer.hpp>
#include <deque>
#include <memory>
#include <unordered_map>

#include "base/lifetime_gate.hpp"
#include "runtime/builtin.hpp"
#include "runtime/pool_allocator.hpp"
#include "runtime/task.hpp"
#include "runtime/tick_source.hpp"

namespace sparse::runtime {

class BuiltinTask : public Task, public BuiltinCollector {
 public:
  BuiltinTask(TaskHost& host, int task_id, std::unique_ptr<BuiltinComponent> impl);
  ~BuiltinTask() override;

  void Start() override;
  void Terminate() override;
  void Kill() override { Terminate(); }
  void Abort() override;
  bool Alive() const override { return open_; }
  bool Ready() const override { return open_; }
  std::size_t QueueDepth() const override { return queue_.size() + inflight_.size(); }
  std::size_t HeldBytes() const override { return queue_bytes_; }

  // Spout side.
  void Activate() override;
  void Deactivate() override;
  void TreeDone(std::string message_id, TreeOutcome outcome) override;
  void Wake() override;
  void Housekeeping(Clock::time_point now) override;
  // Bolt side.
  void Deliver(InputTuple&& tuple) override;

  // BuiltinCollector.
  const std::vector<int>& Emit(const std::string& stream, std::string values_json,
                               const std::string& message_id_json,
                               const std::vector<std::string>& anchors,
                               std::optional<int> direct_task) override;
  std::shared_ptr<const EmittedTuple> Prepare(const std::string& stream,
                                              std::string values_json) override;
  std::shared_ptr<const EmittedTuple> PrepareEncoded(const std::string& stream,
                                                     std::string values_json,
                                                     const ValueSpans& spans) override;
  const std::vector<int>& EmitPrepared(std::shared_ptr<const EmittedTuple> tuple,
                                       const std::string& message_id_json) override;
  void Ack(const std::string& tuple_id) override;
  void Fail(const std::string& tuple_id) override;
  void Log(int level, const std::string& msg) override;
  void ReportError(const std::string& msg) override;
  void SetGauge(const std::string& name, double value) override { stats_.gauges[name] = value; }
  void Wakeup() override { Wake(); }
  void Fatal(const std::string& reason) override;
  std::optional<TreeOrigin> OriginOf(std::uint64_t root) const override;

 private:
  struct InFlight {
    InputTuple input;
    std::uint64_t ack_val = 0;
    Clock::time_point started;  // set for sampled tuples only (see PumpBolt)
    bool timed = false;
  };
  // Like Storm (topology.stats.sample.rate 0.05), execute latency is measured on one tuple in
  // kLatencySampleEvery: reading the clock twice per tuple cost more than the count sink's work.
  static constexpr unsigned kLatencySampleEvery = 20;
  unsigned sample_counter_ = 0;
  void ScheduleNext(std::chrono::milliseconds delay);
  void RunNext();
  void Finish(const std::string& tuple_id, bool ack);
  // A tuple on `stream` holding `values_json`, spans not yet set; null (reported and counted)
  // when the component did not declare the stream.
  std::shared_ptr<EmittedTuple> NewTuple(const std::string& stream, std::string values_json);
  // Emit is Prepare (the tuple: null, reported and counted, when it cannot be made) + Send
  // (routing and delivery).
  const std::vector<int>& Send(std::shared_ptr<const EmittedTuple> tuple,
                               const std::string& message_id_json,
                               const std::vector<std::string>& anchors,
                               std::optional<int> direct_task);
  void FailDropped(const std::string& message_id_json);
  void PumpBolt();
  void SchedulePump();

  std::unique_ptr<BuiltinComponent> impl_;
  bool open_ = false;
  bool active_ = false;
  bool scheduled_ = false;
  bool resting_ = false;     // scheduled_ by next_timer_ (a rest), not by a post
  bool wake_early_ = false;  // Wake() cancelled the rest: run NextTuple from its handler
  bool spout_;
  bool acking_ = true;
  std::optional<std::int64_t> max_pending_;
  std::chrono::milliseconds rest_;
  boost::asio::steady_timer next_timer_;
  TickSource ticks_;
  std::int64_t tick_secs_ = 0;
  bool emitted_ = false;
  bool pumping_ = false;         // PumpBolt is running
  bool pump_scheduled_ = false;  // a PumpBolt is posted
  bool throttled_since_set_ = false;
  Clock::time_point throttled_since_{};
  std::deque<InputTuple> queue_;
  std::size_t queue_bytes_ = 0;  // ValueBytes of queue_
  PooledHashMap<std::uint64_t, InFlight> inflight_;
  std::uint64_t last_input_id_ = 0;
  InFlight* current_ = nullptr;  // bolt: the input being executed (auto-anchor target)
  std::vector<int> targets_;
  base::LifetimeGate gate_;
};

}  // namespace sparse::runtime
