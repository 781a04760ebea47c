// `bootstrap.servers: embedded`: the Kafka quickstart runs with no broker installed.
//
// When a Kafka component of the topology asks for the embedded broker (the config key
// `kafka.bootstrap.servers`, the component's `bootstrap_servers` option, or its librdkafka
// `properties.bootstrap.servers` is `embedded`), `sparse run` starts librdkafka's mock broker in
// its own process for the length of the run, creates the topics the topology names (spout topics,
// bolt topics, dead-letter topics) and points those components at it. The broker is reached at
// localhost:9092 when that port is free (so `sparse kafka produce/consume` need no flags), else at
// its own port; either way the address is printed and kept in the run-state file, where
// `sparse kafka produce/consume` look first. Its data lives in memory and ends with the run.
#pragma once

#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "runtime/local_cluster.hpp"
#include "runtime/topology.hpp"

namespace sparse::kafka {
class EmbeddedBroker;
class BootstrapProxy;
}  // namespace sparse::kafka

namespace sparse::cli {

// The value that names the embedded broker.
inline constexpr const char* kEmbeddedKafka = "embedded";

class RunKafka {
 public:
  // Starts the embedded broker when `topology` (with the command line's `overrides`) asks for it,
  // and replaces every `embedded` it finds with the broker's address. Returns nullptr when nothing
  // asks for it. Throws std::runtime_error when the broker cannot start.
  static std::unique_ptr<RunKafka> StartIfAsked(runtime::Topology& topology,
                                                nlohmann::json& overrides);
  ~RunKafka();
  const std::string& address() const { return address_; }

 private:
  RunKafka() = default;
  std::unique_ptr<kafka::EmbeddedBroker> broker_;
  std::unique_ptr<kafka::BootstrapProxy> proxy_;  // destroyed before the broker
  std::string address_;
};

// After a run: what to tell the user when the topology has Kafka components and not one of them
// ever heard from a broker (each publishes the gauge kafka.connected = 1 once one answers) and at
// least one reported an error; nullopt when Kafka was reached, when no client failed yet (a run
// stopped during start-up), or the topology has no Kafka component. `topology` as the run used it.
std::optional<std::string> KafkaNeverReached(const runtime::Topology& topology,
                                             const nlohmann::json& overrides,
                                             const runtime::ClusterSnapshot& last);

}  // namespace sparse::cli
