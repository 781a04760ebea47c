// A child process for end-to-end tests: the real `sparse` binary, started with its output in
// files, stopped with a signal of the test's choosing (SIGTERM drains, SIGKILL is a crash).
// The process itself, scratch folders, file reads and waiting are tests/support's.
#pragma once

#include <chrono>
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include "support/files.hpp"
#include "support/process.hpp"
#include "support/temp_dir.hpp"
#include "support/wait_for.hpp"

namespace sparse::kafka::testing {

using test::ReadFile;
using test::TempDir;

// test::Child (Signal, Wait, Stdout, Stderr; SIGKILLed and reaped when it goes), started as the
// end-to-end tests start it.
class Process : public test::Child {
 public:
  // Starts `argv` in `dir` with NO_COLOR=1 and stdout/stderr in dir/NAME.out, dir/NAME.err.
  Process(const std::vector<std::string>& argv, const std::filesystem::path& dir,
          const std::string& name);
};

// test::WaitFor `done` (every 100 ms, at most `timeout`), giving up early once `p` ended.
bool WaitFor(Process& p, const std::function<bool()>& done, std::chrono::milliseconds timeout);

}  // namespace sparse::kafka::testing
