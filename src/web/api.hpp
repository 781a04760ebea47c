// The JSON the web view serves, shaped like Storm UI's REST API (`/api/v1/...`): Storm's field
// names where Storm has the number (emitted, transferred, executed, acked, failed,
// completeLatency, processLatency, executeLatency, capacity, lastError, errorLapsedSecs, tasks,
// executors), sparse's own in the same camelCase style (backpressureMs, queueDepth, pending,
// restarts, ...). Unlike Storm, numbers are JSON numbers, never strings. docs/observability.md
// lists every field.
//
// Pure functions of their inputs (the time is passed in), so they are tested without a server.
#pragma once

#include <chrono>
#include <cstdint>
#include <deque>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "runtime/local_cluster.hpp"
#include "web/error_groups.hpp"
#include "web/graph.hpp"
#include "web/history.hpp"

namespace sparse::web {

// What does not change during a run.
struct TopologyInfo {
  std::string id;  // the topology id in URLs (its name)
  std::string name;
  std::string file;             // the YAML file it was loaded from
  std::string log_dir;          // where `<component>.log` files go
  std::int64_t started_ms = 0;  // wall-clock start, ms since the epoch
  TopologyGraph graph;
  nlohmann::json configuration = nlohmann::json::object();  // the effective topology config
};

struct ErrorEntry {
  std::string component;
  int task = 0;
  std::string error;
  std::int64_t time_ms = 0;  // wall clock, ms since the epoch
};

// The errors of the run (component `error` commands and task failures): the most recent ones,
// oldest first, bounded; and all of them grouped (error_groups.hpp).
class ErrorLog {
 public:
  explicit ErrorLog(std::size_t capacity = 100) : capacity_(capacity) {}
  void Add(ErrorEntry entry);
  const std::deque<ErrorEntry>& entries() const { return entries_; }
  const ErrorGroups& groups() const { return groups_; }

 private:
  std::size_t capacity_;
  std::deque<ErrorEntry> entries_;
  ErrorGroups groups_;
};

// Storm UI's topology status for a sparse state: running -> ACTIVE (INACTIVE when deactivated),
// starting -> INACTIVE, rebalancing (a cluster topology's) -> REBALANCING,
// draining/stopping/stopped -> KILLED (Storm's name for a topology being shut down).
std::string StormStatus(const std::string& state, bool active = true);

// One component's stats (already windowed) as a flat object. Every component gets every field;
// Storm's lists only show the ones that apply (spouts: completeLatency; bolts: executed,
// processLatency, executeLatency, capacity).
nlohmann::json ComponentStatsJson(const runtime::ComponentStats& c);
// The whole snapshot in the same key names, as `sparse stats --json` prints it:
// {topology, state, status, active, uptimeSecs, pendingTrees, tasksReady, tasksTotal,
//  backpressure, components: [ComponentStatsJson...]}.
nlohmann::json SnapshotJson(const runtime::ClusterSnapshot& s, const std::string& topology);
// The inverse, for clients (`sparse stats`); latencies come back as their averages.
runtime::ComponentStats ComponentStatsFromJson(const nlohmann::json& j);

// A snapshot made of zeros for every component of the graph: what is served before the
// cluster's first status report.
runtime::ClusterSnapshot EmptySnapshot(const TopologyGraph& graph);

// GET /api/v1/topology/summary: {"topologies": [{id, name, status, ...}]}.
nlohmann::json TopologySummaryJson(const TopologyInfo& info,
                                   const runtime::ClusterSnapshot& latest);

// GET /api/v1/topology/<id>?window=W: topology stats for 10 minutes and all time, `spouts` and
// `bolts` over the requested window, and the recent errors.
nlohmann::json TopologyJson(const TopologyInfo& info, const SnapshotHistory& history,
                            const Window& window, const ErrorLog& errors, std::int64_t now_ms);

// GET /api/v1/topology/<id>/component/<component>?window=W; nullopt for an unknown component.
std::optional<nlohmann::json> ComponentJson(const TopologyInfo& info,
                                            const SnapshotHistory& history, const Window& window,
                                            const ErrorLog& errors, std::int64_t now_ms,
                                            const std::string& component);

// GET /api/v1/topology/<id>/history: the series the charts draw, one point per status report
// kept (at most `max_points`, evenly thinned): {points: [{uptimeSecs, time, emittedPerSec,
// ackedPerSec, executedPerSec, completeLatency, capacity: {bolt: fraction}}]}.
nlohmann::json HistoryJson(const TopologyInfo& info, const SnapshotHistory& history,
                           std::size_t max_points = 300);

// Rebuilds the snapshot a TopologyJson document was made from (its `spouts` and `bolts`, in
// the window it was asked for). Throws nlohmann::json::exception on a document of another shape.
runtime::ClusterSnapshot SnapshotFromTopologyJson(const nlohmann::json& topology);

std::int64_t NowMs();

}  // namespace sparse::web
