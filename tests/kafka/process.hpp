// A child process for end-to-end tests: the real `sparse` binary, started with its output in
// files, stopped with a signal of the test's choosing (SIGTERM drains, SIGKILL is a crash).
#pragma once

#include <sys/types.h>

#include <chrono>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace sparse::kafka::testing {

class Process {
 public:
  // Starts `argv` in `dir` with stdout/stderr in dir/NAME.out, dir/NAME.err.
  Process(const std::vector<std::string>& argv, const std::filesystem::path& dir,
          const std::string& name);
  ~Process();  // SIGKILLs and reaps it if still running

  pid_t pid() const { return pid_; }
  void Signal(int sig);
  // Exit code (128+signal when killed by one), or nullopt if still running after `timeout`.
  std::optional<int> Wait(std::chrono::milliseconds timeout);
  std::string Stdout() const;
  std::string Stderr() const;

 private:
  pid_t pid_ = -1;
  std::optional<int> status_;
  std::filesystem::path out_, err_;
};

// A fresh temporary directory, removed with the object.
class TempDir {
 public:
  TempDir();
  ~TempDir();
  const std::filesystem::path& path() const { return path_; }
  void Write(const std::string& name, const std::string& text) const;

 private:
  std::filesystem::path path_;
};

std::string ReadFile(const std::filesystem::path& p);

// Polls `done` every 100 ms until it holds, `p` ended (then one last look), or `timeout`
// passed. Returns whether `done` held.
bool WaitFor(Process& p, const std::function<bool()>& done, std::chrono::milliseconds timeout);

}  // namespace sparse::kafka::testing
