#include "kafka/register.hpp"

#include "kafka/kafka_bolt.hpp"
#include "kafka/kafka_spout.hpp"
#include "kafka/keyed_aggregate.hpp"
#include "kafka/topology_rules.hpp"
#include "runtime/builtin_registry.hpp"

namespace sparse::kafka {

namespace {

// What a Storm cluster offers instead (`sparse submit` refuses built-ins). Storm's Kafka spout and
// bolt are Java components that need storm-kafka-client and a Kafka client in the topology jar,
// which a jar of shell components does not carry; a Java or Flux topology with a shaded jar does
// (bench/storm/run.py submits one to the single-node cluster).
constexpr const char* kSpoutOnStorm =
    "on Storm, read Kafka with Storm's own KafkaSpout (org.apache.storm.kafka.spout.KafkaSpout, "
    "from storm-kafka-client) in a Java or Flux topology, or with a shell spout (`command:`) that "
    "runs a Kafka client; or keep this topology on `sparse run`";
constexpr const char* kBoltOnStorm =
    "on Storm, write to Kafka with Storm's own KafkaBolt (org.apache.storm.kafka.bolt.KafkaBolt, "
    "from storm-kafka-client) in a Java or Flux topology, or with a shell bolt (`command:`) that "
    "runs a Kafka client; or keep this topology on `sparse run`";
constexpr const char* kAggregateOnStorm =
    "on Storm, keep per-key state in a Trident topology's persistent aggregate, or in a shell "
    "bolt (`command:`) that writes it to a store; or keep this topology on `sparse run`";

}  // namespace

void RegisterKafkaBuiltins(runtime::BuiltinRegistry& registry) {
  using runtime::BuiltinInfo;
  using runtime::ComponentKind;
  registry.Add(
      BuiltinInfo{kKafkaSpoutName,
                  ComponentKind::kSpout,
                  {},
                  [](const nlohmann::json& options, std::string& error) {
                    std::vector<runtime::StreamDef> streams;
                    auto o = ParseSpoutOptions(options, error);
                    if (!o) return streams;
                    runtime::StreamDef s;
                    s.id = o->stream;
                    s.fields = o->OutputFields();
                    streams.push_back(std::move(s));
                    return streams;
                  },
                  [](const nlohmann::json& options) -> std::unique_ptr<runtime::BuiltinComponent> {
                    std::string error;
                    auto o = ParseSpoutOptions(options, error);
                    return std::make_unique<KafkaSpout>(o ? std::move(*o) : SpoutOptions{});
                  },
                  &CheckExactlyOnce,
                  kSpoutOnStorm});
  registry.Add(
      BuiltinInfo{kKafkaBoltName,
                  ComponentKind::kBolt,
                  {},
                  [](const nlohmann::json& options, std::string& error) {
                    ParseBoltOptions(options, error);
                    return std::vector<runtime::StreamDef>{};
                  },
                  [](const nlohmann::json& options) -> std::unique_ptr<runtime::BuiltinComponent> {
                    std::string error;
                    auto o = ParseBoltOptions(options, error);
                    return std::make_unique<KafkaBolt>(o ? std::move(*o) : BoltOptions{});
                  },
                  {},
                  kBoltOnStorm});
  registry.Add(
      BuiltinInfo{kKeyedAggregateName,
                  ComponentKind::kBolt,
                  {},
                  [](const nlohmann::json& options, std::string& error) {
                    std::vector<runtime::StreamDef> streams;
                    auto o = ParseAggregateOptions(options, error);
                    if (!o) return streams;
                    runtime::StreamDef s;
                    s.id = o->stream;
                    s.fields = o->output_fields;
                    streams.push_back(std::move(s));
                    return streams;
                  },
                  [](const nlohmann::json& options) -> std::unique_ptr<runtime::BuiltinComponent> {
                    std::string error;
                    auto o = ParseAggregateOptions(options, error);
                    return std::make_unique<KeyedAggregate>(o ? std::move(*o) : AggregateOptions{});
                  },
                  {},
                  kAggregateOnStorm});
}

}  // namespace sparse::kafka
