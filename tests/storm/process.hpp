// Running the real `sparse` binary from the Storm tests, and their fixture projects. Running a
// program, scratch folders and file reads are tests/support's.
#pragma once

#include <chrono>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "support/files.hpp"
#include "support/process.hpp"
#include "support/temp_dir.hpp"
#include "support/wait_for.hpp"

namespace sparse::storm::testing {

using test::ReadFile;
using test::RunResult;
using test::Show;
using test::TempDir;
using test::WriteFile;

// `sparse ARGS...` in `cwd` (test::Run), with NO_COLOR=1 and `env`.
RunResult RunSparse(const std::vector<std::string>& args, const std::filesystem::path& cwd,
                    std::chrono::seconds timeout = std::chrono::seconds(120),
                    const std::map<std::string, std::string>& env = {});

// Copies a fixture project (tests/storm/fixtures/NAME) into `dest`, keeping file modes.
void CopyFixture(const std::string& name, const std::filesystem::path& dest);

std::string SparseBinary();
std::string FixturesDir();
std::string PythonAdapterDir();

}  // namespace sparse::storm::testing
