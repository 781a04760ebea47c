#include "cluster.hpp"

#include <unistd.h>

#include <cstdlib>
#include <thread>

namespace sparse::storm::testing {

namespace fs = std::filesystem;

namespace {

// What SetUp learnt, for the tests (which reach it through RealCluster's static accessors):
// one per process, as the cluster is.
struct ClusterState {
  std::string nimbus;
  fs::path dir;
};
ClusterState& State() {
  static ClusterState state;
  return state;
}

std::string Tail(const std::string& text, std::size_t n) {
  return text.size() <= n ? text : "..." + text.substr(text.size() - n);
}

}  // namespace

std::string ClusterScript() {
  return std::string(SPARSE_SOURCE_DIR) + "/scripts/storm-cluster.sh";
}

const std::string& RealCluster::Nimbus() {
  return State().nimbus;
}
const fs::path& RealCluster::Dir() {
  return State().dir;
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
      test::Run({{"/bin/sh", "-c",
                  "command -v \"${JAVA_HOME:+$JAVA_HOME/bin/}java\" >/dev/null || echo java; "
                  "command -v mvn >/dev/null || echo mvn"},
                 fs::current_path()},
                std::chrono::seconds(30));
  if (tools.exit_code != 0 || !tools.out.empty()) {
    FAIL() << "the real Storm tests need Java (11+) and Maven, missing: " << tools.out
           << "scripts/setup.sh installs them (default-jdk-headless, maven); "
              "SPARSE_SKIP_JVM=1 skips these tests";
  }
  dir_ = std::make_unique<TempDir>();
  State().dir = dir_->path() / "storm";
  // A cold cache resolves Storm with Maven first (~150 MB of jars); then the JVMs start.
  const RunResult r = test::Run(
      {{ClusterScript(), "start", State().dir.string()},
       dir_->path(),
       {{"SPARSE_STORM_OWNER_PID", std::to_string(::getpid())}, {"SPARSE_STORM_SLOTS", "3"}}},
      std::chrono::seconds(900));
  std::string out = r.out;
  while (!out.empty() && (out.back() == '\n' || out.back() == ' ')) out.pop_back();
  if (r.exit_code != 0 || out.empty()) {
    FAIL() << "scripts/storm-cluster.sh start failed (exit " << r.exit_code << "):\n"
           << r.out << r.err;
  }
  State().nimbus = out.substr(out.rfind('\n') + 1);
  std::cout << "storm_real: a Storm cluster answers at " << State().nimbus << " (state in "
            << State().dir << ")\n";
}

void RealCluster::TearDown() {
  if (!dir_) return;
  const RunResult r = test::Run({{ClusterScript(), "stop", State().dir.string()}, dir_->path()},
                                std::chrono::seconds(120));
  EXPECT_EQ(r.exit_code, 0) << "scripts/storm-cluster.sh stop: " << r.out << r.err;
  dir_.reset();
}

std::string WorkerLogs(const std::string& topology_id) {
  std::string all;
  const fs::path dir = State().dir / "logs" / "workers-artifacts" / topology_id;
  std::error_code ec;
  for (const auto& port : fs::directory_iterator(dir, ec)) {
    all += ReadFile(port.path() / "worker.log");
  }
  return all;
}

std::string ClusterLogTails() {
  std::string all;
  std::error_code ec;
  for (const auto& e : fs::recursive_directory_iterator(State().dir / "logs", ec)) {
    if (!e.is_regular_file()) continue;
    all += "==== " + e.path().string() + "\n" + Tail(ReadFile(e.path()), 3000) + "\n";
  }
  return all;
}

}  // namespace sparse::storm::testing
