// Configuration helpers: sparse's defaults give way to the user's librdkafka properties. Produce:
// what reaches librdkafka (no broker: a producer that never connects queues each record, and
// purging the queue brings back its delivery report with the message as librdkafka holds it).
#include "kafka/rdkafka_handles.hpp"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "unsent_producer.hpp"

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

TEST(IntProperty, ReadsASetValueOrLibrdkafkasDefault) {
  ConfPtr conf(rd_kafka_conf_new());
  EXPECT_EQ(IntProperty(conf.get(), "queued.min.messages"), 100000) << "librdkafka's default";
  ASSERT_FALSE(SetProperty(conf.get(), "queued.min.messages", "2500"));
  EXPECT_EQ(IntProperty(conf.get(), "queued.min.messages"), 2500);
}

TEST(IntProperty, NothingForAnUnknownOrNonIntegerProperty) {
  ConfPtr conf(rd_kafka_conf_new());
  EXPECT_FALSE(IntProperty(conf.get(), "no.such.property"));
  ASSERT_FALSE(SetProperty(conf.get(), "client.id", "12ab"));
  EXPECT_FALSE(IntProperty(conf.get(), "client.id"));
}

// A record as its delivery report shows it.
struct Queued {
  std::string topic;
  std::int32_t partition = 0;
  std::optional<std::string> key;
  std::optional<std::string> value;
  std::vector<std::pair<std::string, std::string>> headers;
  void* opaque = nullptr;
};

void OnQueuedReport(rd_kafka_t*, const rd_kafka_message_t* m, void* reports) {
  Queued q;
  q.topic = rd_kafka_topic_name(m->rkt);
  q.partition = m->partition;
  if (m->key) q.key = std::string(static_cast<const char*>(m->key), m->key_len);
  if (m->payload) q.value = std::string(static_cast<const char*>(m->payload), m->len);
  q.headers = HeadersOf(*m);
  q.opaque = m->_private;
  static_cast<std::vector<Queued>*>(reports)->push_back(std::move(q));
}

std::vector<Queued> ProduceUnsent(const std::vector<OutRecord>& records,
                                  std::vector<rd_kafka_resp_err_t>& results) {
  std::vector<Queued> reports;
  ClientPtr producer = UnsentProducer(3, &OnQueuedReport, &reports);
  if (!producer) return reports;
  for (const auto& r : records) results.push_back(Produce(producer.get(), r));
  PurgeUnsent(producer.get());
  return reports;
}

TEST(Produce, HandsLibrdkafkaTopicPartitionKeyValueHeadersAndOpaque) {
  int marker = 0;
  HeadersPtr headers(rd_kafka_headers_new(1));
  rd_kafka_header_add(headers.get(), "h", -1, "v", 1);
  const std::string key = "k";  // copied: only needs to live for the call
  OutRecord full;
  full.topic = "clicks";
  full.partition = 3;
  full.key = key;
  full.value = std::string_view("payload");
  full.headers = headers.get();
  full.opaque = &marker;
  std::vector<rd_kafka_resp_err_t> results;
  const auto reports = ProduceUnsent({full}, results);
  ASSERT_EQ(results, std::vector<rd_kafka_resp_err_t>{RD_KAFKA_RESP_ERR_NO_ERROR});
  headers.release();  // the message's now
  ASSERT_EQ(reports.size(), 1u);
  EXPECT_EQ(reports[0].topic, "clicks");
  EXPECT_EQ(reports[0].partition, 3);
  EXPECT_EQ(reports[0].key, "k");
  EXPECT_EQ(reports[0].value, "payload");
  EXPECT_EQ(reports[0].headers, (std::vector<std::pair<std::string, std::string>>{{"h", "v"}}));
  EXPECT_EQ(reports[0].opaque, &marker);
}

TEST(Produce, NoKeyOrValueIsNullAndTheDefaultPartitionIsThePartitioners) {
  OutRecord bare;
  bare.topic = "t";
  std::vector<rd_kafka_resp_err_t> results;
  const auto reports = ProduceUnsent({bare}, results);
  ASSERT_EQ(results, std::vector<rd_kafka_resp_err_t>{RD_KAFKA_RESP_ERR_NO_ERROR});
  ASSERT_EQ(reports.size(), 1u);
  EXPECT_EQ(reports[0].partition, RD_KAFKA_PARTITION_UA) << "left to the partitioner";
  EXPECT_EQ(reports[0].key, std::nullopt);
  EXPECT_EQ(reports[0].value, std::nullopt) << "a tombstone";
  EXPECT_EQ(reports[0].headers.size(), 0u);
  EXPECT_EQ(reports[0].opaque, nullptr);
}

TEST(Produce, AFullQueueIsAnErrorCodeNotABlock) {
  OutRecord r;
  r.topic = "t";
  r.value = std::string_view("x");
  std::vector<rd_kafka_resp_err_t> results;
  const auto reports = ProduceUnsent({r, r, r, r}, results);
  EXPECT_EQ(results, (std::vector<rd_kafka_resp_err_t>{
                         RD_KAFKA_RESP_ERR_NO_ERROR, RD_KAFKA_RESP_ERR_NO_ERROR,
                         RD_KAFKA_RESP_ERR_NO_ERROR, RD_KAFKA_RESP_ERR__QUEUE_FULL}));
  EXPECT_EQ(reports.size(), 3u);
}

}  // namespace
}  // namespace sparse::kafka
