#include "real_broker.hpp"

#include <stdio.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>
#include <stdexcept>

namespace sparse::kafka::testing {

namespace {

constexpr const char* kScript = SPARSE_KAFKA_SERVER_SCRIPT;

std::string Slurp(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

}  // namespace

std::unique_ptr<RealKafkaBroker> RealKafkaBroker::Start(std::string& error) {
  const char* tmp = std::getenv("TMPDIR");
  std::string dir = std::string(tmp && *tmp ? tmp : "/tmp") + "/sparse-kafka-test.XXXXXX";
  if (!mkdtemp(dir.data())) {
    error = "cannot create a temporary folder for the Kafka broker";
    return nullptr;
  }
  // The script's stderr (Maven's progress, the reason for a failure) is kept to be shown.
  const std::string log = dir + ".log";
  const std::string command = "SPARSE_KAFKA_OWNER_PID=" + std::to_string(getpid()) + " '" +
                              kScript + "' start '" + dir + "' 2>'" + log + "'";
  FILE* out = popen(command.c_str(), "r");
  if (!out) {
    error = "cannot run " + std::string(kScript);
    return nullptr;
  }
  std::string bootstrap;
  char buf[256];
  while (fgets(buf, sizeof buf, out)) bootstrap += buf;
  const int status = pclose(out);
  const std::string messages = Slurp(log);
  std::filesystem::remove(log);
  while (!bootstrap.empty() && (bootstrap.back() == '\n' || bootstrap.back() == '\r')) {
    bootstrap.pop_back();
  }
  if (status != 0 || bootstrap.empty()) {
    std::error_code ignored;
    std::filesystem::remove_all(dir, ignored);
    error = "could not start a real Kafka broker with " + std::string(kScript) + " (exit " +
            std::to_string(WIFEXITED(status) ? WEXITSTATUS(status) : -1) + "):\n" + messages;
    return nullptr;
  }
  std::cerr << messages;
  return std::unique_ptr<RealKafkaBroker>(new RealKafkaBroker(dir, bootstrap));
}

void RealKafkaBroker::Restart() const {
  const std::string log = dir_ + ".restart.log";
  const std::string command = "SPARSE_KAFKA_OWNER_PID=" + std::to_string(getpid()) + " '" +
                              kScript + "' restart '" + dir_ + "' >/dev/null 2>'" + log + "'";
  const int status = std::system(command.c_str());
  const std::string messages = Slurp(log);
  std::filesystem::remove(log);
  if (status != 0)
    throw std::runtime_error("restarting the real Kafka broker failed:\n" + messages);
}

RealKafkaBroker::~RealKafkaBroker() {
  const std::string command = "'" + std::string(kScript) + "' stop '" + dir_ + "'";
  if (std::system(command.c_str()) != 0) {
    std::cerr << "real Kafka broker: '" << command << "' failed\n";
  }
}

}  // namespace sparse::kafka::testing
