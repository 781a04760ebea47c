// `builtin: keyed_aggregate` — running totals by key (count, sum, min, max, last; no windows).
//
//   bolts:
//     - id: totals
//       builtin: keyed_aggregate
//       inputs: [{from: parse, grouping: fields, fields: [user]}]
//       options: {key_field: user, value_field: amount, op: sum, state_topic: totals-state}
//
// Each input updates its key's total and emits [key, total] (fields `key`, `value`, renamed
// with output_fields) anchored to the input, then acks it. Group the input by the key field so
// that each key has one home task.
//
// In an exactly-once topology (exactly_once.hpp) the totals follow the epochs: an epoch's
// updates are pending until it commits, dropped when it aborts (its replay applies them again),
// and at commit every key the epoch changed is written to `state_topic` inside the epoch's
// transaction (key: the key's bytes; value: {"key": <key>, "value": <total>}). Before the first
// epoch each task reads the state topic back (read_committed), so totals survive kill -9 exactly.
// Make the topic compacted (cleanup.policy=compact): only the last record per key matters.
// Inputs of an aborted epoch that arrive late are acked and not counted (gauge stale_inputs).
//
// Elsewhere (at-least-once topologies) the totals live in memory only, and a replayed tuple is
// counted again; a state_topic there is reported as an error at the first tuple (and not written).
#pragma once

#include <memory>

#include "kafka/options.hpp"
#include "runtime/builtin.hpp"

namespace sparse::kafka {

class KeyedAggregate final : public runtime::BuiltinComponent {
 public:
  explicit KeyedAggregate(AggregateOptions options);
  ~KeyedAggregate() override;

  std::optional<std::string> Open(const nlohmann::json& conf, int task_id, int task_index,
                                  int num_tasks, runtime::BuiltinCollector& collector,
                                  boost::asio::io_context& io) override;
  void Execute(const runtime::BuiltinTuple& tuple) override;
  void Close() override;

  class Session;

 private:
  AggregateOptions options_;
  std::unique_ptr<Session> session_;
};

}  // namespace sparse::kafka
