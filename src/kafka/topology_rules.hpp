// The rules of exactly-once across a topology's components, checked when it is loaded (with the
// file and line of each component): errors stop the run, warnings are printed.
//
//   - with one exactly_once Kafka spout, every spout must be one: epochs cover only the records
//     of those spouts, and a tuple from any other would reach the transactional sinks untracked;
//   - a bolt at the end of the topology (nothing subscribes to it) that is not a kafka_bolt or a
//     keyed_aggregate has effects outside Kafka's transactions: it is at-least-once, said as a
//     warning naming it.
#pragma once

#include <vector>

#include "runtime/topology.hpp"
#include "runtime/topology_loader.hpp"

namespace sparse::kafka {

// The names the Kafka built-ins are registered under (register.cpp). The bolt's and
// keyed_aggregate's writes are part of the epochs' transactions.
inline constexpr const char* kKafkaSpoutName = "kafka_spout";
inline constexpr const char* kKafkaBoltName = "kafka_bolt";
inline constexpr const char* kKeyedAggregateName = "keyed_aggregate";

// Whether `c` is a client of a Kafka cluster: the Kafka spout or bolt, or a keyed_aggregate that
// keeps its state in a topic (`state_topic`). `sparse run` gives such components their brokers.
bool TalksToKafka(const runtime::ComponentDef& c);

bool IsExactlyOnceTopology(const runtime::Topology& t);

void CheckExactlyOnce(const runtime::Topology& t, std::vector<runtime::Diagnostic>& errors,
                      std::vector<runtime::Diagnostic>& warnings);

}  // namespace sparse::kafka
