// Per-task counters, kept by the task on the event loop, aggregated per component on demand.
// Every tuple that is dropped, failed, timed out or replayed is counted somewhere here.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace sparse::runtime {

struct LatencyStat {
  std::uint64_t count = 0;
  double total_ms = 0;
  void Add(double ms) {
    ++count;
    total_ms += ms;
  }
  double Average() const { return count ? total_ms / static_cast<double>(count) : 0.0; }
  void Merge(const LatencyStat& o) {
    count += o.count;
    total_ms += o.total_ms;
  }
};

struct TaskStats {
  std::uint64_t emitted = 0;      // emits by the component (all streams)
  std::uint64_t transferred = 0;  // deliveries to receiving tasks
  std::uint64_t executed = 0;     // bolt: inputs finished (acked or failed by the component)
  std::uint64_t acked = 0;        // bolt: acks sent; spout: trees completed
  std::uint64_t failed = 0;       // bolt: fails sent; spout: trees failed (incl. timeouts)
  std::uint64_t timed_out = 0;    // spout: trees that hit topology.message.timeout.secs
  std::uint64_t errors = 0;       // `error` commands and protocol violations
  std::uint64_t restarts = 0;
  std::uint64_t dropped = 0;         // tuples that could not be delivered (counted, reported)
  std::uint64_t expired_inputs = 0;  // bolt: un-acked inputs forgotten after the timeout
  std::uint64_t abandoned = 0;       // spout: trees lost because the spout task itself died
  std::uint64_t logs = 0;
  std::uint64_t metrics_received = 0;
  std::uint64_t queue_depth = 0;         // current, bolt: waiting in the runtime + in flight
  std::uint64_t pending = 0;             // current, spout: un-acked trees; bolt: inputs in flight
  std::uint64_t backpressure_ms = 0;     // spout: time throttled by backpressure
  LatencyStat complete_latency;          // spout: emit -> tree acked
  LatencyStat process_latency;           // bolt: arrival in the runtime -> ack
  LatencyStat execute_latency;           // bolt: written to the child -> ack
  std::map<std::string, double> gauges;  // from built-in components and `metrics` commands

  void Merge(const TaskStats& o);
};

// What one task shows on its own (Storm UI's executor rows).
struct TaskRow {
  int task = 0;
  TaskStats stats;
  double capacity = 0;  // bolts: busy fraction over the last status interval
  bool ready = false;
  int pid = -1;  // of its process; -1 for built-in components
};

// Emits on one output stream of a component, all its tasks together (Storm UI's output stats).
struct StreamStats {
  std::string stream;
  std::uint64_t emitted = 0;
  std::uint64_t transferred = 0;
};

struct ComponentStats {
  std::string id;
  bool spout = false;
  int tasks = 0;
  TaskStats totals;
  std::vector<TaskRow> per_task;        // by task id
  std::vector<StreamStats> per_stream;  // in the order the component declares its streams
  std::string last_error;
  double last_error_age_secs = -1;
  double capacity = 0;  // bolts: busy fraction of the busiest task over the last interval
};

}  // namespace sparse::runtime
