// An embedded Kafka-protocol broker for development and tests: librdkafka's mock cluster, which
// serves the real wire protocol on loopback TCP ports (produce, fetch, consumer groups, offset
// commits; not offsets-for-times by timestamp, and no persistence: data lives in memory).
//
// The cluster runs on librdkafka's own threads and lives exactly as long as this object, in
// this process: clients in other processes reach it over TCP at bootstrap().
#pragma once

#include <memory>
#include <optional>
#include <string>

#include "kafka/rdkafka_handles.hpp"

namespace sparse::kafka {

class EmbeddedBroker {
 public:
  // Starts `brokers` brokers (ids 1..N). Returns nullptr and sets `error` on failure.
  static std::unique_ptr<EmbeddedBroker> Start(int brokers, std::string& error);
  ~EmbeddedBroker();
  EmbeddedBroker(const EmbeddedBroker&) = delete;
  EmbeddedBroker& operator=(const EmbeddedBroker&) = delete;

  // "127.0.0.1:PORT[,...]", for bootstrap.servers.
  const std::string& bootstrap() const { return bootstrap_; }
  int brokers() const { return brokers_; }

  // Topics are also created on first use (with 4 partitions) by producers that ask for them.
  std::optional<std::string> CreateTopic(const std::string& name, int partitions,
                                         int replication = 1);
  // Takes a broker off the network (connections closed and refused) and back; for failure tests.
  std::optional<std::string> SetBrokerDown(int broker_id);
  std::optional<std::string> SetBrokerUp(int broker_id);
  // Answers the next `count` requests of Kafka API `api_key` (the protocol's number) with `err`,
  // as a real broker does at times (e.g. NOT_COORDINATOR while a coordinator loads); for tests.
  void FailNextRequests(int16_t api_key, int count, rd_kafka_resp_err_t err);

 private:
  EmbeddedBroker() = default;
  ClientPtr owner_;         // the client whose threads run the cluster; outlives it
  MockClusterPtr cluster_;  // destroyed first
  std::string bootstrap_;
  int brokers_ = 0;
};

}  // namespace sparse::kafka
