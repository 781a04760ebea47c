#include "kafka/options.hpp"

#include <algorithm>
#include <regex>
#include <set>

#include "kafka/rdkafka_handles.hpp"

namespace sparse::kafka {

namespace {

using nlohmann::json;

// Reads options with precise messages; the first problem wins.
class Reader {
 public:
  Reader(const json& options, std::string& error) : options_(options), error_(error) {}

  bool ok() const { return error_.empty(); }
  void Fail(const std::string& field, const std::string& what) {
    if (error_.empty()) error_ = "options." + field + ": " + what;
  }

  bool Has(const char* key) const {
    return options_.is_object() && options_.contains(key) && !options_.at(key).is_null();
  }

  void String(const char* key, std::string& out) {
    if (!Has(key)) return;
    const json& v = options_.at(key);
    if (v.is_string()) {
      out = v.get<std::string>();
    } else if (v.is_number()) {
      out = v.dump();
    } else {
      Fail(key, "expected a string, got " + Kind(v));
    }
  }

  void Int(const char* key, std::int64_t& out, std::int64_t min) {
    if (!Has(key)) return;
    const json& v = options_.at(key);
    if (!v.is_number_integer()) {
      Fail(key, "expected an integer, got " + Kind(v));
      return;
    }
    const auto n = v.get<std::int64_t>();
    if (n < min) {
      Fail(key, "must be at least " + std::to_string(min) + ", got " + std::to_string(n));
      return;
    }
    out = n;
  }

  // A list of strings, or one string (taken as a one-element list).
  void StringList(const char* key, std::vector<std::string>& out) {
    if (!Has(key)) return;
    const json& v = options_.at(key);
    if (v.is_string()) {
      out = {v.get<std::string>()};
      return;
    }
    if (!v.is_array()) {
      Fail(key, "expected a list of strings, got " + Kind(v));
      return;
    }
    out.clear();
    for (const auto& e : v) {
      if (!e.is_string()) {
        Fail(key, "expected a list of strings, found " + Kind(e));
        return;
      }
      out.push_back(e.get<std::string>());
    }
  }

  void Object(const char* key, json& out) {
    if (!Has(key)) return;
    const json& v = options_.at(key);
    if (!v.is_object()) {
      Fail(key, "expected a mapping, got " + Kind(v));
      return;
    }
    out = v;
  }

  template <typename E>
  void Choice(const char* key, E& out, const std::vector<std::pair<std::string, E>>& choices) {
    if (!Has(key)) return;
    const json& v = options_.at(key);
    if (!v.is_string()) {
      Fail(key, "expected a string, got " + Kind(v));
      return;
    }
    std::string s = v.get<std::string>();
    std::string lower = s;
    std::transform(lower.begin(), lower.end(), lower.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    for (const auto& [name, value] : choices) {
      if (name == lower) {
        out = value;
        return;
      }
    }
    std::string names;
    for (const auto& [name, _] : choices) {
      if (!names.empty()) names += ", ";
      names += name;
    }
    Fail(key, "unknown value `" + s + "` (expected one of: " + names + ")");
  }

  void RejectUnknown(const std::set<std::string>& known) {
    if (!options_.is_object()) return;
    for (const auto& [key, _] : options_.items()) {
      if (!known.count(key)) {
        std::string names;
        for (const auto& k : known) names += (names.empty() ? "" : ", ") + k;
        Fail(key, "unknown option (known: " + names + ")");
      }
    }
  }

  static std::string Kind(const json& v) {
    switch (v.type()) {
      case json::value_t::null:
        return "null";
      case json::value_t::object:
        return "a mapping";
      case json::value_t::array:
        return "a list";
      case json::value_t::string:
        return "a string";
      case json::value_t::boolean:
        return "a boolean";
      case json::value_t::number_integer:
      case json::value_t::number_unsigned:
      case json::value_t::number_float:
        return "a number";
      case json::value_t::binary:
        return "binary data";
      case json::value_t::discarded:
        return "nothing";
    }
    return "something else";
  }

 private:
  const json& options_;
  std::string& error_;
};

const std::vector<std::pair<std::string, Format>> kFormats = {
    {"string", Format::kString}, {"json", Format::kJson}, {"base64", Format::kBase64}};

const std::vector<std::pair<std::string, RecordField>> kRecordFields = {
    {"topic", RecordField::kTopic},   {"partition", RecordField::kPartition},
    {"offset", RecordField::kOffset}, {"key", RecordField::kKey},
    {"value", RecordField::kValue},   {"timestamp", RecordField::kTimestamp}};

}  // namespace

std::int64_t RetryOptions::DelayMs(int failures) const {
  std::int64_t delay = initial_delay_ms;
  for (int i = 1; i < failures && delay < max_delay_ms; ++i) delay *= 2;
  return std::min(delay, max_delay_ms);
}

const char* RecordFieldName(RecordField f) {
  switch (f) {
    case RecordField::kTopic:
      return "topic";
    case RecordField::kPartition:
      return "partition";
    case RecordField::kOffset:
      return "offset";
    case RecordField::kKey:
      return "key";
    case RecordField::kValue:
      return "value";
    case RecordField::kTimestamp:
      return "timestamp";
  }
  return "?";
}

std::vector<std::string> SpoutOptions::OutputFields() const {
  std::vector<std::string> out;
  for (RecordField f : fields) out.push_back(RecordFieldName(f));
  out.insert(out.end(), json_fields.begin(), json_fields.end());
  return out;
}

std::optional<SpoutOptions> ParseSpoutOptions(const nlohmann::json& options, std::string& error) {
  error.clear();
  SpoutOptions o;
  if (!options.is_null() && !options.is_object()) {
    error = "options: expected a mapping";
    return std::nullopt;
  }
  Reader r(options, error);
  r.RejectUnknown({"bootstrap_servers",
                   "topics",
                   "topic",
                   "topic_pattern",
                   "group_id",
                   "start",
                   "start_timestamp_ms",
                   "processing_guarantee",
                   "assignment",
                   "fields",
                   "value_format",
                   "key_format",
                   "json_fields",
                   "stream",
                   "commit_interval_ms",
                   "max_uncommitted_offsets",
                   "max_retries",
                   "retry_initial_delay_ms",
                   "retry_max_delay_ms",
                   "on_give_up",
                   "dead_letter_topic",
                   "partition_refresh_ms",
                   "poll_interval_ms",
                   "backpressure_pause_ms",
                   "max_batch",
                   "properties",
                   "dead_letter_properties",
                   "epoch_ms",
                   "epoch_max_records",
                   "transactional_id",
                   "transaction_properties"});
  r.String("bootstrap_servers", o.bootstrap_servers);
  r.StringList("topics", o.topics);
  if (r.Has("topic")) {
    if (r.Has("topics")) r.Fail("topic", "give either `topic` or `topics`, not both");
    r.StringList("topic", o.topics);
  }
  r.String("topic_pattern", o.topic_pattern);
  if (!r.ok()) return std::nullopt;
  if (o.topics.empty() && o.topic_pattern.empty()) {
    r.Fail("topics", "required: a list of topics (or `topic_pattern`, a regular expression)");
  } else if (!o.topics.empty() && !o.topic_pattern.empty()) {
    r.Fail("topic_pattern", "give either `topics` or `topic_pattern`, not both");
  }
  for (const auto& t : o.topics) {
    if (t.empty()) r.Fail("topics", "a topic name is empty");
  }
  if (!o.topic_pattern.empty()) {
    try {
      std::regex re(o.topic_pattern);
    } catch (const std::regex_error& e) {
      r.Fail("topic_pattern", "not a valid regular expression: " + std::string(e.what()));
    }
  }
  r.String("group_id", o.group_id);
  if (r.ok() && o.group_id.empty()) {
    r.Fail("group_id", "required: the consumer group under which offsets are committed");
  }
  r.Choice<StartPosition>("start", o.start,
                          {{"earliest", StartPosition::kEarliest},
                           {"latest", StartPosition::kLatest},
                           {"committed_or_earliest", StartPosition::kCommittedOrEarliest},
                           {"committed_or_latest", StartPosition::kCommittedOrLatest},
                           {"timestamp", StartPosition::kTimestamp},
                           // Storm's FirstPollOffsetStrategy names.
                           {"uncommitted_earliest", StartPosition::kCommittedOrEarliest},
                           {"uncommitted_latest", StartPosition::kCommittedOrLatest}});
  r.Int("start_timestamp_ms", o.start_timestamp_ms, 0);
  if (r.ok() && o.start == StartPosition::kTimestamp && !r.Has("start_timestamp_ms")) {
    r.Fail("start_timestamp_ms", "required with `start: timestamp` (milliseconds since the epoch)");
  }
  if (r.ok() && o.start != StartPosition::kTimestamp && r.Has("start_timestamp_ms")) {
    r.Fail("start_timestamp_ms", "only used with `start: timestamp`");
  }
  r.Choice<Guarantee>("processing_guarantee", o.guarantee,
                      {{"at_least_once", Guarantee::kAtLeastOnce},
                       {"at_most_once", Guarantee::kAtMostOnce},
                       {"exactly_once", Guarantee::kExactlyOnce}});
  r.Choice<Assignment>("assignment", o.assignment,
                       {{"manual", Assignment::kManual}, {"group", Assignment::kGroup}});
  if (r.Has("fields")) {
    std::vector<std::string> names;
    r.StringList("fields", names);
    o.fields.clear();
    for (const auto& n : names) {
      RecordField f{};
      bool found = false;
      for (const auto& [name, value] : kRecordFields) {
        if (name == n) {
          f = value;
          found = true;
        }
      }
      if (!found) {
        r.Fail("fields", "unknown record field `" + n +
                             "` (known: topic, partition, offset, key, value, timestamp)");
        break;
      }
      if (std::find(o.fields.begin(), o.fields.end(), f) != o.fields.end()) {
        r.Fail("fields", "`" + n + "` is listed twice");
        break;
      }
      o.fields.push_back(f);
    }
  }
  r.Choice<Format>("value_format", o.value_format, kFormats);
  r.Choice<Format>("key_format", o.key_format, kFormats);
  r.StringList("json_fields", o.json_fields);
  if (r.ok() && !o.json_fields.empty()) {
    if (r.Has("value_format") && o.value_format != Format::kJson) {
      r.Fail("json_fields", "needs `value_format: json`");
    }
    o.value_format = Format::kJson;
    const auto out = o.OutputFields();
    std::set<std::string> seen;
    for (const auto& f : out) {
      if (f.empty()) r.Fail("json_fields", "a field name is empty");
      if (!seen.insert(f).second) {
        r.Fail("json_fields", "`" + f + "` is already an output field");
      }
    }
  }
  if (r.ok() && o.OutputFields().empty()) r.Fail("fields", "no output field left");
  r.String("stream", o.stream);
  r.Int("commit_interval_ms", o.commit_interval_ms, 1);
  r.Int("max_uncommitted_offsets", o.max_uncommitted_offsets, 1);
  std::int64_t max_retries = o.retry.max_retries;
  r.Int("max_retries", max_retries, -1);
  o.retry.max_retries = static_cast<int>(std::min<std::int64_t>(max_retries, 1'000'000'000));
  r.Int("retry_initial_delay_ms", o.retry.initial_delay_ms, 0);
  r.Int("retry_max_delay_ms", o.retry.max_delay_ms, 0);
  r.String("dead_letter_topic", o.dead_letter_topic);
  if (!o.dead_letter_topic.empty()) o.give_up = GiveUp::kDeadLetter;
  r.Choice<GiveUp>("on_give_up", o.give_up,
                   {{"skip", GiveUp::kSkip}, {"dead_letter", GiveUp::kDeadLetter}});
  if (r.ok() && o.give_up == GiveUp::kDeadLetter && o.dead_letter_topic.empty()) {
    r.Fail("dead_letter_topic", "required with `on_give_up: dead_letter`");
  }
  if (r.ok() && o.give_up == GiveUp::kSkip && !o.dead_letter_topic.empty()) {
    r.Fail("on_give_up", "is `skip` but dead_letter_topic is set");
  }
  if (r.ok() && o.guarantee == Guarantee::kAtMostOnce &&
      (r.Has("max_retries") || r.Has("dead_letter_topic"))) {
    r.Fail("processing_guarantee",
           "at_most_once never replays: retries and dead letters need "
           "at_least_once");
  }
  r.Int("partition_refresh_ms", o.partition_refresh_ms, 100);
  r.Int("poll_interval_ms", o.poll_interval_ms, 1);
  r.Int("backpressure_pause_ms", o.backpressure_pause_ms, 0);
  r.Int("max_batch", o.max_batch, 1);
  r.Object("properties", o.properties);
  r.Object("dead_letter_properties", o.dead_letter_properties);
  r.Int("epoch_ms", o.epoch_ms, 1);
  r.Int("epoch_max_records", o.epoch_max_records, 0);
  r.String("transactional_id", o.transactional_id);
  r.Object("transaction_properties", o.transaction_properties);
  const bool exactly = o.guarantee == Guarantee::kExactlyOnce;
  for (const char* k :
       {"epoch_ms", "epoch_max_records", "transactional_id", "transaction_properties"}) {
    if (r.ok() && !exactly && r.Has(k)) {
      r.Fail(k, "applies to `processing_guarantee: exactly_once` only");
    }
  }
  if (r.ok() && exactly && o.assignment == Assignment::kGroup) {
    r.Fail("assignment",
           "exactly_once needs `manual` assignment (a group rebalance in the middle of an epoch "
           "would move records the epoch's transaction still owns)");
  }
  if (!r.ok()) return std::nullopt;
  return o;
}

std::optional<BoltOptions> ParseBoltOptions(const nlohmann::json& options, std::string& error) {
  error.clear();
  BoltOptions o;
  if (!options.is_null() && !options.is_object()) {
    error = "options: expected a mapping";
    return std::nullopt;
  }
  Reader r(options, error);
  r.RejectUnknown({"bootstrap_servers", "topic", "topic_field", "key_field", "value_field",
                   "properties", "poll_interval_ms"});
  r.String("bootstrap_servers", o.bootstrap_servers);
  r.String("topic", o.topic);
  r.String("topic_field", o.topic_field);
  r.String("key_field", o.key_field);
  r.String("value_field", o.value_field);
  r.Object("properties", o.properties);
  r.Int("poll_interval_ms", o.poll_interval_ms, 1);
  if (r.ok() && o.topic.empty() == o.topic_field.empty()) {
    r.Fail("topic", o.topic.empty() ? "required: a topic name (or `topic_field`, the field "
                                      "that holds one)"
                                    : "give either `topic` or `topic_field`, not both");
  }
  if (!r.ok()) return std::nullopt;
  return o;
}

std::optional<AggregateOptions> ParseAggregateOptions(const nlohmann::json& options,
                                                      std::string& error) {
  error.clear();
  AggregateOptions o;
  if (!options.is_null() && !options.is_object()) {
    error = "options: expected a mapping";
    return std::nullopt;
  }
  Reader r(options, error);
  r.RejectUnknown({"key_field", "value_field", "op", "state_topic", "bootstrap_servers",
                   "properties", "stream", "output_fields"});
  r.String("key_field", o.key_field);
  r.String("value_field", o.value_field);
  r.Choice<AggregateOp>("op", o.op,
                        {{"count", AggregateOp::kCount},
                         {"sum", AggregateOp::kSum},
                         {"min", AggregateOp::kMin},
                         {"max", AggregateOp::kMax},
                         {"last", AggregateOp::kLast}});
  r.String("state_topic", o.state_topic);
  r.String("bootstrap_servers", o.bootstrap_servers);
  r.Object("properties", o.properties);
  r.String("stream", o.stream);
  r.StringList("output_fields", o.output_fields);
  if (r.ok() && o.key_field.empty()) r.Fail("key_field", "required: the field to group by");
  if (r.ok() && o.op != AggregateOp::kCount && o.value_field.empty()) {
    r.Fail("value_field", "required by every op but `count`");
  }
  if (r.ok() && (o.output_fields.size() != 2 || o.output_fields[0] == o.output_fields[1])) {
    r.Fail("output_fields", "two distinct names: the key's and the total's");
  }
  if (!r.ok()) return std::nullopt;
  return o;
}

std::string EffectiveBootstrap(const nlohmann::json& conf, const std::string& from_options,
                               const nlohmann::json& properties) {
  if (conf.is_object()) {
    auto it = conf.find(kBootstrapOverrideKey);
    if (it != conf.end() && it->is_string() && !it->get<std::string>().empty()) {
      return it->get<std::string>();
    }
  }
  if (!from_options.empty()) return from_options;
  if (properties.is_object() && properties.contains("bootstrap.servers")) {
    return PropertyText(properties["bootstrap.servers"]).value_or("");
  }
  return "";
}

std::string MissingBootstrapError() {
  return std::string(
             "no Kafka bootstrap servers: set options.bootstrap_servers, or the config key ") +
         kBootstrapOverrideKey + " (e.g. sparse run -o " + kBootstrapOverrideKey +
         "=localhost:9092)";
}

}  // namespace sparse::kafka
