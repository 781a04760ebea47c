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
