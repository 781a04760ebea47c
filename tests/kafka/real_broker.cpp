#include "real_broker.hpp"

#include <unistd.h>

#include <chrono>
#include <iostream>
#include <map>
#include <stdexcept>

#include "support/process.hpp"

namespace sparse::kafka::testing {

namespace {

constexpr const char* kScript = SPARSE_KAFKA_SERVER_SCRIPT;

// scripts/kafka-server.sh COMMAND DIR, told this process's pid (so the broker goes when it
// does). The limits only end a hung script; the first start may fetch Kafka's jars with Maven.
test::RunResult Script(const std::string& command, const test::TempDir& dir,
                       std::chrono::minutes limit) {
  return test::Run({{kScript, command, dir.path().string()},
                    {},
                    {{"SPARSE_KAFKA_OWNER_PID", std::to_string(::getpid())}}},
                   limit);
}

}  // namespace

std::unique_ptr<RealKafkaBroker> RealKafkaBroker::Start(std::string& error) {
  auto dir = std::make_unique<test::TempDir>("sparse-kafka-test");
  // The script's stderr (Maven's progress, the reason for a failure) is kept to be shown.
  const test::RunResult r = Script("start", *dir, std::chrono::minutes(20));
  std::string bootstrap = r.out;
  while (!bootstrap.empty() && (bootstrap.back() == '\n' || bootstrap.back() == '\r')) {
    bootstrap.pop_back();
  }
  if (r.exit_code != 0 || bootstrap.empty()) {
    error = "could not start a real Kafka broker with " + std::string(kScript) + " (exit " +
            std::to_string(r.exit_code) + "):\n" + r.err;
    return nullptr;
  }
  std::cerr << r.err;
  return std::unique_ptr<RealKafkaBroker>(new RealKafkaBroker(std::move(dir), bootstrap));
}

void RealKafkaBroker::Restart() const {
  const test::RunResult r = Script("restart", *dir_, std::chrono::minutes(10));
  if (r.exit_code != 0) {
    throw std::runtime_error("restarting the real Kafka broker failed:\n" + r.err);
  }
}

RealKafkaBroker::~RealKafkaBroker() {
  const test::RunResult r = Script("stop", *dir_, std::chrono::minutes(5));
  if (r.exit_code != 0) {
    std::cerr << "real Kafka broker: " << kScript << " stop " << dir_->path().string()
              << " failed:\n"
              << r.err;
  }
}

}  // namespace sparse::kafka::testing
