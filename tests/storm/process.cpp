#include "process.hpp"

namespace sparse::storm::testing {

namespace fs = std::filesystem;

std::string SparseBinary() {
  return SPARSE_BINARY;
}
std::string FixturesDir() {
  return STORM_FIXTURES;
}
std::string PythonAdapterDir() {
  return SPARSE_PYTHON_ADAPTER;
}

void CopyFixture(const std::string& name, const fs::path& dest) {
  fs::copy(fs::path(FixturesDir()) / name, dest, fs::copy_options::recursive);
}

RunResult RunSparse(const std::vector<std::string>& args, const fs::path& cwd,
                    std::chrono::seconds timeout, const std::map<std::string, std::string>& env) {
  test::Command command{{SparseBinary()}, cwd, env};
  command.argv.insert(command.argv.end(), args.begin(), args.end());
  command.env.emplace("NO_COLOR", "1");
  return test::Run(command, timeout);
}

}  // namespace sparse::storm::testing
