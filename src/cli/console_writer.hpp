// ConsoleWriter: the one way `sparse run` writes to its console while the topology runs.
//
// The event loop must never wait for a terminal: a paused terminal (Ctrl-S, a pager that stopped
// reading) or an unread pipe would otherwise freeze every task, and heartbeats that are not read
// get healthy components killed as stuck. Text is handed to a writer thread through a bounded
// buffer; when the buffer is full the text is dropped and counted, and a line saying how much
// was dropped is written where the gap is. Component log files keep everything.
//
// Contract: Start() once, then Submit() from any thread, never blocking; Stop() writes what is
// queued for at most `grace` and ends the writer. A write that blocks past `grace` (the terminal
// stays paused) is abandoned with its thread, so stopping never hangs either.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <thread>

namespace sparse::cli {

class ConsoleWriter {
 public:
  static constexpr std::size_t kDefaultBudgetBytes = 1 << 20;

  explicit ConsoleWriter(int fd, std::size_t budget_bytes = kDefaultBudgetBytes);
  ~ConsoleWriter();  // Stop() with a short grace if still running
  ConsoleWriter(const ConsoleWriter&) = delete;
  ConsoleWriter& operator=(const ConsoleWriter&) = delete;

  void Start();
  // Queues `text` (written as is). Returns false when it was dropped: the buffer is full, the
  // writer stopped, or the console is gone (a write error such as EPIPE).
  bool Submit(std::string text);
  void Stop(std::chrono::milliseconds grace = std::chrono::seconds(2));

  std::uint64_t dropped_bytes() const;

 private:
  struct State;
  std::shared_ptr<State> state_;  // shared with the writer thread, which may outlive Stop()
  std::thread thread_;
  bool started_ = false;
};

}  // namespace sparse::cli
