// `builtin: kafka_bolt` — writes tuples to Kafka; an input is acked only once the broker
// confirmed its record (delivery report), and failed when delivery fails, so Kafka -> topology
// -> Kafka is at-least-once end to end.
//
// Topic: fixed (`topic`) or from a field (`topic_field`). Key: a field (`key_field`) or none.
// Value: a field (`value_field`) or the whole tuple as a JSON object {field: value}. A JSON
// string is written as its text, anything else as JSON. Producer properties pass through;
// enable.idempotence is on unless set. A tuple that lacks a field, or names no topic, is failed
// with an error naming the field (never written half-right, never dropped silently).
//
// Runs on the event loop: librdkafka is polled by a timer on the loop, so delivery reports (and
// the acks they cause) run on the loop thread. Records librdkafka cannot queue yet (its queue
// is full) wait in a backlog that the same timer retries.
#pragma once

#include <memory>

#include "kafka/options.hpp"
#include "runtime/builtin.hpp"

namespace sparse::kafka {

class KafkaBolt final : public runtime::BuiltinComponent {
 public:
  explicit KafkaBolt(BoltOptions options);
  ~KafkaBolt() override;

  std::optional<std::string> Open(const nlohmann::json& conf, int task_id, int task_index,
                                  int num_tasks, runtime::BuiltinCollector& collector,
                                  boost::asio::io_context& io) override;
  void Execute(const runtime::BuiltinTuple& tuple) override;
  void Close() override;

  class Session;  // one Open .. Close

 private:
  BoltOptions options_;
  std::unique_ptr<Session> session_;
};

}  // namespace sparse::kafka
