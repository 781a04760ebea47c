// A spout child process: Storm's ShellSpout semantics, with the commands pipelined.
//
// Every command (next, ack, fail, activate, deactivate) is answered by exactly one `sync`, and
// the spout handles them in order, so the runtime need not wait for one `sync` before writing
// the next command: up to sparse.spout.max.unsynced.commands are written ahead (acks and fails
// first). Emits belong to the oldest command not yet synced. A spout that waits for task ids may
// read a command first; Storm's storm.py, pystorm and both sparse adapters keep such commands for
// later. Setting the key to 1 gives Storm's strict one-command-at-a-time behaviour.
//
// `next` commands are pipelined too, up to sparse.spout.max.unsynced.nexts (1: one at a time) and
// as many as the spout answers within 50 ms at its pace (NextWindow), but only while the spout
// keeps emitting (the last synced `next` emitted a tuple) without asking for task ids (a spout
// written against the bare protocol, as Storm's own examples are, may take whatever message follows
// its emit for the reply: with one `next` at a time and no acks, that is always the reply, as in
// Storm), and only while topology.max.spout.pending would hold even if every `next` in flight
// emitted as many tuples as the most any one `next` of this spout has emitted: Storm asks for a
// tuple only below the cap, and so does this, counting the tuples already asked for. Without it, a
// spout pays a round trip to the runtime (two pipe wake-ups) per `next`; with it, one per batch.
//
// `next` is withheld while the spout is inactive, throttled by backpressure, or has
// topology.max.spout.pending trees outstanding; after a `next` that emitted nothing, the spout
// rests topology.sleep.spout.wait.strategy.time.ms (the `next`s already written still run, and
// pipelining starts over with one). A spout that does not answer a command within
// topology.subprocess.timeout.secs of being able to start on it (NextWindow::WorkingSince) is
// declared stuck. One that reports an error instead of
// emitting on sparse.spout.max.failing.nexts `next`s in a row (a next_tuple() that raises every
// time: the adapters report the exception and carry on) is as dead as a process that exits, and
// is failed like one, so that restarts, their backoff and crash-loop detection apply.
#pragma once

#include <boost/asio/steady_timer.hpp>
#include <deque>

#include "runtime/next_window.hpp"
#include "runtime/shell_task.hpp"
#include "runtime/spout_ledger.hpp"

namespace sparse::runtime {

class ShellSpoutTask final : public ShellTask {
 public:
  ShellSpoutTask(TaskHost& host, ProcessHost& process, SpoutHost& spout_host, int task_id);

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
  void OnError(std::string_view msg) override;
  struct Unsynced {
    bool is_next = false;
    bool errored = false;      // an `error` came while this was the oldest command unsynced
    std::int64_t emitted = 0;  // tuples emitted while this was the oldest command unsynced
    Clock::time_point sent{};
  };

  void Pump();
  void SchedulePump();
  // Whether one more `next` may be written now (see the header).
  bool MayAskForNext();
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
  std::size_t nexts_unsynced_ = 0;  // `next`s among them
  NextWindow next_window_;
  bool emitting_ = false;           // the last synced `next` emitted a tuple
  bool awaits_task_ids_ = true;     // its last emit asked for task ids (or none came yet)
  std::int64_t most_per_next_ = 1;  // the most tuples one `next` of this task has emitted
  std::int64_t failing_nexts_ = 0;  // `next`s in a row that reported an error and emitted nothing
  std::int64_t max_failing_nexts_ = 0;  // 0: no limit
  std::string last_next_error_;
  bool pump_posted_ = false;
  bool resting_ = false;
  std::deque<Control> control_;  // ack/fail/activate/deactivate commands waiting
  std::string command_;          // the command being written (kept for its capacity)
  SpoutHost& spout_host_;
  SpoutLedger ledger_;
  std::chrono::milliseconds rest_;
  boost::asio::steady_timer rest_timer_;
  std::vector<int> targets_;
};

}  // namespace sparse::runtime
