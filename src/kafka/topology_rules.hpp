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

// The name of the built-ins whose writes are part of the epochs' transactions.
inline constexpr const char* kKafkaBoltName = "kafka_bolt";
inline constexpr const char* kKeyedAggregateName = "keyed_aggregate";

bool IsExactlyOnceTopology(const runtime::Topology& t);

void CheckExactlyOnce(const runtime::Topology& t, std::vector<runtime::Diagnostic>& errors,
                      std::vector<runtime::Diagnostic>& warnings);

}  // namespace sparse::kafka
