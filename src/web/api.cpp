#include "web/api.hpp"

#include <cmath>

namespace sparse::web {

namespace {

using nlohmann::json;

std::string UptimeText(double secs) {
  return Window{std::max(0.0, secs)}.Pretty();
}

json ErrorJson(const ErrorEntry& e, std::int64_t now_ms) {
  return {{"component", e.component},
          {"task", e.task},
          {"error", e.error},
          {"time", e.time_ms},
          {"errorLapsedSecs", std::max<std::int64_t>(0, (now_ms - e.time_ms) / 1000)}};
}

json ErrorGroupJson(const ErrorGroup& g, std::int64_t now_ms) {
  return {{"component", g.component},
          {"firstLine", g.first_line},
          {"error", g.last_text},
          {"count", g.count},
          {"tasks", g.tasks},
          {"firstTime", g.first_ms},
          {"lastTime", g.last_ms},
          {"errorLapsedSecs", std::max<std::int64_t>(0, (now_ms - g.last_ms) / 1000)}};
}

// Most recently seen first, at most `limit`, optionally of one component.
json ErrorGroupsJson(const ErrorLog& errors, std::int64_t now_ms, std::size_t limit,
                     const std::string* component = nullptr) {
  json out = json::array();
  for (const auto& g : errors.groups().groups()) {
    if (out.size() >= limit) break;
    if (component && g.component != *component) continue;
    out.push_back(ErrorGroupJson(g, now_ms));
  }
  return out;
}

// Newest first, at most `limit`, optionally of one component.
json ErrorsJson(const ErrorLog& errors, std::int64_t now_ms, std::size_t limit,
                const std::string* component = nullptr) {
  json out = json::array();
  const auto& all = errors.entries();
  for (auto it = all.rbegin(); it != all.rend() && out.size() < limit; ++it) {
    if (component && it->component != *component) continue;
    out.push_back(ErrorJson(*it, now_ms));
  }
  return out;
}

// Topology-wide numbers for one window, as in Storm UI's `topologyStats`: emitted and
// transferred over every component, acked/failed/completeLatency of the spouts.
json TopologyStatsJson(const WindowStats& w, const Window& window) {
  std::uint64_t emitted = 0, transferred = 0, acked = 0, failed = 0, executed = 0, timed_out = 0,
                errors = 0, restarts = 0, backpressure_ms = 0;
  runtime::LatencyStat complete;
  for (const auto& c : w.stats.components) {
    const auto& t = c.totals;
    emitted += t.emitted;
    transferred += t.transferred;
    errors += t.errors;
    restarts += t.restarts;
    if (c.spout) {
      acked += t.acked;
      failed += t.failed;
      timed_out += t.timed_out;
      backpressure_ms += t.backpressure_ms;
      complete.Merge(t.complete_latency);
    } else {
      executed += t.executed;
    }
  }
  return {{"window", window.Name()},
          {"windowPretty", window.Pretty()},
          {"coveredSecs", w.covered_secs},
          {"emitted", emitted},
          {"transferred", transferred},
          {"acked", acked},
          {"failed", failed},
          {"completeLatency", complete.Average()},
          {"executed", executed},
          {"timedOut", timed_out},
          {"errors", errors},
          {"restarts", restarts},
          {"backpressureMs", backpressure_ms}};
}

constexpr double kThroughputSecs = 10;

// Tuples per second over the last few seconds: emitted by every component, trees acked by the
// spouts, inputs executed by the bolts.
json ThroughputJson(const WindowStats& w) {
  double emitted = 0, acked = 0, executed = 0;
  for (const auto& c : w.stats.components) {
    emitted += static_cast<double>(c.totals.emitted);
    (c.spout ? acked : executed) +=
        static_cast<double>(c.spout ? c.totals.acked : c.totals.executed);
  }
  const double secs = w.covered_secs;
  auto per_sec = [&](double n) { return secs > 0 ? n / secs : 0.0; };
  return {{"window", Window{kThroughputSecs}.Name()},
          {"coveredSecs", secs},
          {"emittedPerSec", per_sec(emitted)},
          {"ackedPerSec", per_sec(acked)},
          {"executedPerSec", per_sec(executed)}};
}

const GraphNode* FindNode(const TopologyGraph& g, const std::string& id) {
  for (const auto& n : g.nodes) {
    if (n.id == id) return &n;
  }
  return nullptr;
}

json EdgeEnd(const GraphEdge& e, const std::string& component) {
  return {{"component", component},
          {"stream", e.stream},
          {"grouping", e.grouping},
          {"groupingFields", e.grouping_fields},
          {"fields", e.stream_fields}};
}

}  // namespace

std::int64_t NowMs() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

void ErrorLog::Add(ErrorEntry entry) {
  groups_.Add(entry.component, entry.task, entry.error, entry.time_ms);
  entries_.push_back(std::move(entry));
  while (entries_.size() > capacity_) entries_.pop_front();
}

std::string StormStatus(const std::string& state, bool active) {
  if (state == "running") return active ? "ACTIVE" : "INACTIVE";
  if (state == "starting") return "INACTIVE";
  if (state == "rebalancing") return "REBALANCING";  // a Storm cluster topology (sparse stats -e)
  return "KILLED";
}

namespace {

// The numbers of one task or a whole component, in the API's key names.
json TaskStatsJson(const runtime::TaskStats& t) {
  return {{"emitted", t.emitted},
          {"transferred", t.transferred},
          {"executed", t.executed},
          {"acked", t.acked},
          {"failed", t.failed},
          {"timedOut", t.timed_out},
          {"completeLatency", t.complete_latency.Average()},
          {"processLatency", t.process_latency.Average()},
          {"executeLatency", t.execute_latency.Average()},
          {"errors", t.errors},
          {"restarts", t.restarts},
          {"dropped", t.dropped},
          {"expiredInputs", t.expired_inputs},
          {"abandoned", t.abandoned},
          {"logs", t.logs},
          {"metricsReceived", t.metrics_received},
          {"queueDepth", t.queue_depth},
          {"pending", t.pending},
          {"backpressureMs", t.backpressure_ms},
          {"gauges", t.gauges}};
}

// Storm UI's executorStats: one row per task (sparse runs an executor per task).
json ExecutorStatsJson(const runtime::ComponentStats& c) {
  json rows = json::array();
  for (const auto& r : c.per_task) {
    json j = TaskStatsJson(r.stats);
    const std::string range = "[" + std::to_string(r.task) + "-" + std::to_string(r.task) + "]";
    j["id"] = range;
    j["encodedId"] = range;
    j["task"] = r.task;
    j["capacity"] = r.capacity;
    j["ready"] = r.ready;
    j["pid"] = r.pid;
    rows.push_back(std::move(j));
  }
  return rows;
}

// Storm UI's outputStats: emits per declared stream, all tasks together.
json OutputStatsJson(const runtime::ComponentStats& c) {
  json rows = json::array();
  for (const auto& s : c.per_stream) {
    rows.push_back({{"stream", s.stream}, {"emitted", s.emitted}, {"transferred", s.transferred}});
  }
  return rows;
}

}  // namespace

json ComponentStatsJson(const runtime::ComponentStats& c) {
  json j = TaskStatsJson(c.totals);
  j.update(json{{"id", c.id},
                {"type", c.spout ? "spout" : "bolt"},
                {c.spout ? "spoutId" : "boltId", c.id},
                {c.spout ? "encodedSpoutId" : "encodedBoltId", c.id},
                {"tasks", c.tasks},
                {"executors", c.tasks},
                {"capacity", c.capacity},
                {"lastError", c.last_error}});
  if (c.last_error_age_secs >= 0) {
    // Storm UI gives whole seconds.
    j["errorLapsedSecs"] = static_cast<std::int64_t>(c.last_error_age_secs);
    j["errorAgeSecs"] = c.last_error_age_secs;
  } else {
    j["errorLapsedSecs"] = nullptr;
    j["errorAgeSecs"] = nullptr;
  }
  return j;
}

runtime::ComponentStats ComponentStatsFromJson(const json& j) {
  runtime::ComponentStats c;
  c.id = j.at("id").get<std::string>();
  c.spout = j.at("type").get<std::string>() == "spout";
  c.tasks = j.at("tasks").get<int>();
  auto& t = c.totals;
  t.emitted = j.at("emitted").get<std::uint64_t>();
  t.transferred = j.at("transferred").get<std::uint64_t>();
  t.executed = j.at("executed").get<std::uint64_t>();
  t.acked = j.at("acked").get<std::uint64_t>();
  t.failed = j.at("failed").get<std::uint64_t>();
  t.timed_out = j.at("timedOut").get<std::uint64_t>();
  t.errors = j.at("errors").get<std::uint64_t>();
  t.restarts = j.at("restarts").get<std::uint64_t>();
  t.dropped = j.at("dropped").get<std::uint64_t>();
  t.expired_inputs = j.at("expiredInputs").get<std::uint64_t>();
  t.abandoned = j.at("abandoned").get<std::uint64_t>();
  t.logs = j.at("logs").get<std::uint64_t>();
  t.metrics_received = j.at("metricsReceived").get<std::uint64_t>();
  t.queue_depth = j.at("queueDepth").get<std::uint64_t>();
  t.pending = j.at("pending").get<std::uint64_t>();
  t.backpressure_ms = j.at("backpressureMs").get<std::uint64_t>();
  auto latency = [&](const char* key) {
    runtime::LatencyStat l;
    const double avg = j.at(key).get<double>();
    if (avg > 0) l.Add(avg);
    return l;
  };
  t.complete_latency = latency("completeLatency");
  t.process_latency = latency("processLatency");
  t.execute_latency = latency("executeLatency");
  t.gauges = j.at("gauges").get<std::map<std::string, double>>();
  c.capacity = j.at("capacity").get<double>();
  c.last_error = j.at("lastError").get<std::string>();
  const auto& age = j.at("errorAgeSecs");
  c.last_error_age_secs = age.is_null() ? -1 : age.get<double>();
  return c;
}

runtime::ClusterSnapshot EmptySnapshot(const TopologyGraph& graph) {
  runtime::ClusterSnapshot s;
  s.state = "starting";
  for (const auto& n : graph.nodes) {
    runtime::ComponentStats c;
    c.id = n.id;
    c.spout = n.spout;
    c.tasks = n.parallelism;
    s.tasks_total += n.parallelism;
    s.components.push_back(std::move(c));
  }
  std::sort(s.components.begin(), s.components.end(),
            [](const auto& a, const auto& b) { return a.id < b.id; });
  return s;
}

json TopologySummaryJson(const TopologyInfo& info, const runtime::ClusterSnapshot& latest) {
  json t{{"id", info.id},
         {"encodedId", info.id},
         {"name", info.name},
         {"status", StormStatus(latest.state, latest.active)},
         {"state", latest.state},
         {"active", latest.active},
         {"uptime", UptimeText(latest.uptime_secs)},
         {"uptimeSeconds", static_cast<std::int64_t>(latest.uptime_secs)},
         {"uptimeSecs", latest.uptime_secs},
         {"tasksTotal", latest.tasks_total},
         {"tasksReady", latest.tasks_ready},
         {"executorsTotal", latest.tasks_total},
         {"workersTotal", 1},
         {"pendingTrees", latest.pending_trees},
         {"backpressure", latest.backpressure},
         {"file", info.file},
         {"logDir", info.log_dir},
         {"startedMs", info.started_ms}};
  return {{"topologies", json::array({std::move(t)})}};
}

json TopologyJson(const TopologyInfo& info, const SnapshotHistory& history, const Window& window,
                  const ErrorLog& errors, std::int64_t now_ms) {
  SnapshotHistory fallback;
  const SnapshotHistory& h = history.empty() ? fallback : history;
  if (history.empty()) fallback.Add(EmptySnapshot(info.graph));
  const auto& latest = h.latest();

  json j = TopologySummaryJson(info, latest)["topologies"][0];
  const Window ten_minutes{kTenMinutes};
  const Window all_time{};
  j["topologyStats"] = json::array({TopologyStatsJson(h.Stats(ten_minutes), ten_minutes),
                                    TopologyStatsJson(h.Stats(all_time), all_time)});
  const WindowStats w = h.Stats(window);
  j["window"] = window.Name();
  j["windowHint"] = window.Pretty();
  j["windowCoveredSecs"] = w.covered_secs;
  json spouts = json::array(), bolts = json::array();
  for (const auto& c : w.stats.components) {
    (c.spout ? spouts : bolts).push_back(ComponentStatsJson(c));
  }
  j["spouts"] = std::move(spouts);
  j["bolts"] = std::move(bolts);
  j["throughput"] = ThroughputJson(h.Stats(Window{kThroughputSecs}));
  j["recentErrors"] = ErrorsJson(errors, now_ms, 20);
  j["errorGroups"] = ErrorGroupsJson(errors, now_ms, 50);
  j["configuration"] = info.configuration;
  return j;
}

std::optional<json> ComponentJson(const TopologyInfo& info, const SnapshotHistory& history,
                                  const Window& window, const ErrorLog& errors, std::int64_t now_ms,
                                  const std::string& component) {
  const GraphNode* node = FindNode(info.graph, component);
  if (!node) return std::nullopt;
  SnapshotHistory fallback;
  const SnapshotHistory& h = history.empty() ? fallback : history;
  if (history.empty()) fallback.Add(EmptySnapshot(info.graph));

  auto stats_of = [&](const Window& w) -> std::pair<json, double> {
    const WindowStats ws = h.Stats(w);
    for (const auto& c : ws.stats.components) {
      if (c.id == component) return {ComponentStatsJson(c), ws.covered_secs};
    }
    return {json::object(), ws.covered_secs};
  };
  json windows = json::array();
  for (const Window& w : {Window{kTenMinutes}, Window{}}) {
    auto [s, covered] = stats_of(w);
    s["window"] = w.Name();
    s["windowPretty"] = w.Pretty();
    s["coveredSecs"] = covered;
    windows.push_back(std::move(s));
  }
  auto [stats, covered] = stats_of(window);
  json executors = json::array(), output_stats = json::array();
  for (const auto& c : h.Stats(window).stats.components) {
    if (c.id != component) continue;
    executors = ExecutorStatsJson(c);
    output_stats = OutputStatsJson(c);
  }

  json inputs = json::array();
  json outputs = json::array();
  for (const auto& s : node->streams) {
    json subscribers = json::array();
    for (const auto& e : info.graph.edges) {
      if (e.source == component && e.stream == s.id) subscribers.push_back(EdgeEnd(e, e.target));
    }
    outputs.push_back({{"stream", s.id},
                       {"fields", s.fields},
                       {"direct", s.direct},
                       {"subscribers", std::move(subscribers)}});
  }
  for (const auto& e : info.graph.edges) {
    if (e.target == component) inputs.push_back(EdgeEnd(e, e.source));
  }
  const auto& latest = h.latest();
  json j{{"id", component},
         {"encodedId", component},
         {"name", info.name},
         {"topologyId", info.id},
         {"componentType", node->spout ? "spout" : "bolt"},
         {"tasks", node->parallelism},
         {"executors", node->parallelism},
         {"runs", node->runs},
         {"topologyStatus", StormStatus(latest.state, latest.active)},
         {"state", latest.state},
         {"window", window.Name()},
         {"windowHint", window.Pretty()},
         {"windowCoveredSecs", covered},
         {"stats", std::move(stats)},
         {node->spout ? "spoutSummary" : "boltStats", std::move(windows)},
         {"inputs", std::move(inputs)},
         {"outputs", std::move(outputs)},
         {"executorStats", std::move(executors)},
         {"outputStats", std::move(output_stats)},
         {"componentErrors", ErrorsJson(errors, now_ms, 100, &component)},
         {"componentErrorGroups", ErrorGroupsJson(errors, now_ms, 100, &component)},
         {"logFile", info.log_dir.empty() ? "" : info.log_dir + "/" + component + ".log"}};
  return j;
}

runtime::ClusterSnapshot SnapshotFromTopologyJson(const json& topology) {
  runtime::ClusterSnapshot s;
  s.state = topology.at("state").get<std::string>();
  s.uptime_secs = topology.at("uptimeSecs").get<double>();
  s.tasks_total = topology.at("tasksTotal").get<int>();
  s.tasks_ready = topology.at("tasksReady").get<int>();
  s.pending_trees = topology.at("pendingTrees").get<std::size_t>();
  s.backpressure = topology.at("backpressure").get<bool>();
  s.active = topology.value("active", true);
  for (const char* list : {"spouts", "bolts"}) {
    for (const auto& c : topology.at(list)) s.components.push_back(ComponentStatsFromJson(c));
  }
  std::sort(s.components.begin(), s.components.end(),
            [](const auto& a, const auto& b) { return a.id < b.id; });
  return s;
}

json SnapshotJson(const runtime::ClusterSnapshot& s, const std::string& topology) {
  json components = json::array();
  for (const auto& c : s.components) components.push_back(ComponentStatsJson(c));
  return {{"topology", topology},
          {"state", s.state},
          {"status", StormStatus(s.state, s.active)},
          {"active", s.active},
          {"uptimeSecs", s.uptime_secs},
          {"pendingTrees", s.pending_trees},
          {"tasksReady", s.tasks_ready},
          {"tasksTotal", s.tasks_total},
          {"backpressure", s.backpressure},
          {"components", std::move(components)}};
}

json HistoryJson(const TopologyInfo& info, const SnapshotHistory& history, std::size_t max_points) {
  json points = json::array();
  const auto& all = history.entries();
  if (all.size() < 2 || max_points == 0) return {{"points", std::move(points)}};
  // Every `stride`-th pair of neighbours, ending at the newest.
  const std::size_t pairs = all.size() - 1;
  const std::size_t stride = (pairs + max_points - 1) / max_points;
  std::vector<std::size_t> ends;
  for (std::size_t i = all.size() - 1; i >= stride; i -= stride) ends.push_back(i);
  for (auto it = ends.rbegin(); it != ends.rend(); ++it) {
    const auto& older = all[*it - stride];
    const auto& newer = all[*it];
    const double secs = newer.uptime_secs - older.uptime_secs;
    if (secs <= 0) continue;
    double emitted = 0, acked = 0, executed = 0;
    runtime::LatencyStat complete;
    json capacity = json::object();
    // Only the totals: a whole WindowDelta (every task's row) per point is more than needed.
    for (std::size_t ci = 0; ci < newer.components.size(); ++ci) {
      const auto& c = newer.components[ci];
      const runtime::ComponentStats* o =
          ci < older.components.size() && older.components[ci].id == c.id ? &older.components[ci]
                                                                          : nullptr;
      for (std::size_t k = 0; !o && k < older.components.size(); ++k) {
        if (older.components[k].id == c.id) o = &older.components[k];
      }
      const runtime::TaskStats d = o ? TaskStatsDelta(o->totals, c.totals) : c.totals;
      emitted += static_cast<double>(d.emitted);
      if (c.spout) {
        acked += static_cast<double>(d.acked);
        complete.Merge(d.complete_latency);
      } else {
        executed += static_cast<double>(d.executed);
        capacity[c.id] = c.capacity;
      }
    }
    points.push_back(
        {{"uptimeSecs", newer.uptime_secs},
         {"time", info.started_ms + static_cast<std::int64_t>(newer.uptime_secs * 1000)},
         {"emittedPerSec", emitted / secs},
         {"ackedPerSec", acked / secs},
         {"executedPerSec", executed / secs},
         {"completeLatency", complete.Average()},
         {"capacity", std::move(capacity)}});
  }
  return {{"points", std::move(points)}};
}

}  // namespace sparse::web
