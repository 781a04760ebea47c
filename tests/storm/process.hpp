// Running the real `sparse` binary from tests, and scratch folders.
#pragma once

#include <chrono>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

namespace sparse::storm::testing {

struct RunResult {
  int exit_code = -1;  // -1: killed after the timeout
  std::string out;
  std::string err;
};

// A run's exit code and both outputs, for a failure message.
inline std::string Show(const RunResult& r) {
  return "exit " + std::to_string(r.exit_code) + "\nstdout:\n" + r.out + "\nstderr:\n" + r.err;
}

// Runs `argv` (argv[0] a path) in `cwd` with stdin from /dev/null and stdout/stderr into
// files (so a daemon it leaves behind cannot hold the test up); kills it after `timeout`.
// `env` entries are added to (or replace in) the test's environment.
RunResult RunProgram(std::vector<std::string> argv, const std::filesystem::path& cwd,
                     std::chrono::seconds timeout,
                     const std::map<std::string, std::string>& env = {});

// RunProgram of `sparse ARGS...`, with NO_COLOR=1.
RunResult RunSparse(const std::vector<std::string>& args, const std::filesystem::path& cwd,
                    std::chrono::seconds timeout = std::chrono::seconds(120),
                    const std::map<std::string, std::string>& env = {});

// A fresh folder under /tmp, removed with everything in it on destruction.
class TempDir {
 public:
  TempDir();
  ~TempDir();
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
};

std::string ReadFile(const std::filesystem::path& path);
void WriteFile(const std::filesystem::path& path, const std::string& text);

// Copies a fixture project (tests/storm/fixtures/NAME) into `dest`, keeping file modes.
void CopyFixture(const std::string& name, const std::filesystem::path& dest);

std::string SparseBinary();
std::string FixturesDir();
std::string PythonAdapterDir();

}  // namespace sparse::storm::testing
