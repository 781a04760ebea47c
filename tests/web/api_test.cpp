// The JSON shapes of the web API (web/api.hpp) and the topology graph (web/graph.hpp).
#include "web/api.hpp"

#include <gtest/gtest.h>

#include "runtime/builtin_registry.hpp"
#include "runtime/topology_loader.hpp"
#include "runtime/validate.hpp"
#include "web/graph.hpp"

namespace sparse::web {
namespace {

using nlohmann::json;

const char* kYaml = R"(name: shapes
spouts:
  - {id: words, command: [python3, w.py], outputs: [word], parallelism: 2}
bolts:
  - id: count
    command: [python3, c.py]
    parallelism: 3
    streams: {default: [word, count], alerts: {fields: [msg], direct: true}}
    inputs: [{from: words, grouping: fields, fields: [word]}]
  - id: sink
    command: [python3, s.py]
    inputs:
      - {from: count, grouping: shuffle}
      - {from: count, stream: alerts, grouping: direct}
      - {from: words, grouping: all}
)";

runtime::Topology Load() {
  const runtime::BuiltinRegistry no_builtins;
  auto t = runtime::LoadTopologyFromString(kYaml, "shapes.yaml", no_builtins);
  runtime::ValidateOrThrow(t, no_builtins);
  return t;
}

TopologyInfo ShapesInfo() {
  TopologyInfo info;
  info.id = "shapes";
  info.name = "shapes";
  info.file = "/x/shapes.yaml";
  info.log_dir = "/x/logs";
  info.graph = MakeGraph(Load());
  info.configuration = {{"sparse.queue.high.watermark", 1000}};
  return info;
}

runtime::ClusterSnapshot Snapshot(double uptime, std::uint64_t n) {
  runtime::ClusterSnapshot s = EmptySnapshot(MakeGraph(Load()));
  s.uptime_secs = uptime;
  s.state = "running";
  s.tasks_ready = s.tasks_total;
  s.pending_trees = 4;
  for (auto& c : s.components) {
    c.totals.emitted = n;
    c.totals.transferred = 2 * n;
    c.totals.acked = n;
    if (c.spout) {
      c.totals.complete_latency.Add(4);
      c.totals.complete_latency.Add(6);
    } else {
      c.totals.executed = n;
      c.totals.process_latency.Add(1.5);
      c.totals.execute_latency.Add(1.25);
      c.capacity = 0.25;
    }
  }
  return s;
}

TEST(Graph, NodesAndEdgesWithStreamsGroupingsAndFields) {
  const auto g = MakeGraph(Load());
  ASSERT_EQ(g.nodes.size(), 3u);
  EXPECT_EQ(g.nodes[0].id, "words");
  EXPECT_TRUE(g.nodes[0].spout);
  EXPECT_EQ(g.nodes[0].parallelism, 2);
  EXPECT_EQ(g.nodes[0].runs, "python3 w.py");
  EXPECT_FALSE(g.nodes[1].spout);
  ASSERT_EQ(g.edges.size(), 4u);
  const auto& e = g.edges[0];
  EXPECT_EQ(e.source, "words");
  EXPECT_EQ(e.target, "count");
  EXPECT_EQ(e.stream, "default");
  EXPECT_EQ(e.grouping, "fields");
  EXPECT_EQ(e.grouping_fields, std::vector<std::string>{"word"});
  EXPECT_EQ(e.stream_fields, std::vector<std::string>{"word"});
  EXPECT_EQ(g.edges[2].stream, "alerts");
  EXPECT_EQ(g.edges[2].grouping, "direct");
  EXPECT_EQ(g.edges[2].stream_fields, std::vector<std::string>{"msg"});

  const json j = GraphJson(g);
  EXPECT_EQ(j["name"], "shapes");
  EXPECT_EQ(j["nodes"][0]["type"], "spout");
  EXPECT_EQ(j["nodes"][1]["type"], "bolt");
  EXPECT_EQ(j["nodes"][1]["streams"][0]["id"], "default");  // in file order
  EXPECT_EQ(j["nodes"][1]["streams"][1]["id"], "alerts");
  EXPECT_EQ(j["nodes"][1]["streams"][1]["direct"], true);
  EXPECT_EQ(j["edges"][0]["groupingFields"], json::array({"word"}));
  EXPECT_EQ(j["edges"][3]["grouping"], "all");
}

TEST(Graph, DotTellsSpoutsFromBoltsAndLabelsEdges) {
  const std::string dot = GraphDot(MakeGraph(Load()));
  EXPECT_EQ(dot.rfind("digraph \"shapes\" {", 0), 0u) << dot;
  EXPECT_NE(dot.find("rankdir=LR"), std::string::npos);
  EXPECT_NE(dot.find("\"words\" [label=\"words\\nspout x2\", shape=cds"), std::string::npos) << dot;
  EXPECT_NE(dot.find("\"count\" [label=\"count\\nbolt x3\", shape=box"), std::string::npos) << dot;
  EXPECT_NE(dot.find("\"words\" -> \"count\" [label=\"default [word]\\nfields(word)\"]"),
            std::string::npos)
      << dot;
  EXPECT_NE(dot.find("\"count\" -> \"sink\" [label=\"alerts [msg]\\ndirect\", style=dashed]"),
            std::string::npos)
      << dot;
  EXPECT_NE(dot.find("\"words\" -> \"sink\" [label=\"default [word]\\nall\", style=bold]"),
            std::string::npos)
      << dot;
  EXPECT_EQ(dot.back(), '\n');
}

TEST(Graph, DotEscapesQuotes) {
  TopologyGraph g;
  g.name = "a\"b";
  g.nodes.push_back({"x\"y", true, 1, "run \\ me", {}});
  const std::string dot = GraphDot(g);
  EXPECT_NE(dot.find("digraph \"a\\\"b\""), std::string::npos) << dot;
  EXPECT_NE(dot.find("\"x\\\"y\" [label=\"x\\\"y\\nspout x1\""), std::string::npos) << dot;
  EXPECT_NE(dot.find("tooltip=\"run \\\\ me\""), std::string::npos) << dot;
}

TEST(Api, ComponentStatsUseStormNames) {
  const auto s = Snapshot(10, 100);
  const json spout = ComponentStatsJson(s.components[2]);  // words
  EXPECT_EQ(spout["spoutId"], "words");
  EXPECT_EQ(spout["type"], "spout");
  EXPECT_EQ(spout["tasks"], 2);
  EXPECT_EQ(spout["executors"], 2);
  EXPECT_EQ(spout["emitted"], 100);
  EXPECT_EQ(spout["transferred"], 200);
  EXPECT_EQ(spout["acked"], 100);
  EXPECT_DOUBLE_EQ(spout["completeLatency"].get<double>(), 5.0);
  EXPECT_TRUE(spout["errorLapsedSecs"].is_null());
  EXPECT_EQ(spout["lastError"], "");
  const json bolt = ComponentStatsJson(s.components[0]);  // count
  EXPECT_EQ(bolt["boltId"], "count");
  EXPECT_EQ(bolt["executed"], 100);
  EXPECT_DOUBLE_EQ(bolt["processLatency"].get<double>(), 1.5);
  EXPECT_DOUBLE_EQ(bolt["executeLatency"].get<double>(), 1.25);
  EXPECT_DOUBLE_EQ(bolt["capacity"].get<double>(), 0.25);
  for (const char* key : {"backpressureMs", "queueDepth", "pending", "restarts", "errors",
                          "timedOut", "dropped", "expiredInputs", "abandoned", "gauges"}) {
    EXPECT_TRUE(bolt.contains(key)) << key;
  }
}

TEST(Api, ComponentStatsRoundTrip) {
  runtime::ComponentStats c = Snapshot(10, 100).components[0];
  c.last_error = "boom";
  c.last_error_age_secs = 12.5;
  c.totals.gauges["lag"] = 3;
  c.totals.restarts = 2;
  c.totals.queue_depth = 9;
  const auto back = ComponentStatsFromJson(ComponentStatsJson(c));
  EXPECT_EQ(back.id, c.id);
  EXPECT_EQ(back.spout, c.spout);
  EXPECT_EQ(back.tasks, c.tasks);
  EXPECT_EQ(back.totals.emitted, c.totals.emitted);
  EXPECT_EQ(back.totals.executed, c.totals.executed);
  EXPECT_EQ(back.totals.restarts, 2u);
  EXPECT_EQ(back.totals.queue_depth, 9u);
  EXPECT_EQ(back.totals.gauges, c.totals.gauges);
  EXPECT_DOUBLE_EQ(back.totals.process_latency.Average(), 1.5);
  EXPECT_DOUBLE_EQ(back.capacity, 0.25);
  EXPECT_EQ(back.last_error, "boom");
  EXPECT_DOUBLE_EQ(back.last_error_age_secs, 12.5);
  EXPECT_EQ(ComponentStatsJson(back), ComponentStatsJson(c));
}

TEST(Api, SummaryBeforeTheFirstSnapshot) {
  const auto info = ShapesInfo();
  const json j = TopologySummaryJson(info, EmptySnapshot(info.graph));
  ASSERT_EQ(j["topologies"].size(), 1u);
  const auto& t = j["topologies"][0];
  EXPECT_EQ(t["id"], "shapes");
  EXPECT_EQ(t["name"], "shapes");
  EXPECT_EQ(t["status"], "INACTIVE");
  EXPECT_EQ(t["state"], "starting");
  EXPECT_EQ(t["tasksTotal"], 6);
  EXPECT_EQ(t["workersTotal"], 1);
}

TEST(Api, TopologyWindowsAndLists) {
  const auto info = ShapesInfo();
  SnapshotHistory h;
  for (int t = 1; t <= 700; ++t) h.Add(Snapshot(t, static_cast<std::uint64_t>(t)));
  ErrorLog errors;
  for (int i = 0; i < 30; ++i) errors.Add({"count", 3, "error " + std::to_string(i), 1000 * i});
  const json j = TopologyJson(info, h, Window{600}, errors, 40'000);
  EXPECT_EQ(j["id"], "shapes");
  EXPECT_EQ(j["status"], "ACTIVE");
  EXPECT_EQ(j["uptimeSeconds"], 700);
  EXPECT_EQ(j["uptime"], "11m 40s");
  EXPECT_EQ(j["window"], "600");
  EXPECT_EQ(j["windowHint"], "10m 0s");
  EXPECT_EQ(j["pendingTrees"], 4);
  ASSERT_EQ(j["topologyStats"].size(), 2u);
  const auto& ten = j["topologyStats"][0];
  const auto& all = j["topologyStats"][1];
  EXPECT_EQ(ten["window"], "600");
  EXPECT_EQ(all["window"], ":all-time");
  EXPECT_EQ(all["windowPretty"], "All time");
  // Emitted and transferred over all three components; acked of the spout only.
  EXPECT_EQ(ten["emitted"], 3 * 600);
  EXPECT_EQ(all["emitted"], 3 * 700);
  EXPECT_EQ(ten["transferred"], 3 * 1200);
  EXPECT_EQ(ten["acked"], 600);
  EXPECT_EQ(all["acked"], 700);
  ASSERT_EQ(j["spouts"].size(), 1u);
  ASSERT_EQ(j["bolts"].size(), 2u);
  EXPECT_EQ(j["spouts"][0]["spoutId"], "words");
  EXPECT_EQ(j["spouts"][0]["emitted"], 600);
  EXPECT_EQ(j["bolts"][0]["boltId"], "count");
  EXPECT_EQ(j["bolts"][1]["boltId"], "sink");
  // Recent errors: newest first, at most 20, with their age.
  ASSERT_EQ(j["recentErrors"].size(), 20u);
  EXPECT_EQ(j["recentErrors"][0]["error"], "error 29");
  EXPECT_EQ(j["recentErrors"][0]["component"], "count");
  EXPECT_EQ(j["recentErrors"][0]["task"], 3);
  EXPECT_EQ(j["recentErrors"][0]["errorLapsedSecs"], 11);
  EXPECT_EQ(j["configuration"]["sparse.queue.high.watermark"], 1000);
  // Throughput over the last 10 s: every component emits 1 per second here.
  EXPECT_EQ(j["throughput"]["window"], "10");
  EXPECT_DOUBLE_EQ(j["throughput"]["coveredSecs"].get<double>(), 10);
  EXPECT_DOUBLE_EQ(j["throughput"]["emittedPerSec"].get<double>(), 3);
  EXPECT_DOUBLE_EQ(j["throughput"]["ackedPerSec"].get<double>(), 1);
  EXPECT_DOUBLE_EQ(j["throughput"]["executedPerSec"].get<double>(), 2);

  const json a = TopologyJson(info, h, Window{}, errors, 40'000);
  EXPECT_EQ(a["window"], ":all-time");
  EXPECT_EQ(a["spouts"][0]["emitted"], 700);
}

TEST(Api, SnapshotFromTopologyJsonIsTheSnapshotServed) {
  const auto info = ShapesInfo();
  SnapshotHistory h;
  auto s = Snapshot(42.5, 77);
  s.components[1].last_error = "bad input";
  s.components[1].last_error_age_secs = 3.25;
  h.Add(s);
  const auto back = SnapshotFromTopologyJson(TopologyJson(info, h, Window{}, ErrorLog{}, 0));
  EXPECT_EQ(back.state, "running");
  EXPECT_DOUBLE_EQ(back.uptime_secs, 42.5);
  EXPECT_EQ(back.tasks_total, s.tasks_total);
  EXPECT_EQ(back.pending_trees, 4u);
  ASSERT_EQ(back.components.size(), s.components.size());
  for (std::size_t i = 0; i < s.components.size(); ++i) {
    EXPECT_EQ(ComponentStatsJson(back.components[i]), ComponentStatsJson(s.components[i]));
  }
}

TEST(Api, ComponentPage) {
  const auto info = ShapesInfo();
  SnapshotHistory h;
  h.Add(Snapshot(1, 10));
  h.Add(Snapshot(2, 30));
  ErrorLog errors;
  errors.Add({"count", 3, "first", 1000});
  errors.Add({"sink", 6, "other", 1500});
  errors.Add({"count", 4, "second", 2000});
  EXPECT_FALSE(ComponentJson(info, h, Window{}, errors, 5000, "nope"));
  const json c = *ComponentJson(info, h, Window{1}, errors, 5000, "count");
  EXPECT_EQ(c["id"], "count");
  EXPECT_EQ(c["componentType"], "bolt");
  EXPECT_EQ(c["topologyId"], "shapes");
  EXPECT_EQ(c["tasks"], 3);
  EXPECT_EQ(c["window"], "1");
  EXPECT_EQ(c["stats"]["executed"], 20);  // 30 - 10 over the last second
  ASSERT_EQ(c["boltStats"].size(), 2u);
  EXPECT_EQ(c["boltStats"][1]["window"], ":all-time");
  EXPECT_EQ(c["boltStats"][1]["executed"], 30);
  ASSERT_EQ(c["inputs"].size(), 1u);
  EXPECT_EQ(c["inputs"][0]["component"], "words");
  EXPECT_EQ(c["inputs"][0]["grouping"], "fields");
  EXPECT_EQ(c["inputs"][0]["groupingFields"], json::array({"word"}));
  ASSERT_EQ(c["outputs"].size(), 2u);
  EXPECT_EQ(c["outputs"][1]["stream"], "alerts");
  EXPECT_EQ(c["outputs"][1]["direct"], true);
  EXPECT_EQ(c["outputs"][1]["subscribers"][0]["component"], "sink");
  ASSERT_EQ(c["componentErrors"].size(), 2u);
  EXPECT_EQ(c["componentErrors"][0]["error"], "second");
  EXPECT_EQ(c["componentErrors"][0]["errorLapsedSecs"], 3);
  EXPECT_EQ(c["logFile"], "/x/logs/count.log");
  const json spout = *ComponentJson(info, h, Window{}, errors, 5000, "words");
  EXPECT_EQ(spout["componentType"], "spout");
  EXPECT_TRUE(spout.contains("spoutSummary"));
  EXPECT_EQ(spout["outputs"][0]["subscribers"].size(), 2u);
}

// `count` with two task rows and its two streams, counters growing with n.
runtime::ClusterSnapshot SnapshotWithTasks(double uptime, std::uint64_t n) {
  auto s = Snapshot(uptime, n);
  auto& count = s.components[0];
  for (int task : {3, 4}) {
    runtime::TaskRow row;
    row.task = task;
    row.stats.executed = n * static_cast<std::uint64_t>(task);
    row.stats.queue_depth = 7;
    row.capacity = 0.5;
    row.ready = true;
    row.pid = 1000 + task;
    count.per_task.push_back(row);
  }
  count.per_stream = {{"default", n, 2 * n}, {"alerts", n / 10, n / 10}};
  return s;
}

TEST(Api, ComponentPageHasTaskAndStreamRowsOverTheWindow) {
  const auto info = ShapesInfo();
  SnapshotHistory h;
  h.Add(SnapshotWithTasks(1, 10));
  h.Add(SnapshotWithTasks(2, 30));
  const json c = *ComponentJson(info, h, Window{1}, ErrorLog{}, 5000, "count");
  ASSERT_EQ(c["executorStats"].size(), 2u);
  const json& t3 = c["executorStats"][0];
  EXPECT_EQ(t3["id"], "[3-3]");
  EXPECT_EQ(t3["task"], 3);
  EXPECT_EQ(t3["executed"], 3 * 20);  // the window's difference
  EXPECT_EQ(t3["queueDepth"], 7);     // a current value
  EXPECT_DOUBLE_EQ(t3["capacity"].get<double>(), 0.5);
  EXPECT_EQ(t3["pid"], 1003);
  EXPECT_EQ(t3["ready"], true);
  ASSERT_EQ(c["outputStats"].size(), 2u);
  EXPECT_EQ(c["outputStats"][0]["stream"], "default");
  EXPECT_EQ(c["outputStats"][0]["emitted"], 20);
  EXPECT_EQ(c["outputStats"][0]["transferred"], 40);
  EXPECT_EQ(c["outputStats"][1]["stream"], "alerts");
  EXPECT_EQ(c["outputStats"][1]["emitted"], 2);
  const json all = *ComponentJson(info, h, Window{}, ErrorLog{}, 5000, "count");
  EXPECT_EQ(all["executorStats"][1]["executed"], 4 * 30);
  EXPECT_EQ(all["outputStats"][0]["emitted"], 30);
}

TEST(Api, RepeatedErrorsAreServedGrouped) {
  const auto info = ShapesInfo();
  SnapshotHistory h;
  h.Add(Snapshot(1, 1));
  ErrorLog errors;
  for (int i = 0; i < 30; ++i) {
    errors.Add({"count", 3 + i % 2, "error " + std::to_string(i) + "\n  traceback", 1000 * i});
  }
  errors.Add({"sink", 6, "other", 35'000});
  const json j = TopologyJson(info, h, Window{}, errors, 40'000);
  ASSERT_EQ(j["errorGroups"].size(), 2u);
  EXPECT_EQ(j["errorGroups"][0]["component"], "sink");  // seen last
  const json& g = j["errorGroups"][1];
  EXPECT_EQ(g["component"], "count");
  EXPECT_EQ(g["count"], 30);
  EXPECT_EQ(g["firstLine"], "error 29");
  EXPECT_EQ(g["error"], "error 29\n  traceback");
  EXPECT_EQ(g["firstTime"], 0);
  EXPECT_EQ(g["lastTime"], 29'000);
  EXPECT_EQ(g["errorLapsedSecs"], 11);
  EXPECT_EQ(g["tasks"], json::array({3, 4}));
  const json c = *ComponentJson(info, h, Window{}, errors, 40'000, "count");
  ASSERT_EQ(c["componentErrorGroups"].size(), 1u);
  EXPECT_EQ(c["componentErrorGroups"][0]["count"], 30);
}

TEST(Api, HistoryIsOnePointPerReportWithRates) {
  auto info = ShapesInfo();
  info.started_ms = 1'000'000;
  SnapshotHistory h;
  EXPECT_TRUE(HistoryJson(info, h)["points"].empty());
  for (int t = 1; t <= 5; ++t) h.Add(Snapshot(t, static_cast<std::uint64_t>(10 * t)));
  const json points = HistoryJson(info, h)["points"];
  ASSERT_EQ(points.size(), 4u);
  const json& p = points[3];
  EXPECT_DOUBLE_EQ(p["uptimeSecs"].get<double>(), 5);
  EXPECT_EQ(p["time"], 1'005'000);
  EXPECT_DOUBLE_EQ(p["emittedPerSec"].get<double>(), 30);  // 3 components, 10 each a second
  EXPECT_DOUBLE_EQ(p["ackedPerSec"].get<double>(), 10);
  EXPECT_DOUBLE_EQ(p["executedPerSec"].get<double>(), 20);
  EXPECT_DOUBLE_EQ(p["completeLatency"].get<double>(), 0);  // no new trees' latencies here
  EXPECT_DOUBLE_EQ(p["capacity"]["count"].get<double>(), 0.25);
  EXPECT_FALSE(p["capacity"].contains("words"));  // spouts have none
  // Thinned evenly to at most max_points, ending at the newest.
  for (int t = 6; t <= 100; ++t) h.Add(Snapshot(t, static_cast<std::uint64_t>(10 * t)));
  const json thin = HistoryJson(info, h, 10)["points"];
  ASSERT_EQ(thin.size(), 9u);
  EXPECT_DOUBLE_EQ(thin.back()["uptimeSecs"].get<double>(), 100);
  EXPECT_DOUBLE_EQ(thin.back()["emittedPerSec"].get<double>(), 30);
}

TEST(Api, SnapshotJsonUsesTheApiKeyNames) {
  auto s = Snapshot(12.5, 40);
  s.active = false;
  const json j = SnapshotJson(s, "shapes");
  EXPECT_EQ(j["topology"], "shapes");
  EXPECT_EQ(j["status"], "INACTIVE");
  EXPECT_EQ(j["active"], false);
  EXPECT_DOUBLE_EQ(j["uptimeSecs"].get<double>(), 12.5);
  EXPECT_EQ(j["pendingTrees"], 4);
  ASSERT_EQ(j["components"].size(), 3u);
  // Exactly what the HTTP API serves for each component.
  for (std::size_t i = 0; i < s.components.size(); ++i) {
    EXPECT_EQ(j["components"][i], ComponentStatsJson(s.components[i]));
  }
}

TEST(Api, ErrorLogIsBounded) {
  ErrorLog log(3);
  for (int i = 0; i < 5; ++i) log.Add({"c", 1, std::to_string(i), i});
  ASSERT_EQ(log.entries().size(), 3u);
  EXPECT_EQ(log.entries().front().error, "2");
  EXPECT_EQ(log.entries().back().error, "4");
}

TEST(Api, StormStatus) {
  EXPECT_EQ(StormStatus("running"), "ACTIVE");
  EXPECT_EQ(StormStatus("running", /*active=*/false), "INACTIVE");
  EXPECT_EQ(StormStatus("starting"), "INACTIVE");
  EXPECT_EQ(StormStatus("draining"), "KILLED");
  EXPECT_EQ(StormStatus("stopped"), "KILLED");
}

}  // namespace
}  // namespace sparse::web
