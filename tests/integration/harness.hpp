// Test harness for integration tests: a sandbox folder per test holding the topology and its
// components (so it is the components' working directory), the real `sparse` binary run as a
// subprocess with a timeout (tests/support's process helpers), and a check that no process is
// left behind in the sandbox.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "support/files.hpp"
#include "support/process.hpp"
#include "support/temp_dir.hpp"

namespace sparse::testing {

using test::ReadFile;
using test::RunResult;

class Sandbox {
 public:
  Sandbox();
  ~Sandbox();  // kills leftovers (after the test checked for them) and removes the folder
  const std::filesystem::path& dir() const { return dir_.path(); }
  std::filesystem::path out_dir() const { return dir() / "out"; }
  void Write(const std::string& name, const std::string& text) const;

  // Runs `sparse ARGS...` in the sandbox, with `env` added to the test's environment; kills it
  // after `timeout` (exit code -1).
  RunResult Run(const std::vector<std::string>& args,
                std::chrono::seconds timeout = std::chrono::seconds(60),
                const std::map<std::string, std::string>& env = {}) const;
  // Starts `sparse ARGS...` in the background; returns its pid. Output goes to bg.out/bg.err,
  // or stderr to `stderr_fd` when one is given (a pipe the test never reads, say).
  pid_t Start(const std::vector<std::string>& args, int stderr_fd = -1,
              const std::map<std::string, std::string>& env = {}) const;
  // Waits for a background run to end; returns its exit code (-1 on timeout, after killing it).
  int Wait(pid_t pid, std::chrono::seconds timeout) const;

  // Pids of live processes whose working directory is the sandbox (the components).
  std::vector<pid_t> ProcessesInside() const;
  // Every complete (newline-ended) JSON line of the out/ files whose names start with `prefix`.
  std::vector<nlohmann::json> Lines(const std::string& prefix) const;
  // Lines grouped by file name.
  std::map<std::string, std::vector<nlohmann::json>> LinesByFile(const std::string& prefix) const;

 private:
  test::TempDir dir_;
};

// The `command:` of a Python fixture component: a class of fixtures/components.py.
std::string Py(const std::string& cls);
// Fails the current test if a component process outlived the runtime.
void ExpectNoLeftovers(const Sandbox& sb);

// The --stats-json file a run wrote as <sandbox>/stats.json.
nlohmann::json ReadStats(const Sandbox& sb);
// The runtime's own peak resident memory in KiB, from those stats (the rusage wait4 returns
// would count the largest component too).
long RuntimePeakKb(const Sandbox& sb);
// A component's entry in those stats; a test failure (and an empty object) if there is none.
nlohmann::json StatsOf(const nlohmann::json& stats, const std::string& id);

// `sparse run topo.yaml` as most tests run it: stop once idle for 1 s (at the latest after 120 s),
// stats into <sandbox>/stats.json, sinks writing into out/; then `extra`.
std::vector<std::string> IdleRunArgs(const Sandbox& sb, std::vector<std::string> extra = {});

// `sparse run topo.yaml` stopping once idle for 1 s (at the latest after 60 s), sinks writing
// into out/, no stats file; then `extra`.
std::vector<std::string> RunArgs(const Sandbox& sb, std::vector<std::string> extra = {});

// `sparse run topo.yaml` with stats into <sandbox>/stats.json and sinks writing into out/ (no idle
// stop); then `extra`.
std::vector<std::string> StatsRunArgs(const Sandbox& sb, std::vector<std::string> extra = {});

// How many times `what` occurs in `text`.
std::size_t CountOf(const std::string& text, const std::string& what);

std::string SparseBinary();
std::string FixturesDir();

}  // namespace sparse::testing
