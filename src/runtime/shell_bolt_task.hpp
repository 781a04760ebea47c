// A bolt child process: Storm's ShellBolt semantics, asynchronous both ways.
//
// Tuples wait in the runtime's queue and are written to the child as fast as its pipe takes them:
// topology.shellbolt.max.pending bounds the tuples handed to the pipe but not yet written into
// it (Storm's ShellBolt pending-writes queue), not the tuples written and not yet acked. A bolt
// that acks late (pystorm's BatchingBolt acks a batch when a tick comes) keeps reading, so its
// ticks, queued in order like any tuple, reach it. Written, un-acked inputs still count in
// QueueDepth, so the spouts feeding this task stop at its high watermark: memory stays bounded.
// Each delivery gets a unique string id; heartbeats go out every sparse.heartbeat.secs and any
// message from the child counts as a sign of life. Un-acked inputs older than the message
// timeout are forgotten (their trees have timed out already), so the table cannot grow without
// bound.
#pragma once

#include <boost/asio/steady_timer.hpp>
#include <deque>

#include "runtime/delivery.hpp"
#include "runtime/inflight_table.hpp"
#include "runtime/shell_task.hpp"
#include "runtime/tick_source.hpp"

namespace sparse::runtime {

class ShellBoltTask final : public ShellTask {
 public:
  ShellBoltTask(TaskHost& host, ProcessHost& process, TupleHost& tuple_host, int task_id);

  void Deliver(InputTuple&& tuple) override;
  void Housekeeping(Clock::time_point now) override;
  std::size_t QueueDepth() const override { return queue_.size() + inflight_.size(); }
  std::size_t HeldBytes() const override { return queue_bytes_ + QueuedBytes(); }
  double BusyMs(Clock::time_point now) const override {
    return busy_ms_ +
           (busy_ ? std::chrono::duration<double, std::milli>(now - busy_since_).count() : 0);
  }

 private:
  void OnCommand(multilang::ComponentMessage& msg, const std::string& raw) override;
  void OnReady() override;
  void OnBroken() override;
  void OnWritten() override { SchedulePump(); }
  void Pump();
  void SchedulePump();
  void HandleEmit(multilang::ComponentMessage& msg, const std::string& raw);
  void HandleAckFail(multilang::ComponentMessage& msg, const std::string& raw, bool ack);
  void UpdateBusy();

  std::deque<InputTuple> queue_;
  std::size_t queue_bytes_ = 0;  // ValueBytes of queue_
  TupleHost& tuple_host_;
  InFlightTable inflight_;  // every input timed: its handing-over time is also its expiry clock
  std::size_t max_pending_;
  std::chrono::milliseconds heartbeat_every_;
  std::chrono::milliseconds message_timeout_;
  Clock::time_point last_heartbeat_{};
  TickSource ticks_;
  std::int64_t tick_secs_ = 0;
  bool busy_ = false;
  Clock::time_point busy_since_{};
  double busy_ms_ = 0;
  std::vector<int> targets_;
  std::vector<AnchorRef> anchors_;  // of the emit being handled (kept for its capacity)
  std::string out_;                 // the batch Pump writes (kept for its capacity)
  bool pump_posted_ = false;
};

}  // namespace sparse::runtime
