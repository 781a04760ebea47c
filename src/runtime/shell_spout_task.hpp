// A spout child process: Storm's ShellSpout semantics, with the commands pipelined.
//
// Every command (next, ack, fail, activate, deactivate) is answered by exactly one `sync`, and
// the spout handles them in order, so the runtime need not wait for one `sync` before writing
// the next command: up to sparse.spout.max.unsynced.commands are written ahead (acks and fails
// first), of which at most one `next`, so topology.max.spout.pending still holds. Emits belong to
// the oldest command not yet synced. A spout that waits for task ids may read a command first;
// Storm's storm.py, pystorm and both sparse adapters keep such commands for later. Setting the
// key to 1 gives Storm's strict one-command-at-a-time behaviour.
//
// `next` is withheld while the spout is inactive, throttled by backpressure, or has
// topology.max.spout.pending trees outstanding; after a `next` that emitted nothing, the spout
// rests topology.sleep.spout.wait.strategy.time.ms. A spout that does not answer a command within
// topology.subprocess.timeout.secs is declared stuck.
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
  bool Settled() const override { return !Ready() || (unsynced_.empty() && control_.empty()); }

 private:
  void OnCommand(multilang::ComponentMessage& msg, const std::string& raw) override;
  void OnReady() override;
  void OnBroken() override;
  struct Unsynced {
    bool is_next = false;
    bool emitted = false;
    Clock::time_point sent{};
  };

  void Pump();
  void SchedulePump();
  // A command for the spout: next, activate, deactivate, or ack/fail of a message id.
  struct Control {
    std::string_view command;  // one of the literals above
    std::string id_json;       // JSON text of the id: "" for next/activate/deactivate
  };
  void SendCommand(const Control& c);
  void HandleEmit(multilang::ComponentMessage& msg, const std::string& raw);

  bool active_ = false;
  bool want_active_ = false;
  std::deque<Unsynced> unsynced_;  // written, sync not yet received; oldest first
  std::size_t max_unsynced_ = 64;
  bool next_unsynced_ = false;  // a `next` is among them
  bool pump_posted_ = false;
  bool resting_ = false;
  bool throttled_since_set_ = false;
  Clock::time_point throttled_since_{};
  std::deque<Control> control_;  // ack/fail/activate/deactivate commands waiting
  std::string command_;          // the command being written (kept for its capacity)
  std::optional<std::int64_t> max_pending_;
  bool acking_ = true;
  std::chrono::milliseconds rest_;
  boost::asio::steady_timer rest_timer_;
  std::vector<int> targets_;
};

}  // namespace sparse::runtime
