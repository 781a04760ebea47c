#include "cli/run_kafka.hpp"

#include <algorithm>
#include <iostream>
#include <map>
#include <stdexcept>

#include "kafka/bootstrap_proxy.hpp"
#include "kafka/embedded_broker.hpp"
#include "kafka/options.hpp"
#include "kafka/topology_rules.hpp"

namespace sparse::cli {

namespace {

using nlohmann::json;

constexpr int kWellKnownPort = 9092;
constexpr int kDefaultPartitions = 4;

bool IsEmbedded(const json& v) {
  return v.is_string() && v.get<std::string>() == kEmbeddedKafka;
}

// The component's configuration as far as the bootstrap servers go: the command line over the
// component over the topology, as everywhere.
json MergedKey(const runtime::Topology& t, const runtime::ComponentDef& c, const json& overrides) {
  json conf = json::object();
  for (const json* layer : {&t.config, &c.config, &overrides}) {
    if (layer->is_object() && layer->contains(kafka::kBootstrapOverrideKey)) {
      conf[kafka::kBootstrapOverrideKey] = (*layer)[kafka::kBootstrapOverrideKey];
    }
  }
  return conf;
}

std::string BootstrapOf(const runtime::Topology& t, const runtime::ComponentDef& c,
                        const json& overrides) {
  const json& o = c.builtin_options;
  const std::string option =
      o.is_object() && o.contains("bootstrap_servers") && o["bootstrap_servers"].is_string()
          ? o["bootstrap_servers"].get<std::string>()
          : "";
  const json properties =
      o.is_object() && o.contains("properties") ? o["properties"] : json::object();
  return kafka::EffectiveBootstrap(MergedKey(t, c, overrides), option, properties);
}

bool AsksForEmbedded(const runtime::Topology& t, const runtime::ComponentDef& c,
                     const json& overrides) {
  return kafka::TalksToKafka(c) && BootstrapOf(t, c, overrides) == kEmbeddedKafka;
}

// Every topic a component names, with the partitions to create it with.
void CollectTopics(const runtime::ComponentDef& c, std::map<std::string, int>& topics) {
  const json& o = c.builtin_options;
  if (!o.is_object()) return;
  auto add = [&](const json& name, int partitions) {
    if (!name.is_string() || name.get<std::string>().empty()) return;
    int& p = topics[name.get<std::string>()];
    p = std::max(p, partitions);
  };
  // A spout's topic gets a partition for each task at least, so that no task sits idle.
  const int partitions = std::max(kDefaultPartitions, c.parallelism);
  for (const char* key : {"topics", "topic"}) {
    if (!o.contains(key)) continue;
    if (o[key].is_array()) {
      for (const auto& t : o[key]) add(t, partitions);
    } else {
      add(o[key], partitions);
    }
  }
  if (o.contains("dead_letter_topic")) add(o["dead_letter_topic"], 1);
  if (o.contains("state_topic")) add(o["state_topic"], 1);
}

void Replace(json& object, const std::string& key, const std::string& address) {
  if (object.is_object() && object.contains(key) && IsEmbedded(object[key])) object[key] = address;
}

}  // namespace

std::unique_ptr<RunKafka> RunKafka::StartIfAsked(runtime::Topology& topology, json& overrides) {
  std::map<std::string, int> topics;
  bool asked = false;
  for (const auto& c : topology.components) {
    if (!AsksForEmbedded(topology, c, overrides)) continue;
    asked = true;
    CollectTopics(c, topics);
  }
  if (!asked) return nullptr;

  std::unique_ptr<RunKafka> k(new RunKafka());
  std::string error;
  k->broker_ = kafka::EmbeddedBroker::Start(1, error);
  if (!k->broker_) throw std::runtime_error("cannot start the embedded Kafka broker: " + error);
  for (const auto& [name, partitions] : topics) {
    if (auto err = k->broker_->CreateTopic(name, partitions)) {
      throw std::runtime_error("embedded Kafka broker: cannot create topic `" + name +
                               "`: " + *err);
    }
  }
  k->proxy_ =
      kafka::BootstrapProxy::Start("127.0.0.1", kWellKnownPort, k->broker_->bootstrap(), error);
  k->address_ = k->proxy_ ? k->proxy_->address() : k->broker_->bootstrap();

  // Every `embedded` becomes the address; a component that names a real cluster keeps it.
  const std::string& address = k->address_;
  Replace(overrides, kafka::kBootstrapOverrideKey, address);
  Replace(topology.config, kafka::kBootstrapOverrideKey, address);
  for (auto& c : topology.components) {
    if (!kafka::TalksToKafka(c)) continue;
    Replace(c.config, kafka::kBootstrapOverrideKey, address);
    Replace(c.builtin_options, "bootstrap_servers", address);
    if (c.builtin_options.is_object() && c.builtin_options.contains("properties")) {
      Replace(c.builtin_options["properties"], "bootstrap.servers", address);
    }
  }

  std::string names;
  for (const auto& [name, partitions] : topics) {
    names += (names.empty() ? "" : ", ") + name + ":" + std::to_string(partitions);
  }
  std::cerr << "embedded Kafka broker (in memory, for this run) at " << address
            << (names.empty() ? "" : "; topics " + names) << "\n";
  if (kafka::IsExactlyOnceTopology(topology)) {
    // librdkafka's mock broker accepts transactions but keeps none of their guarantees.
    std::cerr << "  warning: the embedded broker does not keep Kafka transactions (no offsets "
                 "stored with them, no commit markers): this exactly_once topology runs its "
                 "epochs but is only at-least-once here; use a real broker for exactly-once "
                 "(docs/kafka.md)\n";
  }
  if (!k->proxy_) {
    std::cerr << "  (localhost:" << kWellKnownPort
              << " is taken; `sparse kafka produce/consume` in this project find the broker "
                 "anyway)\n";
  }
  return k;
}

std::optional<std::string> KafkaNeverReached(const runtime::Topology& topology,
                                             const json& overrides,
                                             const runtime::ClusterSnapshot& last) {
  std::string servers;
  // Only a client that tried and failed says the broker is unreachable: a run stopped while its
  // components were still starting (no connection yet, but no error either) proves nothing.
  bool failed = false;
  for (const auto& c : topology.components) {
    if (!kafka::TalksToKafka(c)) continue;
    const auto it = std::find_if(last.components.begin(), last.components.end(),
                                 [&](const auto& s) { return s.id == c.id; });
    if (it == last.components.end()) continue;
    const auto g = it->totals.gauges.find("kafka.connected");
    if (g != it->totals.gauges.end() && g->second >= 1) return std::nullopt;
    failed = failed || it->totals.errors > 0;
    const std::string b = BootstrapOf(topology, c, overrides);
    if (servers.find(b) == std::string::npos) servers += (servers.empty() ? "" : ", ") + b;
  }
  if (servers.empty() || !failed) return std::nullopt;
  return "Kafka at " + servers +
         " was never reachable during the run (the component logs say why). Is a broker running "
         "there? For one in this process, set kafka.bootstrap.servers: embedded (or -o "
         "kafka.bootstrap.servers=embedded).";
}

RunKafka::~RunKafka() {
  proxy_.reset();
  broker_.reset();
}

}  // namespace sparse::cli
