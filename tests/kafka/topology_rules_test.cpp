// Which components of a topology are Kafka clients (kafka/topology_rules.hpp): `sparse run` gives
// them their brokers (the embedded one, or the bootstrap servers of an override).
#include "kafka/topology_rules.hpp"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

namespace sparse::kafka {
namespace {

struct TalksCase {
  const char* builtin;
  nlohmann::json options;
  bool talks;
};

TEST(TalksToKafka, TheSpoutTheBoltAndAKeyedAggregateWithAStateTopic) {
  const TalksCase cases[] = {
      {kKafkaSpoutName, nlohmann::json::object(), true},
      {kKafkaBoltName, {{"topic", "out"}}, true},
      {kKeyedAggregateName, {{"state_topic", "counts"}}, true},
      {kKeyedAggregateName, nlohmann::json::object(), false},  // state in memory only
      {kKeyedAggregateName, nullptr, false},
      {"generator", {{"state_topic", "counts"}}, false},
      {"", nlohmann::json::object(), false},  // a shell component
  };
  for (const auto& c : cases) {
    runtime::ComponentDef def;
    def.builtin = c.builtin;
    def.builtin_options = c.options;
    EXPECT_EQ(TalksToKafka(def), c.talks) << "`" << c.builtin << "` " << c.options.dump();
  }
}

}  // namespace
}  // namespace sparse::kafka
