// The `options:` of the Kafka built-ins, parsed and checked once (when the topology is loaded, so
// a mistake is reported with the file and line of the options), then handed to the component.
//
//   spouts:
//     - id: events
//       builtin: kafka_spout
//       options:
//         bootstrap_servers: localhost:9092
//         topics: [clicks]              # or topic_pattern: "^clicks-.*"
//         group_id: click-counter
//         start: committed_or_earliest  # earliest | latest | committed_or_latest | timestamp
//         fields: [topic, partition, offset, key, value]
//         properties: {session.timeout.ms: 6000}   # any librdkafka consumer property
//
// docs/kafka.md lists every option with its default. The config key `kafka.bootstrap.servers`
// (e.g. `sparse run -o kafka.bootstrap.servers=host:9092`) replaces bootstrap_servers of every
// Kafka component, so one topology runs against the embedded broker and a real cluster.
#pragma once

#include <chrono>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

namespace sparse::kafka {

// Timing every Kafka built-in shares: how often it publishes its gauges (the web view and
// `sparse stats` show them), and how long closing a client may take before it is abandoned.
inline constexpr auto kMetricsEvery = std::chrono::seconds(1);
inline constexpr auto kCloseTimeout = std::chrono::seconds(5);

// Config key that overrides the bootstrap servers of every Kafka component.
inline constexpr const char* kBootstrapOverrideKey = "kafka.bootstrap.servers";

enum class StartPosition {
  kEarliest,             // the first offset of each partition, ignoring commits
  kLatest,               // only records produced after the start, ignoring commits
  kCommittedOrEarliest,  // the group's committed offset; earliest when there is none
  kCommittedOrLatest,    // the group's committed offset; latest when there is none
  kTimestamp,            // the first record at or after start_timestamp_ms (offsets-for-times)
};

enum class Guarantee {
  kAtLeastOnce,  // commit only offsets whose tuple trees all completed; retry failures
  kAtMostOnce,   // commit before emitting; never replay
  // records cut into epochs; each epoch's outputs and offsets commit in one Kafka transaction
  // (exactly_once.hpp)
  kExactlyOnce,
};

enum class Assignment {
  kManual,  // partitions spread over the spout's tasks round-robin by task index (Storm's way)
  kGroup,   // the broker's group protocol spreads partitions over every member of the group
};

enum class GiveUp {
  kSkip,        // count it, report an error, commit past it
  kDeadLetter,  // produce the raw record to dead_letter_topic, then commit past it
};

enum class Format {
  kString,  // UTF-8 text (anything else is a decode error)
  kJson,    // a JSON document, emitted as JSON (not as a string)
  kBase64,  // any bytes, base64-encoded into a string
};

// A record attribute a spout can emit as a field.
enum class RecordField { kTopic, kPartition, kOffset, kKey, kValue, kTimestamp };

struct RetryOptions {
  // Failures after which a record is given up; -1 retries forever (Storm's default). With
  // exactly_once a failure replays the record's whole epoch: this many replays caused by one
  // record, then the replay gives it up (on_give_up) instead of emitting it.
  int max_retries = -1;
  std::int64_t initial_delay_ms = 100;  // delay before the first retry; doubles each time
  std::int64_t max_delay_ms = 10'000;
  // Delay before retry number `failures` (1 for the first failure).
  std::int64_t DelayMs(int failures) const;
};

struct SpoutOptions {
  std::string bootstrap_servers;  // may be empty in YAML when kafka.bootstrap.servers is set
  std::vector<std::string> topics;
  std::string topic_pattern;  // ECMAScript regex over topic names (instead of topics)
  std::string group_id;
  StartPosition start = StartPosition::kCommittedOrEarliest;
  std::int64_t start_timestamp_ms = 0;
  Guarantee guarantee = Guarantee::kAtLeastOnce;
  Assignment assignment = Assignment::kManual;
  std::vector<RecordField> fields{RecordField::kTopic, RecordField::kPartition,
                                  RecordField::kOffset, RecordField::kKey, RecordField::kValue};
  Format value_format = Format::kString;
  Format key_format = Format::kString;
  std::vector<std::string> json_fields;  // top-level members of a JSON value, each a field
  std::string stream = "default";
  std::int64_t commit_interval_ms = 1'000;
  std::int64_t max_uncommitted_offsets = 10'000;  // per partition; more pauses the partition
  RetryOptions retry;
  GiveUp give_up = GiveUp::kSkip;
  std::string dead_letter_topic;
  std::int64_t partition_refresh_ms = 2'000;  // manual assignment: how often to look for partitions
  std::int64_t poll_interval_ms = 5;          // how often librdkafka's events are served
  std::int64_t backpressure_pause_ms = 1'000;  // backpressure this long pauses the partitions
  std::int64_t max_batch = 64;                 // records emitted per NextTuple at most
  nlohmann::json properties = nlohmann::json::object();  // librdkafka consumer properties
  nlohmann::json dead_letter_properties = nlohmann::json::object();  // its producer's
  // exactly_once: an epoch closes after epoch_ms, or epoch_max_records records (0: no cap).
  std::int64_t epoch_ms = 1'000;
  std::int64_t epoch_max_records = 0;
  std::string transactional_id;  // empty: sparse-<topology>-<group_id>
  nlohmann::json transaction_properties = nlohmann::json::object();  // the producer's

  // The output field names, in emit order.
  std::vector<std::string> OutputFields() const;
};

struct BoltOptions {
  std::string bootstrap_servers;
  std::string topic;        // fixed topic, or
  std::string topic_field;  // the field holding the topic
  std::string key_field;    // optional
  std::string value_field;  // empty: the whole tuple as a JSON object {field: value}
  nlohmann::json properties = nlohmann::json::object();  // librdkafka producer properties
  std::int64_t poll_interval_ms = 5;
};

enum class AggregateOp { kCount, kSum, kMin, kMax, kLast };

// `builtin: keyed_aggregate` (keyed_aggregate.hpp).
struct AggregateOptions {
  std::string key_field;
  std::string value_field;  // not needed by count
  AggregateOp op = AggregateOp::kCount;
  std::string state_topic;  // exactly_once: committed totals, one record per key (compacted)
  std::string bootstrap_servers;
  nlohmann::json properties = nlohmann::json::object();  // the restore consumer's
  std::string stream = "default";
  // The output fields: [key, value] under these names.
  std::vector<std::string> output_fields{"key", "value"};
};

// Parse and check; on error return nullopt and set `error` to "FIELD: what is wrong".
std::optional<SpoutOptions> ParseSpoutOptions(const nlohmann::json& options, std::string& error);
std::optional<BoltOptions> ParseBoltOptions(const nlohmann::json& options, std::string& error);
std::optional<AggregateOptions> ParseAggregateOptions(const nlohmann::json& options,
                                                      std::string& error);

// The bootstrap servers to use: the kafka.bootstrap.servers config key when set, else the
// option, else a bootstrap.servers entry of the librdkafka `properties`. Empty when none is set
// (then MissingBootstrapError says what to do).
std::string EffectiveBootstrap(const nlohmann::json& conf, const std::string& from_options,
                               const nlohmann::json& properties = nlohmann::json::object());
std::string MissingBootstrapError();

const char* RecordFieldName(RecordField f);

}  // namespace sparse::kafka
