// `builtin: kafka_spout` — reads Kafka topics into a topology with at-least-once delivery.
//
// Runs on the runtime's event loop and never blocks it: librdkafka is polled from NextTuple and
// from a timer on the loop (so every librdkafka callback runs on the loop thread), and the few
// blocking librdkafka calls (metadata, offsets-for-times) run on a helper thread whose results
// are posted back to the loop.
//
// At-least-once: each record is emitted with a message id naming its partition and offset. An
// offset is committed only when it and every offset before it in its partition are done (tuple
// tree acked, or given up after the last retry: skipped with an error, or dead-lettered). A
// failed record is re-emitted after an exponential backoff. A partition with more than
// max_uncommitted_offsets offsets read past its last commit is paused until a commit catches up,
// so a crash replays at most that many offsets per partition. Backpressure, deactivation and a
// full hold queue pause partitions too: the spout never buffers without bound.
//
// Assignment: `manual` (default, as Storm's Kafka spout) spreads the sorted partitions of the
// topics over the spout's tasks round-robin by task index, refreshed every
// partition_refresh_ms; `group` subscribes and lets the broker's group protocol share
// partitions with other `sparse run` instances. A partition taken away never commits past what
// was processed; acks that arrive for it later are ignored (and counted).
//
// The rules live in small units, each with its unit test, pure but for dead_letter's produce and
// manual_assignment's metadata request: the partitions and what the spout keeps of each
// (partition_table), when and what it commits (commit_schedule), retries (retry_queue) and dead
// letters (dead_letter), what each guarantee asks of it (delivery_rules, at_most_once,
// record_aborts for exactly_once), where a partition starts (start_offsets), which partitions a
// task reads (manual_assignment), when backpressure pauses (backpressure_pause) and message ids
// (message_id); client events and the gauges' period are shared with the bolt (client_reports,
// metrics_period). The Session in kafka_spout.cpp makes the librdkafka calls and wires them
// together.
//
// See options.hpp for the options and docs/kafka.md for the metrics.
#pragma once

#include <memory>

#include "kafka/options.hpp"
#include "runtime/builtin.hpp"

namespace sparse::kafka {

// The consumer's fetch.wait.max.ms unless the user sets it (why: kafka_spout.cpp); kafka_bench
// gives its plain consumer the same.
inline constexpr const char* kSpoutFetchWaitMaxMs = "100";

class KafkaSpout final : public runtime::BuiltinComponent {
 public:
  explicit KafkaSpout(SpoutOptions options);
  ~KafkaSpout() override;

  std::optional<std::string> Open(const nlohmann::json& conf, int task_id, int task_index,
                                  int num_tasks, runtime::BuiltinCollector& collector,
                                  boost::asio::io_context& io) override;
  void NextTuple() override;
  void Ack(const std::string& message_id_json) override;
  void Fail(const std::string& message_id_json) override;
  void Activate() override;
  void Deactivate() override;
  void Backpressure(bool throttled) override;
  void Close() override;

  class Session;  // one Open .. Close

 private:
  SpoutOptions options_;
  std::unique_ptr<Session> session_;
  // Partition slots are numbered across sessions, so an ack for a tuple of a closed session
  // (the task was restarted) never matches a partition of the new one.
  std::int64_t next_slot_ = 1;
};

}  // namespace sparse::kafka
