#include "test_broker.hpp"

#include <atomic>
#include <cstdlib>
#include <cstring>
#include <iostream>

#include "broker_helpers.hpp"
#include "kafka/embedded_broker.hpp"
#include "real_broker.hpp"

namespace sparse::kafka::testing {

namespace {

class Embedded final : public TestBroker {
 public:
  explicit Embedded(std::unique_ptr<EmbeddedBroker> broker) : broker_(std::move(broker)) {}
  BrokerKind kind() const override { return BrokerKind::kEmbedded; }
  const std::string& bootstrap() const override { return broker_->bootstrap(); }
  void CreateTopic(const std::string& name, int partitions) override {
    if (auto err = broker_->CreateTopic(name, partitions)) {
      throw std::runtime_error("create topic " + name + ": " + *err);
    }
  }
  EmbeddedBroker* embedded() override { return broker_.get(); }

 private:
  std::unique_ptr<EmbeddedBroker> broker_;
};

// The one real broker of this process: started on first use, kept for every later test (a
// failure to start is remembered, not retried test after test), stopped by the environment.
struct SharedReal {
  std::unique_ptr<RealKafkaBroker> broker;
  std::string error;
  bool tried = false;
};
SharedReal& Shared() {
  static SharedReal shared;
  return shared;
}

class Real final : public TestBroker {
 public:
  explicit Real(const RealKafkaBroker& broker) : broker_(broker) {}
  BrokerKind kind() const override { return BrokerKind::kReal; }
  const std::string& bootstrap() const override { return broker_.bootstrap(); }
  void CreateTopic(const std::string& name, int partitions) override {
    testing::CreateTopic(broker_.bootstrap(), name, partitions);
  }
  void Restart() override { broker_.Restart(); }

 private:
  const RealKafkaBroker& broker_;
};

class StopRealBroker final : public ::testing::Environment {
 public:
  void TearDown() override { Shared().broker.reset(); }
};
[[maybe_unused]] ::testing::Environment* const kStopRealBroker =
    ::testing::AddGlobalTestEnvironment(new StopRealBroker);

bool Set(const char* name, const char* value) {
  const char* v = std::getenv(name);
  return v && std::strcmp(v, value) == 0;
}

}  // namespace

std::string BrokerKindName(const ::testing::TestParamInfo<BrokerKind>& info) {
  return info.param == BrokerKind::kReal ? "Real" : "Embedded";
}

void PrintTo(BrokerKind kind, std::ostream* out) {
  *out << (kind == BrokerKind::kReal ? "Real" : "Embedded");
}

std::string TestBroker::Unique(const std::string& base) {
  static std::atomic<int> next{0};
  return base + "-" + std::to_string(++next);
}

std::unique_ptr<TestBroker> BrokerForTest(BrokerKind kind) {
  if (kind == BrokerKind::kEmbedded) {
    std::string error;
    auto broker = EmbeddedBroker::Start(1, error);
    if (!broker) {
      [&] { FAIL() << "embedded broker: " << error; }();
      return nullptr;
    }
    return std::make_unique<Embedded>(std::move(broker));
  }
  if (Set("SPARSE_SKIP_JVM", "1")) {
    if (!std::getenv("CI") || !*std::getenv("CI")) {
      [] {
        GTEST_SKIP() << "SPARSE_SKIP_JVM=1: the tests against a real Kafka broker (a JVM) are "
                        "skipped; unset it to run them (they need Java >= 17 and Maven)";
      }();
      return nullptr;
    }
    std::cerr << "SPARSE_SKIP_JVM=1 is ignored because CI is set: CI runs the real-broker tests\n";
  }
  auto& shared = Shared();
  if (!shared.tried) {
    shared.tried = true;
    shared.broker = RealKafkaBroker::Start(shared.error);
  }
  if (!shared.broker) {
    [&] {
      FAIL() << shared.error
             << "\n(developers without a JVM may set SPARSE_SKIP_JVM=1 to skip these tests)";
    }();
    return nullptr;
  }
  return std::make_unique<Real>(*shared.broker);
}

}  // namespace sparse::kafka::testing
