// A component child process with its three pipes driven asynchronously by one Asio event loop.
//
// Contract:
// - Every method must be called on the io_context's thread; callbacks run on it too.
// - Send() never blocks: bytes are appended to a buffer that is written once the current handler
//   returns (so everything sent while handling one read batch leaves in one write) and then as
//   fast as the pipe accepts it. queued_bytes() lets the owner bound the buffer (the process
//   itself does not drop).
// - stdout is read continuously (unless PauseReading()), split into messages by MessageReader and
//   handed to on_message; stderr is always read and handed to on_stderr_line line by line, so a
//   child flooding stderr can never block on its pipe.
// - on_exit is called exactly once, after the child has been reaped, with its exit status.
// - Terminate(grace) is the one way to stop a child politely: SIGTERM now, SIGKILL once the grace
//   has passed (on the loop's timer), the exit reported through on_exit either way.
// - Destruction never blocks: a child still running is SIGKILLed and handed to the ChildReaper,
//   which reaps it (no zombie); on_exit is not called then.
// - A child that closes its stdout, or whose stdin can no longer be written (it closed it), while
//   it keeps running is broken: on_stream_error, once, if it has not exited within kBrokenGrace
//   (an exit is the better report when it is only dying).
// - The child gets its own process group (terminal Ctrl-C reaches only the runtime, which then
//   drains) and PR_SET_PDEATHSIG=SIGKILL, so it dies with the runtime even on SIGKILL.
#pragma once

#include <sys/types.h>

#include <boost/asio/io_context.hpp>
#include <boost/asio/steady_timer.hpp>
#include <chrono>
#include <deque>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <system_error>
#include <vector>

#include "base/lifetime_gate.hpp"
#include "multilang/inbound_reader.hpp"
#include "multilang/serializer.hpp"

namespace sparse::multilang {

struct ExitStatus {
  bool signaled = false;
  int code = 0;  // exit code, or the signal number when signaled
  // Terminate's grace ran out and it sent the SIGKILL: the child ignored (or outlived) SIGTERM.
  bool after_grace = false;
  std::string Describe() const;
};

struct ProcessOptions {
  std::vector<std::string> argv;  // argv[0] resolved through PATH when it has no '/'
  std::filesystem::path working_dir;
  std::map<std::string, std::string> env_overrides;  // merged over the runtime's environment
  std::size_t max_message_bytes = 64u << 20;
  // What the child speaks on stdout (messages reach on_message as JSON text either way).
  Serializer serializer = Serializer::kJson;
  std::size_t stderr_tail_lines = 20;
};

class ShellProcess {
 public:
  struct Callbacks {
    std::function<void(std::string& body)> on_message;  // body may be modified (parsing pads it)
    std::function<void(std::string_view line)> on_stderr_line;
    // Oversized or undecodable message, the wrong serializer, EOF.
    std::function<void(const std::string& reason)> on_stream_error;
    // A write to stdin completed (optional): what Send() queued earlier has reached the pipe.
    std::function<void()> on_written;
    std::function<void(const ExitStatus&)> on_exit;
  };

  ShellProcess(boost::asio::io_context& io, ProcessOptions options, Callbacks callbacks);
  // Kills the child (SIGKILL to its group) if still running and leaves the reaping to the
  // ChildReaper: never waits.
  ~ShellProcess();
  ShellProcess(const ShellProcess&) = delete;
  ShellProcess& operator=(const ShellProcess&) = delete;

  // Spawns the child. On failure returns a message naming the command and the reason.
  std::optional<std::string> Start();

  // `messages` is how many protocol messages `bytes` holds, for unwritten_messages().
  void Send(std::string_view bytes, std::size_t messages = 0);
  std::size_t queued_bytes() const { return queued_bytes_; }
  // Messages sent (as counted by Send) and not yet written into the pipe: Storm's ShellBolt
  // bounds exactly these by topology.shellbolt.max.pending.
  std::size_t unwritten_messages() const { return pending_messages_ + writing_messages_; }
  // While a write to the child's stdin is unfinished: when it last made progress. A child that
  // keeps this old is not reading its stdin (whatever else it writes meanwhile).
  std::optional<std::chrono::steady_clock::time_point> write_blocked_since() const {
    if (!write_in_flight_) return std::nullopt;
    return write_progress_at_;
  }

  void PauseReading();
  void ResumeReading();

  // Sends `sig` once to the child's process group (and to the child itself only if it left it).
  void Signal(int sig);
  // SIGTERM to the child's group now; SIGKILL when it is still running `grace` later (its
  // ExitStatus then says after_grace). Only the first call counts; Signal(SIGKILL) still forces.
  void Terminate(std::chrono::milliseconds grace);
  bool running() const { return pid_ > 0 && !exited_; }
  pid_t pid() const { return pid_; }
  const ProcessOptions& options() const { return options_; }

  // The last lines the child wrote to stderr, oldest first, joined with '\n'.
  std::string StderrTail() const;

 private:
  struct Impl;
  void StartRead();
  void ReadAvailable();
  void ContinueReading();
  // Hands every complete buffered message to on_message; false when a callback destroyed this.
  bool DeliverBuffered();
  void OnStdoutEnd();
  void StartStderrRead();
  void FlushWrites();
  void WriteSome();
  void CheckExited();
  void ConsumeStderr(std::string_view data);
  void DrainStderrNow();
  void SchedulePoll(std::chrono::milliseconds delay);
  // Records why the child cannot go on; reported unless it exits within kBrokenGrace.
  void MarkBroken(std::string reason);
  static constexpr std::chrono::milliseconds kBrokenGrace{500};

  boost::asio::io_context& io_;
  ProcessOptions options_;
  Callbacks callbacks_;
  std::unique_ptr<Impl> impl_;
  pid_t pid_ = -1;
  bool exited_ = false;
  bool terminating_ = false;  // Terminate was called
  bool killed_after_grace_ = false;
  bool stdout_eof_ = false;
  bool reading_paused_ = false;
  bool read_in_flight_ = false;
  bool write_in_flight_ = false;
  std::size_t written_ = 0;  // of writing_
  std::chrono::steady_clock::time_point write_progress_at_{};
  bool flush_posted_ = false;
  std::string pending_;  // sent, not yet handed to a write
  std::string writing_;  // the write in flight
  std::size_t queued_bytes_ = 0;
  std::size_t pending_messages_ = 0;  // in pending_
  std::size_t writing_messages_ = 0;  // in writing_
  InboundReader reader_;
  std::string stderr_partial_;
  std::deque<std::string> stderr_tail_;
  std::optional<std::string> broken_;  // see MarkBroken
  std::chrono::steady_clock::time_point broken_at_{};
  bool broken_reported_ = false;
  base::LifetimeGate gate_;
};

}  // namespace sparse::multilang
