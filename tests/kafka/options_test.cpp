// Option parsing: defaults, and a precise message naming the field for every mistake.
#include "kafka/options.hpp"

#include <gtest/gtest.h>

namespace sparse::kafka {
namespace {

using nlohmann::json;

std::string SpoutError(const json& options) {
  std::string error;
  EXPECT_FALSE(ParseSpoutOptions(options, error));
  return error;
}

TEST(SpoutOptions, DefaultsFollowStorm) {
  std::string error;
  auto o = ParseSpoutOptions(json{{"topics", {"a"}}, {"group_id", "g"}}, error);
  ASSERT_TRUE(o) << error;
  EXPECT_EQ(o->start, StartPosition::kCommittedOrEarliest);
  EXPECT_EQ(o->guarantee, Guarantee::kAtLeastOnce);
  EXPECT_EQ(o->assignment, Assignment::kManual);
  EXPECT_EQ(o->retry.max_retries, -1);
  EXPECT_EQ(o->give_up, GiveUp::kSkip);
  EXPECT_EQ(o->OutputFields(),
            (std::vector<std::string>{"topic", "partition", "offset", "key", "value"}));
}

TEST(SpoutOptions, StormStartNamesAreAccepted) {
  std::string error;
  auto o = ParseSpoutOptions(
      json{{"topic", "a"}, {"group_id", "g"}, {"start", "UNCOMMITTED_LATEST"}}, error);
  ASSERT_TRUE(o) << error;
  EXPECT_EQ(o->start, StartPosition::kCommittedOrLatest);
  EXPECT_EQ(o->topics, std::vector<std::string>{"a"});
}

TEST(SpoutOptions, JsonFieldsBecomeOutputFields) {
  std::string error;
  auto o = ParseSpoutOptions(json{{"topics", {"a"}},
                                  {"group_id", "g"},
                                  {"fields", {"offset"}},
                                  {"json_fields", {"user", "url"}}},
                             error);
  ASSERT_TRUE(o) << error;
  EXPECT_EQ(o->value_format, Format::kJson);
  EXPECT_EQ(o->OutputFields(), (std::vector<std::string>{"offset", "user", "url"}));
}

TEST(SpoutOptions, MistakesNameTheField) {
  EXPECT_EQ(SpoutError(json{{"group_id", "g"}}),
            "options.topics: required: a list of topics (or `topic_pattern`, a regular "
            "expression)");
  EXPECT_EQ(SpoutError(json{{"topics", {"a"}}}),
            "options.group_id: required: the consumer group under which offsets are committed");
  EXPECT_EQ(SpoutError(json{{"topics", {"a"}}, {"group_id", "g"}, {"start", "begin"}}),
            "options.start: unknown value `begin` (expected one of: earliest, latest, "
            "committed_or_earliest, committed_or_latest, timestamp, uncommitted_earliest, "
            "uncommitted_latest)");
  EXPECT_EQ(SpoutError(json{{"topics", {"a"}}, {"group_id", "g"}, {"start", "timestamp"}}),
            "options.start_timestamp_ms: required with `start: timestamp` (milliseconds since "
            "the epoch)");
  EXPECT_EQ(SpoutError(json{{"topics", {"a"}}, {"group_id", "g"}, {"max_retries", "3"}}),
            "options.max_retries: expected an integer, got a string");
  EXPECT_EQ(SpoutError(json{{"topics", {"a"}}, {"group_id", "g"}, {"fields", {"body"}}}),
            "options.fields: unknown record field `body` (known: topic, partition, offset, key, "
            "value, timestamp)");
  EXPECT_EQ(SpoutError(json{{"topics", {"a"}}, {"group_id", "g"}, {"on_give_up", "dead_letter"}}),
            "options.dead_letter_topic: required with `on_give_up: dead_letter`");
  EXPECT_EQ(SpoutError(json{{"topics", {"a"}}, {"group_id", "g"}, {"topic_pattern", "("}})
                .rfind("options.topic_pattern: give either", 0),
            0u);
  EXPECT_EQ(SpoutError(json{{"topic_pattern", "("}, {"group_id", "g"}})
                .rfind("options.topic_pattern: not a valid regular expression", 0),
            0u);
  EXPECT_EQ(SpoutError(json{{"topics", {"a"}}, {"group_id", "g"}, {"max_uncommited", 5}})
                .rfind("options.max_uncommited: unknown option (known: ", 0),
            0u);
  EXPECT_EQ(SpoutError(json{{"topics", {"a"}},
                            {"group_id", "g"},
                            {"processing_guarantee", "at_most_once"},
                            {"max_retries", 3}}),
            "options.processing_guarantee: at_most_once never replays: retries and dead letters "
            "need at_least_once");
  EXPECT_EQ(SpoutError(json{{"topics", {"a"}}, {"group_id", "g"}, {"properties", "x"}}),
            "options.properties: expected a mapping, got a string");
}

TEST(SpoutOptions, ExactlyOnceTakesItsOwnOptionsAndRefusesGroupAssignment) {
  std::string error;
  auto o = ParseSpoutOptions(json{{"topics", {"a"}},
                                  {"group_id", "g"},
                                  {"processing_guarantee", "exactly_once"},
                                  {"epoch_ms", 250},
                                  {"epoch_max_records", 5000},
                                  {"max_retries", 3},
                                  {"transactional_id", "tx"}},
                             error);
  ASSERT_TRUE(o) << error;
  EXPECT_EQ(o->guarantee, Guarantee::kExactlyOnce);
  EXPECT_EQ(o->epoch_ms, 250);
  EXPECT_EQ(o->epoch_max_records, 5000);
  EXPECT_EQ(o->retry.max_retries, 3);  // replays of an epoch for one record
  EXPECT_EQ(o->transactional_id, "tx");

  EXPECT_EQ(SpoutError(json{{"topics", {"a"}}, {"group_id", "g"}, {"epoch_ms", 100}}),
            "options.epoch_ms: applies to `processing_guarantee: exactly_once` only");
  EXPECT_EQ(SpoutError(json{{"topics", {"a"}},
                            {"group_id", "g"},
                            {"processing_guarantee", "exactly_once"},
                            {"assignment", "group"}}),
            "options.assignment: exactly_once needs `manual` assignment (a group rebalance in "
            "the middle of an epoch would move records the epoch's transaction still owns)");
  EXPECT_EQ(SpoutError(json{{"topics", {"a"}},
                            {"group_id", "g"},
                            {"processing_guarantee", "exactly_once"},
                            {"epoch_ms", 0}})
                .rfind("options.epoch_ms: ", 0),
            0u);
}

TEST(AggregateOptions, DefaultsAndMistakes) {
  std::string error;
  auto o = ParseAggregateOptions(json{{"key_field", "user"}}, error);
  ASSERT_TRUE(o) << error;
  EXPECT_EQ(o->op, AggregateOp::kCount);
  EXPECT_EQ(o->output_fields, (std::vector<std::string>{"key", "value"}));
  EXPECT_FALSE(ParseAggregateOptions(json::object(), error));
  EXPECT_EQ(error, "options.key_field: required: the field to group by");
  EXPECT_FALSE(ParseAggregateOptions(json{{"key_field", "u"}, {"op", "sum"}}, error));
  EXPECT_EQ(error, "options.value_field: required by every op but `count`");
  EXPECT_FALSE(
      ParseAggregateOptions(json{{"key_field", "u"}, {"output_fields", {"a", "a"}}}, error));
  EXPECT_EQ(error, "options.output_fields: two distinct names: the key's and the total's");
  EXPECT_FALSE(ParseAggregateOptions(json{{"key_field", "u"}, {"op", "avg"}}, error));
  EXPECT_NE(error.find("options.op: unknown value `avg`"), std::string::npos) << error;
}

TEST(RetryOptions, BackoffDoublesUpToTheCap) {
  RetryOptions r;
  r.initial_delay_ms = 100;
  r.max_delay_ms = 1000;
  EXPECT_EQ(r.DelayMs(1), 100);
  EXPECT_EQ(r.DelayMs(2), 200);
  EXPECT_EQ(r.DelayMs(4), 800);
  EXPECT_EQ(r.DelayMs(5), 1000);
  EXPECT_EQ(r.DelayMs(60), 1000);
}

TEST(BoltOptions, TopicIsFixedOrFromAField) {
  std::string error;
  EXPECT_TRUE(ParseBoltOptions(json{{"topic", "out"}}, error)) << error;
  EXPECT_TRUE(ParseBoltOptions(json{{"topic_field", "dest"}}, error)) << error;
  EXPECT_FALSE(ParseBoltOptions(json::object(), error));
  EXPECT_EQ(error,
            "options.topic: required: a topic name (or `topic_field`, the field that holds one)");
  EXPECT_FALSE(ParseBoltOptions(json{{"topic", "a"}, {"topic_field", "b"}}, error));
  EXPECT_EQ(error, "options.topic: give either `topic` or `topic_field`, not both");
}

TEST(Bootstrap, ConfigKeyOverridesTheOption) {
  EXPECT_EQ(EffectiveBootstrap(json{{"kafka.bootstrap.servers", "h:1"}}, "o:2"), "h:1");
  EXPECT_EQ(EffectiveBootstrap(json::object(), "o:2"), "o:2");
}

TEST(Bootstrap, LibrdkafkaPropertyIsTheLastResort) {
  const json props{{"bootstrap.servers", "p:3"}};
  EXPECT_EQ(EffectiveBootstrap(json::object(), "", props), "p:3");
  EXPECT_EQ(EffectiveBootstrap(json::object(), "o:2", props), "o:2");
  EXPECT_EQ(EffectiveBootstrap(json{{"kafka.bootstrap.servers", "h:1"}}, "", props), "h:1");
  EXPECT_EQ(EffectiveBootstrap(json::object(), ""), "");
  EXPECT_NE(MissingBootstrapError().find("kafka.bootstrap.servers"), std::string::npos);
}

}  // namespace
}  // namespace sparse::kafka
