// A spout child process: Storm's ShellSpout semantics, synchronous.
//
// One command at a time (next, ack, fail, activate, deactivate), each answered by exactly one
// `sync`; acks and fails go first. `next` is withheld while the spout is inactive, throttled by
// backpressure, or has topology.max.spout.pending trees outstanding; after a `next` that emitted
// nothing, the spout rests topology.sleep.spout.wait.strategy.time.ms. A spout that does not
// answer a command within topology.subprocess.timeout.secs is declared stuck.
#pragma once

#include <boost/asio/steady_timer.hpp>
#include <deque>

#include "runtime/shell_task.hpp"

namespace sparse::runtime {

class ShellSpoutTask final : public ShellTask {
 public:
  ShellSpoutTask(TaskHost& host, int task_id);

  void Activate() override;
  void Deactivate() override;
  void TreeDone(std::string message_id, TreeOutcome outcome) override;
  void Wake() override { Pump(); }
  void Housekeeping(Clock::time_point now) override;

 private:
  void OnCommand(multilang::ComponentMessage& msg, const std::string& raw) override;
  void OnReady() override;
  void OnBroken() override;
  void Pump();
  void SendCommand(std::string json, bool is_next);
  void HandleEmit(multilang::ComponentMessage& msg, const std::string& raw);

  bool active_ = false;
  bool want_active_ = false;
  bool awaiting_sync_ = false;
  bool current_is_next_ = false;
  bool emitted_in_current_ = false;
  bool resting_ = false;
  bool throttled_since_set_ = false;
  Clock::time_point throttled_since_{};
  Clock::time_point command_sent_{};
  std::deque<std::string> control_;  // ack/fail/activate/deactivate commands waiting
  std::optional<std::int64_t> max_pending_;
  bool acking_ = true;
  std::chrono::milliseconds rest_;
  boost::asio::steady_timer rest_timer_;
  std::vector<int> targets_;
};

}  // namespace sparse::runtime
