#include "kafka/topology_rules.hpp"

#include <set>
#include <string>

namespace sparse::kafka {

namespace {
bool IsExactlyOnceSpout(const runtime::ComponentDef& c) {
  if (c.builtin != kKafkaSpoutName || !c.builtin_options.is_object()) return false;
  auto it = c.builtin_options.find("processing_guarantee");
  return it != c.builtin_options.end() && it->is_string() && *it == "exactly_once";
}
}  // namespace

bool TalksToKafka(const runtime::ComponentDef& c) {
  return c.builtin == kKafkaSpoutName || c.builtin == kKafkaBoltName ||
         (c.builtin == kKeyedAggregateName && c.builtin_options.is_object() &&
          c.builtin_options.contains("state_topic"));
}

bool IsExactlyOnceTopology(const runtime::Topology& t) {
  for (const auto& c : t.components) {
    if (IsExactlyOnceSpout(c)) return true;
  }
  return false;
}

void CheckExactlyOnce(const runtime::Topology& t, std::vector<runtime::Diagnostic>& errors,
                      std::vector<runtime::Diagnostic>& warnings) {
  const runtime::ComponentDef* first = nullptr;
  for (const auto& c : t.components) {
    if (IsExactlyOnceSpout(c)) {
      first = &c;
      break;
    }
  }
  if (!first) return;
  std::set<std::string> subscribed_to;
  for (const auto& c : t.components) {
    for (const auto& in : c.inputs) subscribed_to.insert(in.component);
  }
  for (const auto& c : t.components) {
    if (c.is_spout()) {
      if (!IsExactlyOnceSpout(c)) {
        errors.push_back(
            {c.where, "spout `" + c.id + "` is not a kafka_spout with `processing_guarantee: " +
                          "exactly_once`, but `" + first->id +
                          "` is: in an exactly-once topology every spout must be one (epochs "
                          "cover only their records)"});
      }
      continue;
    }
    if (subscribed_to.count(c.id) || c.builtin == kKafkaBoltName ||
        c.builtin == kKeyedAggregateName) {
      continue;
    }
    warnings.push_back({c.where, "bolt `" + c.id +
                                     "` ends the topology outside Kafka's transactions: what it "
                                     "does is at-least-once (a replayed epoch runs it again); "
                                     "only kafka_bolt and keyed_aggregate outputs are "
                                     "exactly-once"});
  }
}

}  // namespace sparse::kafka
