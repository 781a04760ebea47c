#include "cluster.hpp"

#include <unistd.h>

#include <cstdlib>
#include <thread>

namespace sparse::storm::testing {

namespace fs = std::filesystem;

namespace {

std::string g_nimbus;
fs::path g_dir;

std::string Tail(const std::string& text, std::size_t n) {
  return text.size() <= n ? text : "..." + text.substr(text.size() - n);
}

}  // namespace

std::string ClusterScript() {
  return std::string(SPARSE_SOURCE_DIR) + "/scripts/storm-cluster.sh";
}

const std::string& RealCluster::Nimbus() {
  return g_nimbus;
}
const fs::path& RealCluster::Dir() {
  return g_dir;
}

void RealCluster::SetUp() {
  if (const char* skip = std::getenv("SPARSE_SKIP_JVM"); skip && std::string(skip) == "1") {
    // Exit code 77 is ctest's SKIP_RETURN_CODE for this binary: ctest reports it as skipped
    // (a gtest skip from here would count every test as passed).
    std::cout << "storm_real: skipped because SPARSE_SKIP_JVM=1: these tests need Java and Maven "
                 "to run a real Apache Storm cluster"
              << std::endl;
    std::exit(77);
  }
  const RunResult tools =
      RunProgram({"/bin/sh", "-c",
                  "command -v \"${JAVA_HOME:+$JAVA_HOME/bin/}java\" >/dev/null || echo java; "
                  "command -v mvn >/dev/null || echo mvn"},
                 fs::current_path(), std::chrono::seconds(30));
  if (tools.exit_code != 0 || !tools.out.empty()) {
    FAIL() << "the real Storm tests need Java (11+) and Maven, missing: " << tools.out
           << "scripts/setup.sh installs them (default-jdk-headless, maven); "
              "SPARSE_SKIP_JVM=1 skips these tests";
  }
  dir_ = std::make_unique<TempDir>();
  g_dir = dir_->path() / "storm";
  // A cold cache resolves Storm with Maven first (~150 MB of jars); then the JVMs start.
  const RunResult r = RunProgram(
      {ClusterScript(), "start", g_dir.string()}, dir_->path(), std::chrono::seconds(900),
      {{"SPARSE_STORM_OWNER_PID", std::to_string(::getpid())}, {"SPARSE_STORM_SLOTS", "3"}});
  std::string out = r.out;
  while (!out.empty() && (out.back() == '\n' || out.back() == ' ')) out.pop_back();
  if (r.exit_code != 0 || out.empty()) {
    FAIL() << "scripts/storm-cluster.sh start failed (exit " << r.exit_code << "):\n"
           << r.out << r.err;
  }
  g_nimbus = out.substr(out.rfind('\n') + 1);
  std::cout << "storm_real: a Storm cluster answers at " << g_nimbus << " (state in " << g_dir
            << ")\n";
}

void RealCluster::TearDown() {
  if (!dir_) return;
  const RunResult r = RunProgram({ClusterScript(), "stop", g_dir.string()}, dir_->path(),
                                 std::chrono::seconds(120));
  EXPECT_EQ(r.exit_code, 0) << "scripts/storm-cluster.sh stop: " << r.out << r.err;
  dir_.reset();
}

std::string WorkerLogs(const std::string& topology_id) {
  std::string all;
  const fs::path dir = g_dir / "logs" / "workers-artifacts" / topology_id;
  std::error_code ec;
  for (const auto& port : fs::directory_iterator(dir, ec)) {
    all += ReadFile(port.path() / "worker.log");
  }
  return all;
}

std::string ClusterLogTails() {
  std::string all;
  std::error_code ec;
  for (const auto& e : fs::recursive_directory_iterator(g_dir / "logs", ec)) {
    if (!e.is_regular_file()) continue;
    all += "==== " + e.path().string() + "\n" + Tail(ReadFile(e.path()), 3000) + "\n";
  }
  return all;
}

bool WaitUntil(const std::function<bool()>& check, std::chrono::seconds limit) {
  const auto deadline = std::chrono::steady_clock::now() + limit;
  while (true) {
    if (check()) return true;
    if (std::chrono::steady_clock::now() > deadline) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(250));
  }
}

}  // namespace sparse::storm::testing
