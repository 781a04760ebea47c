// Dead letters (kafka/dead_letter.hpp): their headers, and what ProduceDeadLetter hands
// librdkafka. No broker: a producer that never connects queues the message, and purging it
// brings back its delivery report.
#include "kafka/dead_letter.hpp"

#include <gtest/gtest.h>

#include "kafka/rdkafka_handles.hpp"
#include "unsent_producer.hpp"

namespace sparse::kafka {
namespace {

TEST(DeadLetterHeaders, NameTheSourceAndTheReason) {
  const auto h = DeadLetterHeaders("clicks", 3, 1234, "cannot decode: bad UTF-8");
  const std::vector<std::pair<std::string, std::string>> want = {
      {"sparse.source.topic", "clicks"},
      {"sparse.source.partition", "3"},
      {"sparse.source.offset", "1234"},
      {"sparse.error", "cannot decode: bad UTF-8"}};
  EXPECT_EQ(h, want);
}

struct DeliveredLetter {
  std::unique_ptr<DeadLetterRef> ref;
  std::string topic, key, value;
  std::vector<std::pair<std::string, std::string>> headers;
};

void OnDelivery(rd_kafka_t*, const rd_kafka_message_t* msg, void* opaque) {
  auto* out = static_cast<std::vector<DeliveredLetter>*>(opaque);
  DeliveredLetter r;
  r.ref.reset(static_cast<DeadLetterRef*>(msg->_private));
  r.topic = rd_kafka_topic_name(msg->rkt);
  if (msg->key) r.key.assign(static_cast<const char*>(msg->key), msg->key_len);
  if (msg->payload) r.value.assign(static_cast<const char*>(msg->payload), msg->len);
  r.headers = HeadersOf(*msg);
  out->push_back(std::move(r));
}

ClientPtr Producer(std::vector<DeliveredLetter>& reports, int queue) {
  return UnsentProducer(queue, &OnDelivery, &reports);
}

TEST(ProduceDeadLetter, QueuesTheRawRecordWithItsHeadersAndRef) {
  std::vector<DeliveredLetter> reports;
  ClientPtr producer = Producer(reports, 10);
  PartitionOffsets::Raw raw{std::string("k1"), std::string("v1")};
  auto ref = std::make_unique<DeadLetterRef>(DeadLetterRef{5, 77, "failed 3 time(s)"});
  ASSERT_EQ(ProduceDeadLetter(producer.get(), "dlq", "clicks", 2, &raw, ref),
            RD_KAFKA_RESP_ERR_NO_ERROR);
  EXPECT_EQ(ref, nullptr) << "the message owns the ref now";
  PurgeUnsent(producer.get());
  ASSERT_EQ(reports.size(), 1u);
  const DeliveredLetter& r = reports[0];
  ASSERT_NE(r.ref, nullptr);
  EXPECT_EQ(r.ref->slot, 5);
  EXPECT_EQ(r.ref->offset, 77);
  EXPECT_EQ(r.topic, "dlq");
  EXPECT_EQ(r.key, "k1");
  EXPECT_EQ(r.value, "v1");
  EXPECT_EQ(r.headers, DeadLetterHeaders("clicks", 2, 77, "failed 3 time(s)"));
}

TEST(ProduceDeadLetter, ARecordWithoutRawBytesGoesWithoutKeyAndValue) {
  std::vector<DeliveredLetter> reports;
  ClientPtr producer = Producer(reports, 10);
  auto ref = std::make_unique<DeadLetterRef>(DeadLetterRef{1, 2, "why"});
  ASSERT_EQ(ProduceDeadLetter(producer.get(), "dlq", "t", 0, nullptr, ref),
            RD_KAFKA_RESP_ERR_NO_ERROR);
  PurgeUnsent(producer.get());
  ASSERT_EQ(reports.size(), 1u);
  EXPECT_TRUE(reports[0].key.empty());
  EXPECT_TRUE(reports[0].value.empty());
}

TEST(ProduceDeadLetter, ARefusedWriteLeavesTheRefWithTheCaller) {
  std::vector<DeliveredLetter> reports;
  ClientPtr producer = Producer(reports, 1);
  auto first = std::make_unique<DeadLetterRef>(DeadLetterRef{1, 1, "a"});
  ASSERT_EQ(ProduceDeadLetter(producer.get(), "dlq", "t", 0, nullptr, first),
            RD_KAFKA_RESP_ERR_NO_ERROR);
  auto second = std::make_unique<DeadLetterRef>(DeadLetterRef{1, 2, "b"});
  EXPECT_EQ(ProduceDeadLetter(producer.get(), "dlq", "t", 0, nullptr, second),
            RD_KAFKA_RESP_ERR__QUEUE_FULL);
  ASSERT_NE(second, nullptr) << "the caller keeps the ref to retry";
  EXPECT_EQ(second->offset, 2);
  PurgeUnsent(producer.get());
  EXPECT_EQ(reports.size(), 1u);
}

}  // namespace
}  // namespace sparse::kafka
