// Configuration helpers: sparse's defaults give way to the user's librdkafka properties.
#include "kafka/rdkafka_handles.hpp"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

namespace sparse::kafka {
namespace {

std::string Get(rd_kafka_conf_t* conf, const char* key) {
  char buf[512];
  size_t size = sizeof buf;
  if (rd_kafka_conf_get(conf, key, buf, &size) != RD_KAFKA_CONF_OK) return "<unknown>";
  return buf;
}

TEST(SetDefault, SetsAPropertyTheUserDidNotName) {
  ConfPtr conf(rd_kafka_conf_new());
  const nlohmann::json user = {{"linger.ms", 7}};
  ASSERT_FALSE(ApplyProperties(conf.get(), user));
  EXPECT_FALSE(SetDefault(conf.get(), user, "queued.min.messages", "1000000"));
  EXPECT_EQ(Get(conf.get(), "queued.min.messages"), "1000000");
  EXPECT_EQ(Get(conf.get(), "linger.ms"), "7");
}

TEST(SetDefault, KeepsTheUsersValue) {
  ConfPtr conf(rd_kafka_conf_new());
  const nlohmann::json user = {{"queued.min.messages", 5000}};
  ASSERT_FALSE(ApplyProperties(conf.get(), user));
  EXPECT_FALSE(SetDefault(conf.get(), user, "queued.min.messages", "1000000"));
  EXPECT_EQ(Get(conf.get(), "queued.min.messages"), "5000");
}

TEST(SetDefault, NoUserPropertiesAtAll) {
  ConfPtr conf(rd_kafka_conf_new());
  EXPECT_FALSE(SetDefault(conf.get(), nlohmann::json(), "client.id", "sparse-test"));
  EXPECT_EQ(Get(conf.get(), "client.id"), "sparse-test");
}

TEST(SetDefault, ARefusedValueIsReported) {
  ConfPtr conf(rd_kafka_conf_new());
  const auto err = SetDefault(conf.get(), nlohmann::json::object(), "queued.min.messages", "-3");
  ASSERT_TRUE(err);
  EXPECT_NE(err->find("queued.min.messages"), std::string::npos) << *err;
}

}  // namespace
}  // namespace sparse::kafka
