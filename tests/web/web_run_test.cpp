// End to end: the real `sparse` binary runs a real topology of Python components; its web view
// is queried over a real socket; `sparse stats`, `visualize` and `tail` run as a user runs them.
#include <gtest/gtest.h>

#include <regex>

#include "live_run.hpp"

namespace sparse::testing {
namespace {

using nlohmann::json;
namespace fs = std::filesystem;

std::uint64_t Num(const json& topology, const std::string& component, const char* field) {
  const json c = Component(topology, component);
  return c.is_null() ? 0 : c[field].get<std::uint64_t>();
}

TEST(WebView, ServesEveryComponentNumbersGrowAndStatsAgree) {
  Sandbox sb;
  LiveRun run(sb);
  ASSERT_TRUE(run.ok());

  // The run-state file names this run.
  EXPECT_EQ(run.state()["pid"], run.pid());
  EXPECT_EQ(run.state()["topology"], "webview");
  EXPECT_EQ(run.url().rfind("http://127.0.0.1:", 0), 0u) << run.url();
  EXPECT_EQ(fs::path(run.state()["log_dir"].get<std::string>()), sb.dir() / "logs");
  EXPECT_NE(run.err().find("web view: " + run.url()), std::string::npos) << run.err();

  const json summary = run.Get("api/v1/topology/summary");
  ASSERT_EQ(summary["topologies"].size(), 1u);
  EXPECT_EQ(summary["topologies"][0]["id"], "webview");
  EXPECT_EQ(summary["topologies"][0]["status"], "ACTIVE");
  EXPECT_EQ(summary["topologies"][0]["tasksTotal"], 6);

  // Every component, with its kind and tasks; then the numbers move.
  const json first = run.Get("api/v1/topology/webview");
  ASSERT_EQ(first["spouts"].size(), 1u);
  ASSERT_EQ(first["bolts"].size(), 3u);
  for (const auto& id : kComponents) EXPECT_FALSE(Component(first, id).is_null()) << id;
  EXPECT_EQ(Component(first, "sentences")["spoutId"], "sentences");
  EXPECT_EQ(Component(first, "split")["boltId"], "split");
  EXPECT_EQ(Component(first, "split")["tasks"], 2);
  const auto emitted = Num(first, "sentences", "emitted");
  const auto executed = Num(first, "count", "executed");
  json later;
  ASSERT_TRUE(WaitUntil([&] {
    later = run.Get("api/v1/topology/webview");
    return Num(later, "sentences", "emitted") > emitted &&
           Num(later, "count", "executed") > executed && Num(later, "sentences", "acked") > 0;
  })) << later.dump(1);
  const json& ten = later["topologyStats"][0];
  const json& all = later["topologyStats"][1];
  EXPECT_EQ(ten["window"], "600");
  EXPECT_EQ(all["window"], ":all-time");
  EXPECT_LE(ten["emitted"].get<std::uint64_t>(), all["emitted"].get<std::uint64_t>());
  EXPECT_GT(all["acked"].get<std::uint64_t>(), 0u);
  EXPECT_GT(Component(later, "sentences")["completeLatency"].get<double>(), 0);

  // A short window counts less than all time once the run is older than it.
  ASSERT_TRUE(WaitUntil([&] {
    const json w = run.Get("api/v1/topology/webview?window=1");
    const json a = run.Get("api/v1/topology/webview?window=:all-time");
    return w["window"] == "1" && a["uptimeSecs"].get<double>() > 2 &&
           Num(w, "sentences", "emitted") < Num(a, "sentences", "emitted");
  }));

  // One component, its inputs and outputs.
  const json count = run.Get("api/v1/topology/webview/component/count?window=600");
  EXPECT_EQ(count["componentType"], "bolt");
  ASSERT_EQ(count["inputs"].size(), 1u);
  EXPECT_EQ(count["inputs"][0]["component"], "split");
  EXPECT_EQ(count["inputs"][0]["grouping"], "fields");
  EXPECT_EQ(count["inputs"][0]["groupingFields"], json::array({"word"}));
  EXPECT_GT(count["stats"]["executed"].get<std::uint64_t>(), 0u);

  const json graph = run.Get("api/v1/topology/webview/graph");
  EXPECT_EQ(graph["nodes"].size(), 4u);
  EXPECT_EQ(graph["edges"].size(), 3u);

  // The audit bolt's errors show up in the recent errors and as its last error.
  json withErrors;
  ASSERT_TRUE(WaitUntil([&] {
    withErrors = run.Get("api/v1/topology/webview");
    return !withErrors["recentErrors"].empty();
  })) << withErrors.dump(1);
  EXPECT_EQ(withErrors["recentErrors"][0]["component"], "audit");
  EXPECT_NE(withErrors["recentErrors"][0]["error"].get<std::string>().find("audit: sentence"),
            std::string::npos);
  EXPECT_NE(Component(withErrors, "audit")["lastError"].get<std::string>().find("suspicious"),
            std::string::npos);

  // `sparse stats` finds the run from its folder and prints the same numbers.
  const auto stats = RunToEnd({SparseBinary(), "stats", "--json"}, sb.dir(), "stats");
  ASSERT_EQ(stats.code, 0) << stats.err;
  const json sj = json::parse(stats.out);
  EXPECT_EQ(sj["topology"], "webview");
  ASSERT_EQ(sj["components"].size(), 4u);
  for (std::size_t i = 0; i < kComponents.size(); ++i) {
    EXPECT_EQ(sj["components"][i]["id"], kComponents[i]);
  }
  EXPECT_GE(sj["components"][2]["emitted"].get<std::uint64_t>(),
            Num(later, "sentences", "emitted"));
  const auto table = RunToEnd({SparseBinary(), "stats", "-c", "count"}, sb.dir(), "stats-c");
  ASSERT_EQ(table.code, 0) << table.err;
  EXPECT_EQ(table.out.rfind("component", 0), 0u) << table.out;
  EXPECT_NE(table.out.find("\ncount "), std::string::npos) << table.out;
  EXPECT_EQ(table.out.find("split"), std::string::npos) << table.out;
  const auto unknown = RunToEnd({SparseBinary(), "stats", "-c", "nope"}, sb.dir(), "stats-n");
  EXPECT_EQ(unknown.code, 1);
  EXPECT_NE(unknown.err.find("no component `nope`"), std::string::npos) << unknown.err;
  const auto by_url =
      RunToEnd({SparseBinary(), "stats", "--json", "--url", run.url(), "--window", "600"},
               fs::temp_directory_path(), "stats-url-" + std::to_string(run.pid()));
  EXPECT_EQ(by_url.code, 0) << by_url.err;
  std::error_code ec;
  fs::remove(fs::temp_directory_path() / ("stats-url-" + std::to_string(run.pid()) + ".out"), ec);
  fs::remove(fs::temp_directory_path() / ("stats-url-" + std::to_string(run.pid()) + ".err"), ec);

  // Ctrl-C: it drains, prints the table, and removes its run-state file.
  ASSERT_EQ(run.Stop(), 0) << run.err();
  EXPECT_FALSE(fs::exists(sb.dir() / ".sparse" / "run.json"));
  for (const auto& id : kComponents) {
    EXPECT_NE(run.out().find("\n" + id + " "), std::string::npos) << run.out();
  }
  const auto gone = RunToEnd({SparseBinary(), "stats"}, sb.dir(), "stats-gone");
  EXPECT_EQ(gone.code, 1);
  EXPECT_NE(gone.err.find("no running topology found"), std::string::npos) << gone.err;

  // `sparse tail`: the logs of the run that just ended (logs/ next to the topology).
  const auto audit = RunToEnd({SparseBinary(), "tail", "audit", "-n", "1000"}, sb.dir(), "tail");
  ASSERT_EQ(audit.code, 0) << audit.err;
  EXPECT_NE(audit.out.find("INFO audited 50 sentences"), std::string::npos) << audit.out;
  EXPECT_NE(audit.out.find("ERROR audit: sentence 100 looks suspicious"), std::string::npos);
  const auto all_logs = RunToEnd({SparseBinary(), "tail", "-n", "5"}, sb.dir(), "tail-all");
  ASSERT_EQ(all_logs.code, 0) << all_logs.err;
  std::istringstream lines(all_logs.out);
  int n = 0;
  const std::regex shape(R"((audit|count|sentences|split|__system)\s* \| \d{4}-\d\d-\d\d .*)");
  for (std::string l; std::getline(lines, l); ++n) EXPECT_TRUE(std::regex_match(l, shape)) << l;
  EXPECT_EQ(n, 5) << all_logs.out;
  EXPECT_TRUE(sb.ProcessesInside().empty());
}

TEST(WebView, NoUiAndABusyPort) {
  Sandbox sb;
  sb.Write("topo.yaml", WebTopology());
  const auto quiet =
      RunToEnd({SparseBinary(), "run", "topo.yaml", "-t", "1", "--no-ui"}, sb.dir(), "quiet");
  EXPECT_EQ(quiet.code, 0) << quiet.err;
  EXPECT_EQ(quiet.err.find("web view:"), std::string::npos) << quiet.err;
  EXPECT_FALSE(fs::exists(sb.dir() / ".sparse" / "run.json"));

  LiveRun run(sb);
  ASSERT_TRUE(run.ok());
  const std::string port = std::to_string(run.state()["port"].get<int>());
  const auto busy =
      RunToEnd({SparseBinary(), "run", "topo.yaml", "--ui-port", port}, sb.dir(), "busy");
  EXPECT_EQ(busy.code, 1);
  EXPECT_NE(busy.err.find("web view: cannot listen on 127.0.0.1:" + port), std::string::npos)
      << busy.err;
  const auto bad =
      RunToEnd({SparseBinary(), "run", "topo.yaml", "--ui-bind", "nowhere"}, sb.dir(), "bad");
  EXPECT_EQ(bad.code, 1);
  EXPECT_NE(bad.err.find("`nowhere` is not an IP address"), std::string::npos) << bad.err;
  EXPECT_EQ(run.Stop(), 0);
}

// Issue 15: with --ui-bind 0.0.0.0 the URL printed was http://0.0.0.0:PORT/, no place to browse
// to. It is now a loopback URL that answers, and the machine's name for other machines.
TEST(WebView, AWildcardBindPrintsUrlsThatWork) {
  Sandbox sb;
  sb.Write("topo.yaml", WebTopology());
  const auto run = RunToEnd({SparseBinary(), "run", "topo.yaml", "-t", "1", "--ui-bind", "0.0.0.0"},
                            sb.dir(), "any");
  EXPECT_EQ(run.code, 0) << run.err;
  EXPECT_NE(run.err.find("web view: http://127.0.0.1:"), std::string::npos) << run.err;
  EXPECT_NE(run.err.find("web view from other machines: http://"), std::string::npos) << run.err;
  EXPECT_EQ(run.err.find("http://0.0.0.0"), std::string::npos) << run.err;
}

TEST(Stats, IgnoresTheStateFileOfARunThatDied) {
  Sandbox sb;
  // A run killed with -9 leaves its file behind; its pid belongs to no process any more.
  const Child gone = Spawn({"/bin/true"}, sb.dir(), "true");
  ASSERT_EQ(WaitExit(gone.pid, std::chrono::seconds(10)), 0);
  fs::create_directories(sb.dir() / ".sparse");
  sb.Write(".sparse/run.json", json{{"pid", gone.pid},
                                    {"topology", "old"},
                                    {"id", "old"},
                                    {"url", "http://127.0.0.1:1/"},
                                    {"port", 1},
                                    {"bind", "127.0.0.1"},
                                    {"log_dir", ""},
                                    {"file", ""},
                                    {"started_ms", 0}}
                                   .dump());
  fs::create_directories(sb.dir() / "deeper");
  const auto r = RunToEnd({SparseBinary(), "stats"}, sb.dir() / "deeper", "stats");
  EXPECT_EQ(r.code, 1);
  EXPECT_NE(r.err.find("no running topology found"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("is left from a run that has ended"), std::string::npos) << r.err;
}

TEST(Visualize, DotSvgPngAndAClearErrorWithoutGraphviz) {
  Sandbox sb;
  sb.Write("topo.yaml", WebTopology());
  const auto dot = RunToEnd({SparseBinary(), "visualize", "topo.yaml"}, sb.dir(), "dot");
  ASSERT_EQ(dot.code, 0) << dot.err;
  EXPECT_EQ(dot.out.rfind("digraph \"webview\" {", 0), 0u) << dot.out;
  EXPECT_NE(dot.out.find("\"sentences\" [label=\"sentences\\nspout x1\", shape=cds"),
            std::string::npos)
      << dot.out;
  EXPECT_NE(dot.out.find("\"split\" [label=\"split\\nbolt x2\", shape=box"), std::string::npos);
  EXPECT_NE(dot.out.find("\"split\" -> \"count\" [label=\"default [word]\\nfields(word)\"]"),
            std::string::npos)
      << dot.out;
  EXPECT_NE(dot.out.find("\"sentences\" -> \"audit\" [label=\"default [sentence]\\nall\""),
            std::string::npos)
      << dot.out;

  const auto to_file =
      RunToEnd({SparseBinary(), "visualize", "topo.yaml", "-o", "t.dot"}, sb.dir(), "dotf");
  ASSERT_EQ(to_file.code, 0) << to_file.err;
  EXPECT_EQ(Slurp(sb.dir() / "t.dot"), dot.out);

  // Without Graphviz (nothing on PATH): a clear error for svg, DOT still works.
  const std::map<std::string, std::string> no_path = {{"PATH", (sb.dir() / "empty").string()}};
  const auto missing =
      RunToEnd({SparseBinary(), "visualize", "topo.yaml", "-f", "svg"}, sb.dir(), "nodot", no_path);
  EXPECT_EQ(missing.code, 1);
  EXPECT_NE(missing.err.find("needs Graphviz's `dot`, which is not installed"), std::string::npos)
      << missing.err;
  EXPECT_EQ(RunToEnd({SparseBinary(), "visualize", "topo.yaml"}, sb.dir(), "dot2", no_path).code,
            0);

  const auto bad =
      RunToEnd({SparseBinary(), "visualize", "topo.yaml", "-f", "gif"}, sb.dir(), "gif");
  EXPECT_EQ(bad.code, 1);
  EXPECT_NE(bad.err.find("-f must be dot, svg or png"), std::string::npos);
  sb.Write("broken.yaml", "name: x\nbolts:\n  - {id: b, command: [x], inputs: [{from: nope}]}\n");
  EXPECT_EQ(RunToEnd({SparseBinary(), "visualize", "broken.yaml"}, sb.dir(), "broken").code, 2);

  if (::access("/usr/bin/dot", X_OK) != 0) {
    GTEST_SKIP() << "Graphviz is not installed (scripts/setup.sh installs it): svg/png unchecked";
  }
  const auto svg =
      RunToEnd({SparseBinary(), "visualize", "topo.yaml", "-o", "t.svg"}, sb.dir(), "svg");
  ASSERT_EQ(svg.code, 0) << svg.err;
  const std::string svg_text = Slurp(sb.dir() / "t.svg");
  EXPECT_NE(svg_text.find("<svg"), std::string::npos);
  EXPECT_NE(svg_text.find(">sentences</text>"), std::string::npos);
  EXPECT_NE(svg_text.find("fields(word)"), std::string::npos);
  const auto png = RunToEnd({SparseBinary(), "visualize", "topo.yaml", "-f", "png", "-o", "t.png"},
                            sb.dir(), "png");
  ASSERT_EQ(png.code, 0) << png.err;
  EXPECT_EQ(Slurp(sb.dir() / "t.png").substr(0, 8), "\x89PNG\r\n\x1a\n");
}

TEST(Tail, InterleavesByTimeAndFollows) {
  Sandbox sb;
  fs::create_directories(sb.dir() / "logs");
  sb.Write("logs/a.log",
           "2030-01-01 10:00:00.100 task=1 INFO a one\n"
           "2030-01-01 10:00:00.300 task=1 FAILURE stderr tail:\n"
           "Traceback (most recent call last):\n"
           "  boom\n"
           "2030-01-01 10:00:00.500 task=1 INFO a three\n");
  sb.Write("logs/bb.log",
           "2030-01-01 10:00:00.200 task=2 INFO bb one\n"
           "2030-01-01 10:00:00.400 task=2 WARN bb two\n");
  const auto all = RunToEnd({SparseBinary(), "tail", "-n", "4"}, sb.dir(), "all");
  ASSERT_EQ(all.code, 0) << all.err;
  EXPECT_EQ(all.out,
            "bb | 2030-01-01 10:00:00.200 task=2 INFO bb one\n"
            "a  | 2030-01-01 10:00:00.300 task=1 FAILURE stderr tail:\n"
            "a  | Traceback (most recent call last):\n"
            "a  |   boom\n"
            "bb | 2030-01-01 10:00:00.400 task=2 WARN bb two\n"
            "a  | 2030-01-01 10:00:00.500 task=1 INFO a three\n");
  const auto one = RunToEnd({SparseBinary(), "tail", "bb", "-n", "1"}, sb.dir(), "one");
  EXPECT_EQ(one.out, "2030-01-01 10:00:00.400 task=2 WARN bb two\n");
  const auto missing = RunToEnd({SparseBinary(), "tail", "zz"}, sb.dir(), "missing");
  EXPECT_EQ(missing.code, 1);
  EXPECT_NE(missing.err.find("no log of `zz`"), std::string::npos) << missing.err;
  EXPECT_NE(missing.err.find("there are: a bb"), std::string::npos) << missing.err;

  // -f: what is appended (to an existing log or a new one) is printed as it comes.
  const Child follow = Spawn({SparseBinary(), "tail", "-f", "-n", "1"}, sb.dir(), "follow");
  ASSERT_TRUE(WaitUntil([&] { return Slurp(follow.out).find("a three") != std::string::npos; }))
      << Slurp(follow.err);
  {
    std::ofstream(sb.dir() / "logs" / "bb.log", std::ios::app)
        << "2030-01-01 10:00:01.000 task=2 INFO bb later\n";
    std::ofstream(sb.dir() / "logs" / "c.log") << "2030-01-01 10:00:02.000 task=3 INFO c new\n";
  }
  const bool followed = WaitUntil([&] {
    const std::string out = Slurp(follow.out);
    return out.find("bb later") != std::string::npos && out.find("c new") != std::string::npos;
  });
  ::kill(follow.pid, SIGTERM);
  WaitExit(follow.pid, std::chrono::seconds(10));
  EXPECT_TRUE(followed) << Slurp(follow.out);
  EXPECT_EQ(Slurp(follow.out).find("a one"), std::string::npos);  // -n 1
}

}  // namespace
}  // namespace sparse::testing
