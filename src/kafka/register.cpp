#include "kafka/register.hpp"

#include "kafka/kafka_bolt.hpp"
#include "kafka/kafka_spout.hpp"
#include "kafka/keyed_aggregate.hpp"
#include "kafka/topology_rules.hpp"
#include "runtime/builtin_registry.hpp"

namespace sparse::kafka {

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
                  &CheckExactlyOnce});
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
                  {}});
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
                  {}});
}

}  // namespace sparse::kafka
