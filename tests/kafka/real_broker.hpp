// A real Apache Kafka broker for tests and benchmarks: `scripts/kafka-server.sh start` (one
// KRaft broker+controller JVM on loopback) in a fresh temporary folder, stopped and the folder
// removed when this object goes. Should this process die first, the script stops the broker by
// itself (it is told this process's pid), so no JVM outlives a killed test.
#pragma once

#include <memory>
#include <string>

#include "support/temp_dir.hpp"

namespace sparse::kafka::testing {

class RealKafkaBroker {
 public:
  // Starts a broker and waits until it serves (the first call may resolve Kafka's jars with
  // Maven). Returns nullptr and sets `error` (with the script's own explanation) on failure.
  static std::unique_ptr<RealKafkaBroker> Start(std::string& error);
  ~RealKafkaBroker();
  RealKafkaBroker(const RealKafkaBroker&) = delete;
  RealKafkaBroker& operator=(const RealKafkaBroker&) = delete;

  // "127.0.0.1:PORT", for bootstrap.servers.
  const std::string& bootstrap() const { return bootstrap_; }

  // Kills the broker with SIGKILL and starts it again (same address, same data); returns once
  // it serves. Throws std::runtime_error with the script's reason when it does not come back.
  void Restart() const;

 private:
  RealKafkaBroker(std::unique_ptr<test::TempDir> dir, std::string bootstrap)
      : dir_(std::move(dir)), bootstrap_(std::move(bootstrap)) {}
  std::unique_ptr<test::TempDir> dir_;  // the broker's state (the script's `stop` removes it)
  std::string bootstrap_;
};

}  // namespace sparse::kafka::testing
