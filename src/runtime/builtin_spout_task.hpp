// A task that hosts a built-in spout: calls NextTuple while active, not throttled by backpressure
// and below topology.max.spout.pending (the SpoutLedger's rules, as for a shell spout); after a
// NextTuple that emitted nothing it rests topology.sleep.spout.wait.strategy.time.ms, cut short by
// Wakeup. Tells the component the outcome of its trees (Ack/Fail) and of reliable tuples the
// runtime could not emit (Fail).
#pragma once

#include <boost/asio/steady_timer.hpp>
#include <chrono>

#include "runtime/builtin_task.hpp"
#include "runtime/spout_ledger.hpp"

namespace sparse::runtime {

class BuiltinSpoutTask final : public BuiltinTask {
 public:
  BuiltinSpoutTask(TaskHost& host, SpoutHost& spout_host, int task_id,
                   std::unique_ptr<BuiltinComponent> impl);
  ~BuiltinSpoutTask() override;

  void Activate() override;
  void Deactivate() override;
  void TreeDone(std::string message_id, TreeOutcome outcome) override;
  void Wake() override;
  void Housekeeping(Clock::time_point now) override;

  // BuiltinCollector: a spout holds no input tuples, so there is nothing of its own to ack.
  void Ack(const std::string& /*tuple_id*/) override {}
  void Fail(const std::string& /*tuple_id*/) override {}
  void Wakeup() override { Wake(); }

 private:
  void OnClosing() override { next_timer_.cancel(); }
  void OnFatal() override;
  const std::vector<int>& Send(std::shared_ptr<const EmittedTuple> tuple,
                               const std::string& message_id_json,
                               const std::vector<std::string>& anchors,
                               std::optional<int> direct_task) override;
  // A reliable tuple that could not be emitted is failed, like one that timed out, so the spout
  // can retry or give it up: never left waiting for an ack that cannot come.
  void Dropped(const std::string& message_id_json) override;
  void ScheduleNext(std::chrono::milliseconds delay);
  void RunNext();

  SpoutHost& spout_host_;
  SpoutLedger ledger_;
  bool active_ = false;
  bool scheduled_ = false;
  bool resting_ = false;     // scheduled_ by next_timer_ (a rest), not by a post
  bool wake_early_ = false;  // Wake() cancelled the rest: run NextTuple from its handler
  bool emitted_ = false;     // the current NextTuple emitted something
  std::chrono::milliseconds rest_;
  boost::asio::steady_timer next_timer_;
};

}  // namespace sparse::runtime
