// What the Kafka spout and bolt do with their clients' events (kafka/client_reports.hpp).
#include "kafka/client_reports.hpp"

#include <gtest/gtest.h>

#include <map>
#include <new>
#include <stdexcept>
#include <vector>

#include "kafka/rdkafka_handles.hpp"

namespace sparse::kafka {
namespace {

// Records what ClientReports tells the runtime; nothing else is used.
class ReportsCollector final : public runtime::BuiltinCollector {
 public:
  std::vector<std::string> errors, logs, fatal;
  std::vector<int> log_levels;
  std::map<std::string, std::vector<double>> gauges;

  const std::vector<int>& Emit(const std::string&, std::string, const std::string&,
                               const std::vector<std::string>&, std::optional<int>) override {
    return none_;
  }
  std::shared_ptr<const runtime::EmittedTuple> Prepare(const std::string&, std::string) override {
    return nullptr;
  }
  const std::vector<int>& EmitPrepared(std::shared_ptr<const runtime::EmittedTuple>,
                                       const std::string&) override {
    return none_;
  }
  void Ack(const std::string&) override {}
  void Fail(const std::string&) override {}
  void Log(int level, const std::string& msg) override {
    log_levels.push_back(level);
    logs.push_back(msg);
  }
  void ReportError(const std::string& msg) override { errors.push_back(msg); }
  void SetGauge(const std::string& name, double value) override { gauges[name].push_back(value); }
  void Wakeup() override {}
  void Fatal(const std::string& reason) override {
    if (fatal_throws) throw std::bad_alloc();
    fatal.push_back(reason);
  }
  bool fatal_throws = false;

 private:
  std::vector<int> none_;
};

TEST(ClientReports, ConnectedGoesFromZeroToOneOnce) {
  ReportsCollector out;
  ClientReports r(out);
  r.Opened();
  EXPECT_FALSE(r.connected());
  r.Connected();
  r.Connected();
  EXPECT_TRUE(r.connected());
  EXPECT_EQ(out.gauges["kafka.connected"], (std::vector<double>{0, 1}));
}

TEST(ClientReports, ClientErrorsAreCountedAndRepeatsThrottled) {
  ReportsCollector out;
  ClientReports r(out);
  r.set_bootstrap("broker:9092");
  r.ClientError(nullptr, RD_KAFKA_RESP_ERR__ALL_BROKERS_DOWN, "1/1 brokers are down");
  r.ClientError(nullptr, RD_KAFKA_RESP_ERR__ALL_BROKERS_DOWN, "1/1 brokers are down");
  EXPECT_EQ(r.client_errors(), 2u) << "every occurrence counts";
  ASSERT_EQ(out.errors.size(), 1u) << "the repeat is held back";
  EXPECT_NE(out.errors[0].find("broker:9092"), std::string::npos) << out.errors[0];
  EXPECT_FALSE(r.fatal());
  EXPECT_TRUE(out.fatal.empty());
}

TEST(ClientReports, AFatalClientErrorStopsTheComponentOnce) {
  ReportsCollector out;
  ClientReports r(out);
  ConfPtr conf(rd_kafka_conf_new());
  ASSERT_FALSE(SetProperty(conf.get(), "log_level", "0"));  // no broker: keep its warning quiet
  std::string error;
  ClientPtr client = NewClient(RD_KAFKA_PRODUCER, std::move(conf), error);
  ASSERT_TRUE(client) << error;
  r.ClientError(client.get(), RD_KAFKA_RESP_ERR__FATAL, "fenced");
  EXPECT_TRUE(r.fatal());
  ASSERT_EQ(out.fatal.size(), 1u);
  r.ClientError(client.get(), RD_KAFKA_RESP_ERR__FATAL, "fenced");
  EXPECT_EQ(out.fatal.size(), 1u) << "once stopped, a fatal error is only reported";
  EXPECT_EQ(out.errors.size(), 1u);
  EXPECT_EQ(r.client_errors(), 2u);
}

TEST(ClientReports, TheComponentsOwnFatalAlwaysStopsIt) {
  ReportsCollector out;
  ClientReports r(out);
  r.Fatal("cannot go back");
  EXPECT_TRUE(r.fatal());
  EXPECT_EQ(out.fatal, (std::vector<std::string>{"cannot go back"}));
}

TEST(ClientReports, OnlyLibrdkafkasWarningsAndWorseAreLogged) {
  ReportsCollector out;
  ClientReports r(out);
  r.LibrdkafkaLog(7, "FETCH", "debug chatter");
  r.LibrdkafkaLog(6, "CONF", "info");
  r.LibrdkafkaLog(4, "COMMITFAIL", "offset commit failed");
  r.LibrdkafkaLog(4, "COMMITFAIL", "offset commit failed again");
  ASSERT_EQ(out.logs.size(), 1u) << "repeats of a facility are held back";
  EXPECT_EQ(out.logs[0], "librdkafka COMMITFAIL: offset commit failed");
  EXPECT_EQ(out.log_levels[0], 3) << "syslog warning is the runtime's warn";
}

// librdkafka's callbacks run inside C frames that an exception cannot cross: Guarded turns one
// into a fatal error of the component, naming where it came from, instead of std::terminate.
TEST(ClientReports, AnExceptionInACallbackStopsTheComponentNotTheRuntime) {
  ReportsCollector out;
  ClientReports r(out);
  bool ran = false;
  r.Guarded("the test callback", [&] { ran = true; });
  EXPECT_TRUE(ran);
  EXPECT_FALSE(r.fatal());
  EXPECT_TRUE(out.fatal.empty());

  r.Guarded("the rebalance callback", [] { throw std::runtime_error("no such partition"); });
  EXPECT_TRUE(r.fatal());
  ASSERT_EQ(out.fatal.size(), 1u);
  EXPECT_EQ(out.fatal[0], "the rebalance callback threw: no such partition");

  r.Guarded("the log callback", [] { throw 42; });
  ASSERT_EQ(out.fatal.size(), 2u);
  EXPECT_EQ(out.fatal[1], "the log callback threw: an exception that is not a std::exception");
}

TEST(ClientReports, AReportThatThrowsTooStillStopsTheComponent) {
  ReportsCollector out;
  out.fatal_throws = true;
  ClientReports r(out);
  // Would end the test binary (std::terminate) if the second exception escaped.
  r.Guarded("the delivery report callback", [] { throw std::bad_alloc(); });
  EXPECT_TRUE(r.fatal());
}

}  // namespace
}  // namespace sparse::kafka
