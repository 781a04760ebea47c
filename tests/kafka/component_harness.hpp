// Hosts one Kafka built-in in the test process the way the runtime does (its own event loop,
// NextTuple while active, acks by message id), with a recording collector in place of the
// runtime, so a test decides exactly which tuples are acked or failed.
#pragma once

#include <boost/asio/io_context.hpp>
#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "runtime/builtin.hpp"
#include "runtime/tuple.hpp"

namespace sparse::kafka::testing {

class RecordingCollector : public runtime::BuiltinCollector {
 public:
  struct Emitted {
    std::string stream;
    nlohmann::json values;
    std::string message_id;
  };
  std::vector<Emitted> emits;
  std::vector<std::string> acked;   // bolt: tuple ids acked
  std::vector<std::string> failed;  // bolt: tuple ids failed
  std::vector<std::string> errors;
  std::vector<std::string> logs;
  std::vector<std::string> fatal;
  std::map<std::string, double> gauges;

  const std::vector<int>& Emit(const std::string& stream, std::string values_json,
                               const std::string& message_id_json, const std::vector<std::string>&,
                               std::optional<int>) override {
    emits.push_back({stream, nlohmann::json::parse(values_json), message_id_json});
    return targets;
  }
  // Prepared tuples are checked as the runtime checks them (runtime::ValidateTuple).
  std::shared_ptr<const runtime::EmittedTuple> Prepare(const std::string& stream,
                                                       std::string values_json) override;
  const std::vector<int>& EmitPrepared(std::shared_ptr<const runtime::EmittedTuple> tuple,
                                       const std::string& message_id_json) override {
    emits.push_back(
        {streams.at(tuple->stream), nlohmann::json::parse(tuple->values_json), message_id_json});
    return targets;
  }
  std::vector<std::string> streams;  // by index, as prepared
  std::vector<int> targets = {1};
  void Ack(const std::string& id) override { acked.push_back(id); }
  void Fail(const std::string& id) override { failed.push_back(id); }
  void Log(int, const std::string& msg) override { logs.push_back(msg); }
  void ReportError(const std::string& msg) override { errors.push_back(msg); }
  void SetGauge(const std::string& name, double value) override { gauges[name] = value; }
  void Wakeup() override {}
  void Fatal(const std::string& reason) override { fatal.push_back(reason); }

  double Gauge(const std::string& name) const {
    auto it = gauges.find(name);
    return it == gauges.end() ? -1 : it->second;
  }
  bool HasErrorContaining(const std::string& text) const;
};

// A spout or bolt with its loop. Run* turn the loop (and call NextTuple on an active spout).
class Host {
 public:
  Host(std::unique_ptr<runtime::BuiltinComponent> component, nlohmann::json conf,
       int task_index = 0, int num_tasks = 1);
  ~Host();

  // Opens the component; returns its error, if any.
  std::optional<std::string> Open();
  void Activate();
  void Deactivate();
  void Close();

  // Runs until `done` holds or `timeout`; returns whether it held.
  bool RunUntil(const std::function<bool()>& done,
                std::chrono::milliseconds timeout = std::chrono::seconds(20));
  void RunFor(std::chrono::milliseconds d);

  runtime::BuiltinComponent& component() { return *component_; }
  RecordingCollector& out() { return out_; }

  // Spout helpers: ack or fail the tuple emitted for `offset` of `partition` (latest emit).
  void AckOffset(int partition, std::int64_t offset);
  void FailOffset(int partition, std::int64_t offset);
  // Emits of the record at (partition, offset) so far.
  int TimesEmitted(int partition, std::int64_t offset) const;

  // Bolt helper: delivers a tuple with the given fields and JSON values; returns its id.
  std::string Execute(const std::vector<std::string>& fields, const std::string& values_json);

 private:
  const RecordingCollector::Emitted* Find(int partition, std::int64_t offset) const;
  void Turn();

  boost::asio::io_context io_;
  std::unique_ptr<runtime::BuiltinComponent> component_;
  nlohmann::json conf_;
  int task_index_;
  int num_tasks_;
  RecordingCollector out_;
  bool active_ = false;
  bool open_ = false;
  int next_tuple_id_ = 1;
  // Bolt inputs must outlive Execute (the bolt may keep views until delivery).
  std::vector<std::unique_ptr<runtime::EmittedTuple>> tuples_;
  std::map<std::vector<std::string>, std::unique_ptr<std::vector<std::string>>> field_lists_;
};

// Spout emits use the default fields [topic, partition, offset, key, value] unless a test says.
std::int64_t OffsetOf(const RecordingCollector::Emitted& e);
int PartitionOf(const RecordingCollector::Emitted& e);

}  // namespace sparse::kafka::testing
