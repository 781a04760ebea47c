#include "kafka/embedded_broker.hpp"

#include <vector>

namespace sparse::kafka {

std::unique_ptr<EmbeddedBroker> EmbeddedBroker::Start(int brokers, std::string& error) {
  if (brokers < 1) {
    error = "an embedded cluster needs at least one broker";
    return nullptr;
  }
  std::unique_ptr<EmbeddedBroker> b(new EmbeddedBroker());
  ConfPtr conf(rd_kafka_conf_new());
  // The owning client only hosts the cluster; keep it quiet.
  SetProperty(conf.get(), "log_level", "0");
  b->owner_ = NewClient(RD_KAFKA_PRODUCER, std::move(conf), error);
  if (!b->owner_) return nullptr;
  b->cluster_.reset(rd_kafka_mock_cluster_new(b->owner_.get(), brokers));
  if (!b->cluster_) {
    error = "cannot start the embedded Kafka cluster (no free loopback port?)";
    return nullptr;
  }
  b->bootstrap_ = rd_kafka_mock_cluster_bootstraps(b->cluster_.get());
  b->brokers_ = brokers;
  return b;
}

EmbeddedBroker::~EmbeddedBroker() {
  cluster_.reset();
  owner_.reset();
}

std::optional<std::string> EmbeddedBroker::CreateTopic(const std::string& name, int partitions,
                                                       int replication) {
  const auto err =
      rd_kafka_mock_topic_create(cluster_.get(), name.c_str(), partitions, replication);
  if (err) return "cannot create topic `" + name + "`: " + rd_kafka_err2str(err);
  return std::nullopt;
}

std::optional<std::string> EmbeddedBroker::SetBrokerDown(int broker_id) {
  if (const auto err = rd_kafka_mock_broker_set_down(cluster_.get(), broker_id)) {
    return "cannot take broker " + std::to_string(broker_id) + " down: " + rd_kafka_err2str(err);
  }
  return std::nullopt;
}

std::optional<std::string> EmbeddedBroker::SetBrokerUp(int broker_id) {
  if (const auto err = rd_kafka_mock_broker_set_up(cluster_.get(), broker_id)) {
    return "cannot bring broker " + std::to_string(broker_id) + " up: " + rd_kafka_err2str(err);
  }
  return std::nullopt;
}

void EmbeddedBroker::FailNextRequests(int16_t api_key, int count, rd_kafka_resp_err_t err) {
  std::vector<rd_kafka_resp_err_t> errors(static_cast<std::size_t>(count), err);
  rd_kafka_mock_push_request_errors_array(cluster_.get(), api_key, errors.size(), errors.data());
}

}  // namespace sparse::kafka
