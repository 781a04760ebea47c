// The Kafka bolt against a real Kafka-protocol broker: inputs are acked only after the broker
// confirmed their records, and failed when delivery fails.
#include <gtest/gtest.h>

#include "broker_helpers.hpp"
#include "component_harness.hpp"
#include "kafka/embedded_broker.hpp"
#include "kafka/kafka_bolt.hpp"

namespace sparse::kafka {
namespace {

using nlohmann::json;
using std::chrono::milliseconds;
using testing::Host;

class KafkaBoltTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string error;
    broker_ = EmbeddedBroker::Start(1, error);
    ASSERT_TRUE(broker_) << error;
    ASSERT_FALSE(broker_->CreateTopic("out", 1));
  }

  std::unique_ptr<Host> Bolt(json extra = json::object()) {
    json options{{"bootstrap_servers", broker_->bootstrap()}, {"topic", "out"}};
    for (auto& [k, v] : extra.items()) options[k] = v;
    std::string error;
    auto parsed = ParseBoltOptions(options, error);
    EXPECT_TRUE(parsed) << error;
    auto host = std::make_unique<Host>(std::make_unique<KafkaBolt>(*parsed), json::object());
    auto err = host->Open();
    EXPECT_FALSE(err) << *err;
    return host;
  }

  std::unique_ptr<EmbeddedBroker> broker_;
};

TEST_F(KafkaBoltTest, AcksEachInputOnlyAfterDelivery) {
  auto h = Bolt({{"key_field", "word"}, {"value_field", "count"}});
  std::vector<std::string> ids;
  for (int i = 0; i < 100; ++i) {
    ids.push_back(h->Execute({"word", "count"},
                             "[\"w" + std::to_string(i) + "\"," + std::to_string(i) + "]"));
  }
  EXPECT_TRUE(h->out().acked.empty()) << "nothing is acked before the broker confirmed it";
  ASSERT_TRUE(h->RunUntil([&] { return h->out().acked.size() == 100; }));
  EXPECT_TRUE(h->out().failed.empty());
  const auto records = testing::ReadAll(broker_->bootstrap(), "out", 1);
  ASSERT_EQ(records.size(), 100u);
  EXPECT_EQ(records[7].key, "w7");
  EXPECT_EQ(records[7].value, "7");
  std::sort(h->out().acked.begin(), h->out().acked.end());
  std::sort(ids.begin(), ids.end());
  EXPECT_EQ(h->out().acked, ids);
}

TEST_F(KafkaBoltTest, NoAckWhileTheBrokerIsDownThenAckedWhenItIsBack) {
  auto h = Bolt({{"value_field", "v"}});
  h->Execute({"v"}, R"(["warm-up"])");
  ASSERT_TRUE(h->RunUntil([&] { return h->out().acked.size() == 1; }));
  ASSERT_FALSE(broker_->SetBrokerDown(1));
  for (int i = 0; i < 10; ++i) h->Execute({"v"}, "[\"x" + std::to_string(i) + "\"]");
  h->RunFor(milliseconds(1500));
  EXPECT_EQ(h->out().acked.size(), 1u) << "not delivered: not acked";
  EXPECT_TRUE(h->out().failed.empty());
  ASSERT_FALSE(broker_->SetBrokerUp(1));
  ASSERT_TRUE(h->RunUntil([&] { return h->out().acked.size() == 11; }, std::chrono::seconds(30)));
  EXPECT_EQ(testing::ReadAll(broker_->bootstrap(), "out", 1).size(), 11u);
}

TEST_F(KafkaBoltTest, DeliveryFailureFailsTheInput) {
  auto h = Bolt({{"value_field", "v"}, {"properties", {{"message.timeout.ms", 500}}}});
  ASSERT_FALSE(broker_->SetBrokerDown(1));
  const auto id = h->Execute({"v"}, R"(["lost?"])");
  ASSERT_TRUE(h->RunUntil([&] { return !h->out().failed.empty(); }));
  EXPECT_EQ(h->out().failed, std::vector<std::string>{id});
  EXPECT_TRUE(h->out().acked.empty());
  EXPECT_TRUE(h->out().HasErrorContaining("delivery to topic `out` failed"));
  ASSERT_FALSE(broker_->SetBrokerUp(1));
}

TEST_F(KafkaBoltTest, WholeTupleAsJsonAndTopicFromAField) {
  ASSERT_FALSE(broker_->CreateTopic("dest", 1));
  auto h = Bolt({{"topic", nullptr}, {"topic_field", "to"}});
  h->Execute({"to", "n", "tags"}, R"(["dest",3,["a","b"]])");
  ASSERT_TRUE(h->RunUntil([&] { return h->out().acked.size() == 1; }));
  const auto records = testing::ReadAll(broker_->bootstrap(), "dest", 1);
  ASSERT_EQ(records.size(), 1u);
  EXPECT_EQ(records[0].value, R"({"to":"dest","n":3,"tags":["a","b"]})");
  EXPECT_FALSE(records[0].key);
}

TEST_F(KafkaBoltTest, MissingFieldFailsTheTupleNamingTheField) {
  auto h = Bolt({{"key_field", "user"}});
  const auto id = h->Execute({"word"}, R"(["x"])");
  EXPECT_EQ(h->out().failed, std::vector<std::string>{id});
  ASSERT_EQ(h->out().errors.size(), 1u);
  EXPECT_EQ(h->out().errors[0],
            "tuple from source:default not written: options.key_field `user` is not a field of "
            "source:default (fields: word); tuple failed");
}

TEST_F(KafkaBoltTest, TopicFieldThatIsNotATopicFailsTheTuple) {
  auto h = Bolt({{"topic", nullptr}, {"topic_field", "to"}});
  const auto id = h->Execute({"to"}, R"([null])");
  EXPECT_EQ(h->out().failed, std::vector<std::string>{id});
  EXPECT_TRUE(h->out().HasErrorContaining("field `to` (options.topic_field) holds null"));
}

TEST_F(KafkaBoltTest, IdempotenceIsOnByDefault) {
  // An idempotent producer asks the broker for a producer id; with idempotence on, records
  // carry it. Checked indirectly: a bad combination that idempotence forbids is refused.
  std::string error;
  auto parsed = ParseBoltOptions(json{{"bootstrap_servers", broker_->bootstrap()},
                                      {"topic", "out"},
                                      {"properties", {{"acks", "1"}}}},
                                 error);
  ASSERT_TRUE(parsed);
  Host h(std::make_unique<KafkaBolt>(*parsed), json::object());
  auto err = h.Open();
  ASSERT_TRUE(err) << "acks=1 conflicts with enable.idempotence=true";
  EXPECT_NE(err->find("idempotence"), std::string::npos) << *err;
}

}  // namespace
}  // namespace sparse::kafka
