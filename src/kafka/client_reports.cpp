#include "kafka/client_reports.hpp"

#include <cstdio>

#include "kafka/client_events.hpp"

namespace sparse::kafka {

void ClientReports::Opened() {
  out_.SetGauge("kafka.connected", 0);
}

void ClientReports::Connected() {
  if (connected_) return;
  connected_ = true;
  out_.SetGauge("kafka.connected", 1);
}

void ClientReports::ClientError(rd_kafka_t* rk, int err, const char* reason) {
  ++client_errors_;
  const kafka::ClientError e = DescribeClientError(rk, err, reason, bootstrap_);
  if (e.fatal && !fatal_) {
    Fatal(e.message);
    return;
  }
  Report(e.key, e.message);
}

void ClientReports::LibrdkafkaLog(int level, const char* facility, const char* text) {
  if (level > 4) return;
  if (auto admitted = throttle_.Admit(std::string("log:") + facility,
                                      std::string("librdkafka ") + facility + ": " + text)) {
    out_.Log(RuntimeLogLevel(level), *admitted);
  }
}

void ClientReports::Report(const std::string& key, const std::string& message) {
  if (auto text = throttle_.Admit(key, message)) out_.ReportError(*text);
}

void ClientReports::Fatal(const std::string& message) {
  fatal_ = true;
  out_.Fatal(message);
}

void ClientReports::Escaped(const char* where, const char* what) noexcept {
  fatal_ = true;
  try {
    out_.Fatal(std::string(where) + " threw: " + what);
  } catch (...) {
    std::fputs("sparse: a Kafka component stops: its ", stderr);
    std::fputs(where, stderr);
    std::fputs(" threw, and reporting it failed too\n", stderr);
  }
}

}  // namespace sparse::kafka
