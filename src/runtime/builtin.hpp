// Components that run inside the runtime instead of as child processes.
//
// The runtime ships a few of Storm's test components that Flux examples reference by Java class
// name (TestWordSpout, TestWordCounter, LogInfoBolt), so those files run unchanged; other
// subsystems (Kafka) add theirs to the registry the program builds at start-up
// (builtin_registry.hpp). The runtime knows them only through this interface and that registry.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "runtime/topology.hpp"
#include "runtime/topology_loader.hpp"
#include "runtime/tuple.hpp"

namespace boost::asio {
class io_context;
}

namespace sparse::runtime {

// A tuple handed to a built-in bolt. `id` is what Ack/Fail take.
struct BuiltinTuple {
  std::string id;
  const EmittedTuple* tuple = nullptr;  // null for ticks
  std::string_view component;
  std::string_view stream;
  bool tick = false;
  // The declared fields of `stream` of `component` (null for ticks), so a bolt can find a value
  // by field name.
  const std::vector<std::string>* fields = nullptr;
  // The tuple trees it belongs to (null or empty: an unanchored tuple, or a tick), for
  // components that must know which spout record a tuple came from (exactly-once sinks).
  const RootEdges* roots = nullptr;
};

// Where a pending tuple tree started: its spout task and the message id that spout gave it
// (a view into the acker's record, valid during the current call only: sinks ask for every
// input, so nothing is copied).
struct TreeOrigin {
  int spout_task = 0;
  std::string_view message_id;
};

// What a built-in component may do; implemented by the task that hosts it. Same semantics as the
// multilang commands of a shell component.
class BuiltinCollector {
 public:
  virtual ~BuiltinCollector() = default;
  // Emits `values_json` (a JSON array text). Spouts pass a message id (JSON text, empty =
  // unreliable); bolts pass anchors (ids of input tuples). Returns the receiving task ids, valid
  // until the next Emit (a reference, so the hot path allocates no list nobody reads).
  virtual const std::vector<int>& Emit(const std::string& stream, std::string values_json,
                                       const std::string& message_id_json,
                                       const std::vector<std::string>& anchors,
                                       std::optional<int> direct_task) = 0;
  // For a spout that keeps what it emitted, to emit it again on a retry (Kafka): Prepare checks
  // and splits the values once, as Emit does (an undeclared stream, or values that are not a
  // valid JSON array nested at most kMaxTupleDepth levels, are reported and give nullptr);
  // EmitPrepared emits the result, shared with the receivers instead of copied.
  virtual std::shared_ptr<const EmittedTuple> Prepare(const std::string& stream,
                                                      std::string values_json) = 0;
  virtual const std::vector<int>& EmitPrepared(std::shared_ptr<const EmittedTuple> tuple,
                                               const std::string& message_id_json) = 0;
  // Prepare for values made by a producer that already validated them by ValidateTuple's rules
  // and knows their spans (kafka::RecordEncoder, whose guarantee its tests and fuzz target
  // check): the runtime does not scan them a second time. Only for such producers; anything
  // else goes through Prepare. The default validates, as Prepare does.
  virtual std::shared_ptr<const EmittedTuple> PrepareEncoded(const std::string& stream,
                                                             std::string values_json,
                                                             const ValueSpans& /*spans*/) {
    return Prepare(stream, std::move(values_json));
  }
  virtual void Ack(const std::string& tuple_id) = 0;
  virtual void Fail(const std::string& tuple_id) = 0;
  virtual void Log(int level, const std::string& msg) = 0;
  virtual void ReportError(const std::string& msg) = 0;
  // Metrics that show up next to the component's stats (name -> value).
  virtual void SetGauge(const std::string& name, double value) = 0;
  // Spouts: ask for NextTuple again soon even if nothing was emitted (e.g. data arrived).
  virtual void Wakeup() = 0;
  // The component cannot go on (e.g. its client hit an unrecoverable error). The task is handled
  // like a crashed child: its in-flight inputs are failed, it is closed, and the supervisor opens
  // it again with backoff (Open on the same object), or stops the topology on a crash loop or
  // before the topology has started. Takes effect after the current call returns.
  virtual void Fatal(const std::string& reason) = 0;
  // The origin of a tree that is still pending; nullopt once it completed, failed or timed out.
  virtual std::optional<TreeOrigin> OriginOf(std::uint64_t /*root*/) const { return std::nullopt; }
};

class BuiltinComponent {
 public:
  virtual ~BuiltinComponent() = default;
  // Called once before any tuple; `conf` is the effective config. Returns an error to refuse.
  virtual std::optional<std::string> Open(const nlohmann::json& conf, int task_id, int task_index,
                                          int num_tasks, BuiltinCollector& collector,
                                          boost::asio::io_context& io) = 0;
  // Spouts.
  virtual void NextTuple() {}
  virtual void Ack(const std::string& /*message_id_json*/) {}
  virtual void Fail(const std::string& /*message_id_json*/) {}
  virtual void Activate() {}
  virtual void Deactivate() {}
  // Backpressure on the spout started (true) or ended (false): NextTuple is not called meanwhile,
  // so a spout that buffers or prefetches (Kafka) should pause its sources.
  virtual void Backpressure(bool /*throttled*/) {}
  // Bolts.
  virtual void Execute(const BuiltinTuple& /*tuple*/) {}
  virtual void Close() {}
};

struct BuiltinInfo {
  std::string name;  // as written in sparse YAML: `builtin: NAME`
  ComponentKind kind;
  std::vector<std::string> flux_classes;  // Java class names that map to it in Flux files
  // Streams it declares given its options; an error string when the options are invalid.
  std::function<std::vector<StreamDef>(const nlohmann::json& options, std::string& error)>
      declare_streams;
  std::function<std::unique_ptr<BuiltinComponent>(const nlohmann::json& options)> create;
  // Optional: rules across the components of a topology that uses this built-in (Kafka's
  // exactly-once needs every spout to take part, and warns about sinks that cannot). Called
  // once per topology by validation; adds to `errors` (the run refuses to start) and
  // `warnings` (printed, the run goes on).
  std::function<void(const Topology&, std::vector<Diagnostic>& errors,
                     std::vector<Diagnostic>& warnings)>
      check_topology;
  // Optional: what a Storm cluster offers instead, for `sparse submit`'s refusal of this
  // built-in (it runs inside sparse's runtime, so a Storm worker cannot start it). Empty: the
  // refusal says to replace it with a shell component.
  std::string on_storm = {};
};

}  // namespace sparse::runtime
