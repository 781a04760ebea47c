// Running programs from tests: the `sparse` binary, a component, a script, a browser. The one
// place tests start a child process (the C++ adapter's protocol harness, which drives a
// component through pipes, has its own: tests/adapters_cpp/harness.hpp).
//
// Every child gets stdin from /dev/null and writes stdout/stderr into files, never pipes: a
// daemon it leaves behind, or output nobody reads, cannot hold the test up. Every wait has a
// timeout after which the child is killed, so a hung program fails its test instead of hanging
// the run; the timeout never decides whether a working program passes.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace sparse::test {

// What to run.
struct Command {
  Command() = default;
  Command(std::vector<std::string> argv_, std::filesystem::path cwd_ = {},
          std::map<std::string, std::string> env_ = {})
      : argv(std::move(argv_)), cwd(std::move(cwd_)), env(std::move(env_)) {}

  std::vector<std::string> argv;  // argv[0] is a path (no PATH search)
  std::filesystem::path cwd;      // empty: the test's own working directory
  // Added to (or replacing entries of) the test's environment.
  std::map<std::string, std::string> env;
};

// Where a started child's output goes.
struct Streams {
  std::filesystem::path out = "/dev/null";  // stdout, into this file (truncated)
  std::filesystem::path err = "/dev/null";  // stderr, likewise
  int err_fd = -1;                          // >= 0: stderr is this descriptor instead of `err`
  // {test's descriptor, child's descriptor}: more descriptors the child inherits (a pipe on 3).
  std::vector<std::pair<int, int>> more_fds;
};

// Starts `command`; its pid, or -1 when it cannot start. The caller waits for it (WaitExit).
pid_t Spawn(const Command& command, const Streams& streams);

// Waits for `pid` to end: its exit code, 128 + the signal that killed it, or -1 after killing
// it with SIGKILL once `timeout` passed.
int WaitExit(pid_t pid, std::chrono::milliseconds timeout);

// A child running in the background, killed (SIGKILL) and reaped when the object goes away.
class Child {
 public:
  Child() = default;
  // Starts `command` with stdout/stderr into the files `out` and `err`; started() says whether
  // it did.
  Child(const Command& command, std::filesystem::path out, std::filesystem::path err);
  ~Child();
  Child(Child&& other) noexcept;
  Child& operator=(Child&& other) noexcept;
  Child(const Child&) = delete;
  Child& operator=(const Child&) = delete;

  bool started() const { return pid_ > 0; }
  pid_t pid() const { return pid_; }
  // Sends `sig` unless the child was reaped already.
  void Signal(int sig) const;
  // Its exit code (128 + signal when killed by one), or nothing while it still runs after
  // `timeout` (it keeps running).
  std::optional<int> Wait(std::chrono::milliseconds timeout);
  // Wait, but kills it when `timeout` passed: -1 then.
  int WaitOrKill(std::chrono::milliseconds timeout);
  std::string Stdout() const;
  std::string Stderr() const;
  const std::filesystem::path& out_path() const { return out_; }
  const std::filesystem::path& err_path() const { return err_; }

 private:
  void KillAndReap();

  pid_t pid_ = -1;
  std::optional<int> status_;
  std::filesystem::path out_, err_;
};

// A finished run.
struct RunResult {
  int exit_code = -1;  // 128 + signal when killed by one; -1: not started, or killed at the timeout
  std::string out;
  std::string err;
};

// A run's exit code and both outputs, for a failure message.
std::string Show(const RunResult& r);

// Runs `command` to its end (killing it after `timeout`: exit code -1 and a note at the end of
// err) and returns what it wrote. Inside a TEST body write test::Run: gtest's Test::Run hides it.
RunResult Run(const Command& command, std::chrono::milliseconds timeout = std::chrono::seconds(60));

}  // namespace sparse::test
