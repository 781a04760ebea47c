// Helpers for the web view's end-to-end tests: child processes with their own output files, and
// waiting for a condition (with a generous deadline that only matters when something is broken).
#pragma once

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

extern char** environ;

namespace sparse::testing {

struct Child {
  pid_t pid = -1;
  std::filesystem::path out;
  std::filesystem::path err;
};

inline std::string Slurp(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// Starts argv (argv[0] a path) in `cwd`, stdout/stderr to `name`.out/.err in `cwd`, with `env`
// overriding the environment.
inline Child Spawn(const std::vector<std::string>& argv, const std::filesystem::path& cwd,
                   const std::string& name, const std::map<std::string, std::string>& env = {}) {
  Child c;
  c.out = cwd / (name + ".out");
  c.err = cwd / (name + ".err");
  std::vector<std::string> args = argv;
  std::vector<char*> cargv;
  for (auto& a : args) cargv.push_back(a.data());
  cargv.push_back(nullptr);
  std::map<std::string, std::string> vars;
  for (char** e = environ; *e; ++e) {
    std::string kv = *e;
    const auto eq = kv.find('=');
    if (eq != std::string::npos) vars[kv.substr(0, eq)] = kv.substr(eq + 1);
  }
  for (const auto& [k, v] : env) vars[k] = v;
  std::vector<std::string> env_strings;
  for (const auto& [k, v] : vars) env_strings.push_back(k + "=" + v);
  std::vector<char*> cenv;
  for (auto& e : env_strings) cenv.push_back(e.data());
  cenv.push_back(nullptr);
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_addopen(&fa, 1, c.out.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_addopen(&fa, 2, c.err.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_addchdir_np(&fa, cwd.c_str());
  if (posix_spawn(&c.pid, cargv[0], &fa, nullptr, cargv.data(), cenv.data()) != 0) c.pid = -1;
  posix_spawn_file_actions_destroy(&fa);
  return c;
}

// The exit code (128+signal when killed by one), or -1 after killing it at the deadline.
inline int WaitExit(pid_t pid, std::chrono::seconds deadline) {
  const auto until = std::chrono::steady_clock::now() + deadline;
  int status = 0;
  while (::waitpid(pid, &status, WNOHANG) != pid) {
    if (std::chrono::steady_clock::now() > until) {
      ::kill(pid, SIGKILL);
      ::waitpid(pid, &status, 0);
      return -1;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return WIFSIGNALED(status) ? 128 + WTERMSIG(status) : WEXITSTATUS(status);
}

struct Finished {
  int code = -1;
  std::string out;
  std::string err;
};

inline Finished RunToEnd(const std::vector<std::string>& argv, const std::filesystem::path& cwd,
                         const std::string& name,
                         const std::map<std::string, std::string>& env = {},
                         std::chrono::seconds deadline = std::chrono::seconds(60)) {
  const Child c = Spawn(argv, cwd, name, env);
  Finished f;
  if (c.pid < 0) return f;
  f.code = WaitExit(c.pid, deadline);
  f.out = Slurp(c.out);
  f.err = Slurp(c.err);
  return f;
}

// Polls `done` until it holds; false if it still does not after `deadline`. The deadline only
// decides how long a broken run is waited for, never whether a working one passes.
template <class F>
bool WaitUntil(F done, std::chrono::seconds deadline = std::chrono::seconds(30)) {
  const auto until = std::chrono::steady_clock::now() + deadline;
  while (!done()) {
    if (std::chrono::steady_clock::now() > until) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  return true;
}

}  // namespace sparse::testing
