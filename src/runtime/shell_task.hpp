// What shell bolts and shell spouts share: the child process, the handshake (with a timeout;
// the pid file is never checked, as in Storm), log/error/metrics commands, stderr, and turning
// every way a child can break into one FailureReport.
#pragma once

#include <boost/asio/steady_timer.hpp>
#include <memory>

#include "multilang/host_encoder.hpp"
#include "multilang/shell_process.hpp"
#include "runtime/task.hpp"

namespace sparse::runtime {

class ShellTask : public Task {
 public:
  ShellTask(TaskHost& host, ProcessHost& process, int task_id);
  ~ShellTask() override;

  void Start() override;
  void Terminate() override;
  void Kill() override;
  void Abort() override;
  bool Alive() const override { return proc_ && proc_->running(); }
  bool Ready() const override { return handshaken_ && !failed_; }
  pid_t pid() const override { return proc_ ? proc_->pid() : -1; }

 protected:
  // A parsed message from a ready child (handshake done). Log/error/metrics are handled before.
  virtual void OnCommand(multilang::ComponentMessage& msg, const std::string& raw) = 0;
  // The child is ready (handshake done): begin work.
  virtual void OnReady() = 0;
  // The child is gone or broken: fail what was in flight.
  virtual void OnBroken() = 0;
  // The child sent an `error` command (already counted and reported).
  virtual void OnError(std::string_view /*msg*/) {}

  // Reports a protocol violation and stops the child; the host decides on a restart.
  void Violation(const std::string& reason, std::string_view offending);
  // `messages`: how many protocol messages `bytes` holds (see UnwrittenMessages).
  void Send(std::string_view bytes, std::size_t messages = 0) {
    if (proc_) proc_->Send(bytes, messages);
  }
  std::size_t QueuedBytes() const { return proc_ ? proc_->queued_bytes() : 0; }
  std::size_t UnwrittenMessages() const { return proc_ ? proc_->unwritten_messages() : 0; }
  // Called when a write to the child completed (the pipe took what was queued).
  virtual void OnWritten() {}
  // False (after reporting a violation) when a write to the child has made no progress for
  // topology.subprocess.timeout.secs: it stopped reading its stdin, though it may still write
  // (so no heartbeat timeout would ever catch it). Called from Housekeeping.
  bool ReadsItsStdin(Clock::time_point now);
  // Builds the EmittedTuple of an emit; nullptr after reporting a violation.
  std::shared_ptr<EmittedTuple> MakeEmitted(multilang::ComponentMessage& msg,
                                            const std::string& raw);
  // Writes a task-id reply: a bare JSON array.
  void ReplyTaskIds(const std::vector<int>& tasks);

  const multilang::HostEncoder encoder_;  // in the serializer the component speaks
  Clock::time_point last_heard_{};
  bool handshaken_ = false;
  bool failed_ = false;
  bool stopping_ = false;
  std::chrono::milliseconds subprocess_timeout_;

 private:
  void OnMessage(std::string& body);
  void OnExit(const multilang::ExitStatus& status);
  void Fail(FailureReport report);
  FailureReport NewReport(std::string reason, std::string_view offending = {}) const;
  std::vector<std::string> ResolveArgv() const;

  ProcessHost& process_;
  std::unique_ptr<multilang::ShellProcess> proc_;
  multilang::MessageParser parser_;
  multilang::ComponentMessage msg_;
  boost::asio::steady_timer handshake_timer_;
  std::string pid_dir_;
  std::string reply_;  // a task-id reply being written (kept for its capacity)
  bool ever_ready_ = false;
};

}  // namespace sparse::runtime
