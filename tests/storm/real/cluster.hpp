// A real single-node Apache Storm cluster for the storm_real tests: ZooKeeper, Nimbus and a
// Supervisor, each its own JVM, started by scripts/storm-cluster.sh ONCE per test binary (a gtest
// global Environment) and stopped at its end. The script's watchdog (SPARSE_STORM_OWNER_PID)
// stops it too if the binary dies without tearing down.
//
// Java and Maven missing is a failure with the reason, not a skip, so CI cannot pass without
// having run these; SPARSE_SKIP_JVM=1 skips them on a developer's machine, saying why (exit
// code 77, which ctest reports as skipped).
#pragma once

#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <functional>
#include <memory>
#include <string>

#include "../process.hpp"

namespace sparse::storm::testing {

class RealCluster : public ::testing::Environment {
 public:
  void SetUp() override;
  void TearDown() override;

  // Nimbus's "127.0.0.1:PORT", as the script printed it.
  static const std::string& Nimbus();
  // The cluster's state folder (conf/, logs/, storm-local/).
  static const std::filesystem::path& Dir();

 private:
  std::unique_ptr<TempDir> dir_;
};

// scripts/storm-cluster.sh of this source tree.
std::string ClusterScript();

// Everything the workers of topology `id` logged so far (Storm's worker.log of every slot; the
// shell components' `log` calls land there as "ShellLog pid:P, name:COMPONENT MESSAGE").
std::string WorkerLogs(const std::string& topology_id);

// The daemons' and workers' logs, for a failure message.
std::string ClusterLogTails();

}  // namespace sparse::storm::testing
