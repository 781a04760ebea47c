#include "runtime/metrics.hpp"

namespace sparse::runtime {

void TaskStats::Merge(const TaskStats& o) {
  emitted += o.emitted;
  transferred += o.transferred;
  executed += o.executed;
  acked += o.acked;
  failed += o.failed;
  timed_out += o.timed_out;
  errors += o.errors;
  restarts += o.restarts;
  dropped += o.dropped;
  expired_inputs += o.expired_inputs;
  abandoned += o.abandoned;
  logs += o.logs;
  metrics_received += o.metrics_received;
  queue_depth += o.queue_depth;
  pending += o.pending;
  backpressure_ms += o.backpressure_ms;
  complete_latency.Merge(o.complete_latency);
  process_latency.Merge(o.process_latency);
  execute_latency.Merge(o.execute_latency);
  for (const auto& [k, v] : o.gauges) gauges[k] += v;
}

}  // namespace sparse::runtime
