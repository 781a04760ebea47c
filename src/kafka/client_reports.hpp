// What the Kafka spout and bolt do with their librdkafka clients' events, one way for both:
// client errors are counted (the gauge kafka.client_errors); a fatal one stops the component,
// once; the others, and librdkafka's warnings, go to the user through one ReportThrottle, as do
// the component's own reports. And the gauge kafka.connected: 0 from the start, 1 once a broker
// answered (cmd_run reads it to tell a run whose Kafka was never reachable).
//
// The wording of each event is client_events.hpp's. Runs on the loop thread (librdkafka's
// callbacks are served by polls there).
#pragma once

#include <librdkafka/rdkafka.h>

#include <cstdint>
#include <exception>
#include <string>

#include "kafka/report_throttle.hpp"
#include "runtime/builtin.hpp"

namespace sparse::kafka {

class ClientReports {
 public:
  explicit ClientReports(runtime::BuiltinCollector& out) : out_(out) {}

  // The bootstrap servers, named in the messages about unreachable brokers.
  void set_bootstrap(std::string bootstrap) { bootstrap_ = std::move(bootstrap); }
  // The component is open and no broker answered yet: kafka.connected = 0.
  void Opened();
  // A broker answered: kafka.connected = 1 (the first time).
  void Connected();
  bool connected() const { return connected_; }

  // librdkafka's error callback.
  void ClientError(rd_kafka_t* rk, int err, const char* reason);
  // librdkafka's log callback: warnings and worse are logged (errors also reach ClientError).
  void LibrdkafkaLog(int level, const char* facility, const char* text);
  // A problem of kind `key`: reported unless one of its kind was reported just before.
  void Report(const std::string& key, const std::string& message);
  // The component cannot go on (BuiltinCollector::Fatal).
  void Fatal(const std::string& message);
  // Runs `body`, a librdkafka callback's work (or a destructor's), where no exception may leave:
  // librdkafka's C frames cannot unwind, so one would end the whole runtime (std::terminate).
  // An exception becomes a fatal error of this component alone, naming `where`; should even that
  // report throw (no memory left), the component still stops (fatal()) and stderr says why.
  template <class Body>
  void Guarded(const char* where, Body&& body) noexcept {
    try {
      body();
    } catch (const std::exception& e) {
      Escaped(where, e.what());
    } catch (...) {
      Escaped(where, "an exception that is not a std::exception");
    }
  }
  bool fatal() const { return fatal_; }
  std::uint64_t client_errors() const { return client_errors_; }

 private:
  void Escaped(const char* where, const char* what) noexcept;

  runtime::BuiltinCollector& out_;
  std::string bootstrap_;
  ReportThrottle throttle_;
  bool connected_ = false;
  bool fatal_ = false;
  std::uint64_t client_errors_ = 0;
};

}  // namespace sparse::kafka
