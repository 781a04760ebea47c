// The brokers the Kafka tests run the same bodies against, chosen by a test parameter:
//   Embedded: librdkafka's mock cluster in this process, a new one for every test;
//   Real:     Apache Kafka (scripts/kafka-server.sh), ONE per test binary, started by the first
//             test that asks for it and stopped after the last (a gtest global environment),
//             since a JVM takes seconds to start. Tests sharing it keep apart by Unique() names.
// A real broker that cannot start (no Java, no Maven, no network for the first fetch) FAILS
// each such test with the script's reason; SPARSE_SKIP_JVM=1 skips them instead, saying so,
// for developers without a JVM (ignored when CI is set: CI must run them).
#pragma once

#include <gtest/gtest.h>

#include <memory>
#include <optional>
#include <string>

namespace sparse::kafka {
class EmbeddedBroker;
}

namespace sparse::kafka::testing {

enum class BrokerKind { kEmbedded, kReal };

// For INSTANTIATE_TEST_SUITE_P's name generator, and gtest's messages: "Embedded" or "Real".
std::string BrokerKindName(const ::testing::TestParamInfo<BrokerKind>& info);
void PrintTo(BrokerKind kind, std::ostream* out);

class TestBroker {
 public:
  virtual ~TestBroker() = default;
  virtual BrokerKind kind() const = 0;
  virtual const std::string& bootstrap() const = 0;
  // Creates a topic and waits until it is served; throws std::runtime_error on failure.
  virtual void CreateTopic(const std::string& name, int partitions) = 0;
  // The embedded broker, for the failure tests only it can stage; nullptr for a real one.
  virtual EmbeddedBroker* embedded() { return nullptr; }
  // A real broker: crash it (SIGKILL) and start it again, same address and data. The embedded
  // one cannot (its data would be gone): it fails the test.
  virtual void Restart() { FAIL() << "only a real broker can be restarted"; }

  // `base` made unique among the topics and groups of this broker's life.
  static std::string Unique(const std::string& base);
};

// For a fixture's SetUp: a broker of that kind, or nullptr after recording a fatal failure (or a
// skip) that says why; SetUp then returns and the test body does not run.
std::unique_ptr<TestBroker> BrokerForTest(BrokerKind kind);

}  // namespace sparse::kafka::testing
