// End to end: the real `sparse` binary runs a real topology of Python components; its web view
// is queried over a real socket; `sparse stats`, `visualize` and `tail` run as a user runs them.
#include <gtest/gtest.h>

#include <fstream>
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
  ASSERT_TRUE(WaitFor([&] {
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
  ASSERT_TRUE(WaitFor([&] {
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
  // Its tasks, one row each, and its output streams (Storm UI's executorStats, outputStats).
  ASSERT_EQ(count["executorStats"].size(), 2u) << count.dump(1);
  std::uint64_t by_task = 0;
  for (const auto& t : count["executorStats"]) {
    EXPECT_TRUE(t["ready"].get<bool>());
    EXPECT_GT(t["pid"].get<int>(), 0);
    by_task += t["executed"].get<std::uint64_t>();
  }
  EXPECT_EQ(by_task, count["stats"]["executed"].get<std::uint64_t>());
  ASSERT_EQ(count["outputStats"].size(), 1u);
  EXPECT_EQ(count["outputStats"][0]["stream"], "default");
  EXPECT_EQ(count["outputStats"][0]["emitted"], count["stats"]["emitted"]);
  // Its gauges, from `metrics` commands.
  json gauges;
  ASSERT_TRUE(WaitFor([&] {
    gauges = Component(run.Get("api/v1/topology/webview"), "count")["gauges"];
    return gauges.contains("distinct_words");
  })) << gauges.dump();
  EXPECT_EQ(gauges["kafka.lag.words-0"], 14);  // both tasks' 7, summed

  // The history the charts draw: a point per status report, with rates.
  json history;
  ASSERT_TRUE(WaitFor([&] {
    history = run.Get("api/v1/topology/webview/history");
    return history["points"].size() >= 2 &&
           history["points"].back()["emittedPerSec"].get<double>() > 0;
  })) << history.dump(1);
  EXPECT_TRUE(history["points"].back()["capacity"].contains("count"));

  const json graph = run.Get("api/v1/topology/webview/graph");
  EXPECT_EQ(graph["nodes"].size(), 4u);
  EXPECT_EQ(graph["edges"].size(), 3u);

  // The audit bolt's errors show up in the recent errors and as its last error.
  json withErrors;
  ASSERT_TRUE(WaitFor([&] {
    withErrors = run.Get("api/v1/topology/webview");
    return !withErrors["recentErrors"].empty();
  })) << withErrors.dump(1);
  EXPECT_EQ(withErrors["recentErrors"][0]["component"], "audit");
  EXPECT_NE(withErrors["recentErrors"][0]["error"].get<std::string>().find("audit: sentence"),
            std::string::npos);
  EXPECT_NE(Component(withErrors, "audit")["lastError"].get<std::string>().find("suspicious"),
            std::string::npos);
  // Repeats of it are one group, with the whole traceback of the newest.
  ASSERT_TRUE(WaitFor([&] {
    withErrors = run.Get("api/v1/topology/webview");
    return !withErrors["errorGroups"].empty() && withErrors["errorGroups"][0]["count"] >= 2;
  })) << withErrors.dump(1);
  ASSERT_EQ(withErrors["errorGroups"].size(), 1u) << withErrors["errorGroups"].dump(1);
  const json& group = withErrors["errorGroups"][0];
  EXPECT_EQ(group["component"], "audit");
  EXPECT_EQ(group["firstLine"].get<std::string>().find("audit: sentence "), 0u);
  EXPECT_NE(group["error"].get<std::string>().find("ValueError: suspicious"), std::string::npos);
  EXPECT_LE(group["firstTime"].get<std::int64_t>(), group["lastTime"].get<std::int64_t>());

  // `sparse stats` finds the run from its folder and prints the same numbers.
  const auto stats = test::Run({{SparseBinary(), "stats", "--json"}, sb.dir()});
  ASSERT_EQ(stats.exit_code, 0) << stats.err;
  const json sj = json::parse(stats.out);
  EXPECT_EQ(sj["topology"], "webview");
  ASSERT_EQ(sj["components"].size(), 4u);
  for (std::size_t i = 0; i < kComponents.size(); ++i) {
    EXPECT_EQ(sj["components"][i]["id"], kComponents[i]);
  }
  EXPECT_GE(sj["components"][2]["emitted"].get<std::uint64_t>(),
            Num(later, "sentences", "emitted"));
  // In the HTTP API's key names: every key of a component is one the API serves for it.
  EXPECT_EQ(sj["status"], "ACTIVE");
  for (const auto& c : sj["components"]) {
    const json served = Component(later, c["id"].get<std::string>());
    for (const auto& [key, value] : c.items()) EXPECT_TRUE(served.contains(key)) << key;
    EXPECT_TRUE(c.contains("timedOut"));
    EXPECT_TRUE(c.contains("completeLatency"));
  }
  const auto table = test::Run({{SparseBinary(), "stats", "-c", "count"}, sb.dir()});
  ASSERT_EQ(table.exit_code, 0) << table.err;
  EXPECT_EQ(table.out.rfind("component", 0), 0u) << table.out;
  EXPECT_NE(table.out.find("\ncount "), std::string::npos) << table.out;
  EXPECT_EQ(table.out.find("split"), std::string::npos) << table.out;
  const auto unknown = test::Run({{SparseBinary(), "stats", "-c", "nope"}, sb.dir()});
  EXPECT_EQ(unknown.exit_code, 1);
  EXPECT_NE(unknown.err.find("no component `nope`"), std::string::npos) << unknown.err;
  const auto by_url =
      test::Run({{SparseBinary(), "stats", "--json", "--url", run.url(), "--window", "600"},
                 fs::temp_directory_path()});
  EXPECT_EQ(by_url.exit_code, 0) << by_url.err;

  // Ctrl-C: it drains, prints the table, and removes its run-state file.
  ASSERT_EQ(run.Stop(), 0) << run.err();
  EXPECT_FALSE(fs::exists(sb.dir() / ".sparse" / "run.json"));
  for (const auto& id : kComponents) {
    EXPECT_NE(run.out().find("\n" + id + " "), std::string::npos) << run.out();
  }
  const auto gone = test::Run({{SparseBinary(), "stats"}, sb.dir()});
  EXPECT_EQ(gone.exit_code, 1);
  EXPECT_NE(gone.err.find("no running topology found"), std::string::npos) << gone.err;

  // `sparse tail`: the logs of the run that just ended (logs/ next to the topology).
  const auto audit = test::Run({{SparseBinary(), "tail", "audit", "-n", "1000"}, sb.dir()});
  ASSERT_EQ(audit.exit_code, 0) << audit.err;
  EXPECT_NE(audit.out.find("INFO audited 50 sentences"), std::string::npos) << audit.out;
  EXPECT_NE(audit.out.find("ERROR audit: sentence 100 looks suspicious"), std::string::npos);
  const auto all_logs = test::Run({{SparseBinary(), "tail", "-n", "5"}, sb.dir()});
  ASSERT_EQ(all_logs.exit_code, 0) << all_logs.err;
  std::istringstream lines(all_logs.out);
  int n = 0;
  // Every line carries its component; an entry starts with its time (an error's traceback
  // continues on lines of its own).
  const std::regex shape(R"((audit|count|sentences|split|__system)\s* \| .*)");
  const std::regex entry(R"([a-z_]+\s* \| \d{4}-\d\d-\d\d .*)");
  for (std::string l; std::getline(lines, l);) {
    EXPECT_TRUE(std::regex_match(l, shape)) << l;
    n += std::regex_match(l, entry);
  }
  EXPECT_EQ(n, 5) << all_logs.out;
  EXPECT_TRUE(sb.ProcessesInside().empty());
}

// The token `sparse run` prints at start for the page's buttons.
std::string ControlToken(const std::string& err) {
  std::smatch m;
  static const std::regex token(R"(control token ([0-9a-f]+))");
  return std::regex_search(err, m, token) ? m[1].str() : "";
}

TEST(WebView, DeactivateActivateAndKillWithTheToken) {
  Sandbox sb;
  LiveRun run(sb);
  ASSERT_TRUE(run.ok());
  const std::string token = ControlToken(run.err());
  ASSERT_EQ(token.size(), 64u) << run.err();
  const std::string base = run.url() + "api/v1/topology/webview/";
  auto post = [&](const std::string& op, const std::string& with) {
    std::map<std::string, std::string> headers;
    if (!with.empty()) headers["X-Sparse-Token"] = with;
    return web::HttpPost(base + op, headers);
  };
  // The page embeds the token so that its buttons work.
  const auto page = web::HttpGet(run.url());
  EXPECT_NE(page.body.find("<meta name=\"sparse-token\" content=\"" + token + "\">"),
            std::string::npos);

  // Without the token, or with another one: 403 in the API's error shape, and nothing changes.
  for (const std::string& bad : {std::string(), std::string(64, '0')}) {
    const auto refused = post("deactivate", bad);
    EXPECT_EQ(refused.status, 403) << refused.body;
    const json e = json::parse(refused.body);
    EXPECT_EQ(e["error"], "Forbidden");
    EXPECT_NE(e["errorMessage"].get<std::string>().find("X-Sparse-Token"), std::string::npos);
  }
  EXPECT_EQ(run.Get("api/v1/topology/summary")["topologies"][0]["status"], "ACTIVE");
  EXPECT_EQ(web::HttpGet(base + "deactivate").status, 405);  // a GET changes nothing
  EXPECT_EQ(post("kill/soon", token).status, 400);

  // Deactivated: the spout emits nothing new (once a `next` already asked for is answered)...
  const auto off = post("deactivate", token);
  ASSERT_EQ(off.status, 200) << off.body;
  EXPECT_EQ(json::parse(off.body)["status"], "success");
  // (The status is the next snapshot's, a second at most later.)
  json t;
  ASSERT_TRUE(WaitFor([&] {
    t = run.Get("api/v1/topology/webview");
    return t["status"] == "INACTIVE";
  }));
  EXPECT_EQ(t["active"], false);
  std::uint64_t stopped_at = 0;
  ASSERT_TRUE(WaitFor([&] {
    const auto before = Num(run.Get("api/v1/topology/webview"), "sentences", "emitted");
    std::this_thread::sleep_for(std::chrono::milliseconds(1500));
    stopped_at = Num(run.Get("api/v1/topology/webview"), "sentences", "emitted");
    return stopped_at == before;
  }));
  // ... for several status reports (it emits ~200 a second when active).
  std::this_thread::sleep_for(std::chrono::seconds(3));
  EXPECT_EQ(Num(run.Get("api/v1/topology/webview"), "sentences", "emitted"), stopped_at);

  // Activated: it goes on.
  ASSERT_EQ(post("activate", token).status, 200);
  ASSERT_TRUE(WaitFor(
      [&] { return run.Get("api/v1/topology/summary")["topologies"][0]["status"] == "ACTIVE"; }));
  ASSERT_TRUE(WaitFor([&] {
    return Num(run.Get("api/v1/topology/webview"), "sentences", "emitted") > stopped_at;
  }));

  // Kill: stops the run as Ctrl-C does (drain, summary, exit 0).
  ASSERT_EQ(post("kill/0", token).status, 200);
  EXPECT_EQ(run.Wait(), 0) << run.err();
  EXPECT_NE(run.err().find("killed from the web view"), std::string::npos) << run.err();
  EXPECT_NE(run.out().find("\nsentences "), std::string::npos) << run.out();
  EXPECT_TRUE(sb.ProcessesInside().empty());
}

TEST(WebView, NoUiAndABusyPort) {
  Sandbox sb;
  sb.Write("topo.yaml", WebTopology());
  const auto quiet =
      test::Run({{SparseBinary(), "run", "topo.yaml", "-t", "1", "--no-ui"}, sb.dir()});
  EXPECT_EQ(quiet.exit_code, 0) << quiet.err;
  EXPECT_EQ(quiet.err.find("web view:"), std::string::npos) << quiet.err;
  EXPECT_FALSE(fs::exists(sb.dir() / ".sparse" / "run.json"));

  LiveRun run(sb);
  ASSERT_TRUE(run.ok());
  const std::string port = std::to_string(run.state()["port"].get<int>());
  const auto busy = test::Run({{SparseBinary(), "run", "topo.yaml", "--ui-port", port}, sb.dir()});
  EXPECT_EQ(busy.exit_code, 1);
  EXPECT_NE(busy.err.find("web view: cannot listen on 127.0.0.1:" + port), std::string::npos)
      << busy.err;
  const auto bad =
      test::Run({{SparseBinary(), "run", "topo.yaml", "--ui-bind", "nowhere"}, sb.dir()});
  EXPECT_EQ(bad.exit_code, 1);
  EXPECT_NE(bad.err.find("`nowhere` is not an IP address"), std::string::npos) << bad.err;
  EXPECT_EQ(run.Stop(), 0);
}

// Issue 15: with --ui-bind 0.0.0.0 the URL printed was http://0.0.0.0:PORT/, no place to browse
// to. It is now a loopback URL that answers, and the machine's name for other machines.
TEST(WebView, AWildcardBindPrintsUrlsThatWork) {
  Sandbox sb;
  sb.Write("topo.yaml", WebTopology());
  const auto run = test::Run(
      {{SparseBinary(), "run", "topo.yaml", "-t", "1", "--ui-bind", "0.0.0.0"}, sb.dir()});
  EXPECT_EQ(run.exit_code, 0) << run.err;
  EXPECT_NE(run.err.find("web view: http://127.0.0.1:"), std::string::npos) << run.err;
  EXPECT_NE(run.err.find("web view from other machines: http://"), std::string::npos) << run.err;
  EXPECT_EQ(run.err.find("http://0.0.0.0"), std::string::npos) << run.err;
}

TEST(Stats, IgnoresTheStateFileOfARunThatDied) {
  Sandbox sb;
  // A run killed with -9 leaves its file behind; its pid belongs to no process any more.
  test::Child gone({{"/bin/true"}, sb.dir()}, sb.dir() / "true.out", sb.dir() / "true.err");
  ASSERT_EQ(gone.WaitOrKill(std::chrono::seconds(10)), 0);
  fs::create_directories(sb.dir() / ".sparse");
  sb.Write(".sparse/run.json", json{{"pid", gone.pid()},
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
  const auto r = test::Run({{SparseBinary(), "stats"}, sb.dir() / "deeper"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("no running topology found"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("is left from a run that has ended"), std::string::npos) << r.err;
}

TEST(Visualize, DotSvgPngAndAClearErrorWithoutGraphviz) {
  Sandbox sb;
  sb.Write("topo.yaml", WebTopology());
  const auto dot = test::Run({{SparseBinary(), "visualize", "topo.yaml"}, sb.dir()});
  ASSERT_EQ(dot.exit_code, 0) << dot.err;
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
      test::Run({{SparseBinary(), "visualize", "topo.yaml", "-o", "t.dot"}, sb.dir()});
  ASSERT_EQ(to_file.exit_code, 0) << to_file.err;
  EXPECT_EQ(ReadFile(sb.dir() / "t.dot"), dot.out);

  // Without Graphviz (nothing on PATH): a clear error for svg, DOT still works.
  const std::map<std::string, std::string> no_path = {{"PATH", (sb.dir() / "empty").string()}};
  const auto missing =
      test::Run({{SparseBinary(), "visualize", "topo.yaml", "-f", "svg"}, sb.dir(), no_path});
  EXPECT_EQ(missing.exit_code, 1);
  EXPECT_NE(missing.err.find("needs Graphviz's `dot`, which is not installed"), std::string::npos)
      << missing.err;
  EXPECT_EQ(test::Run({{SparseBinary(), "visualize", "topo.yaml"}, sb.dir(), no_path}).exit_code,
            0);

  const auto bad = test::Run({{SparseBinary(), "visualize", "topo.yaml", "-f", "gif"}, sb.dir()});
  EXPECT_EQ(bad.exit_code, 1);
  EXPECT_NE(bad.err.find("-f must be dot, svg or png"), std::string::npos);
  sb.Write("broken.yaml", "name: x\nbolts:\n  - {id: b, command: [x], inputs: [{from: nope}]}\n");
  EXPECT_EQ(test::Run({{SparseBinary(), "visualize", "broken.yaml"}, sb.dir()}).exit_code, 2);

  if (::access("/usr/bin/dot", X_OK) != 0) {
    GTEST_SKIP() << "Graphviz is not installed (scripts/setup.sh installs it): svg/png unchecked";
  }
  const auto svg = test::Run({{SparseBinary(), "visualize", "topo.yaml", "-o", "t.svg"}, sb.dir()});
  ASSERT_EQ(svg.exit_code, 0) << svg.err;
  const std::string svg_text = ReadFile(sb.dir() / "t.svg");
  EXPECT_NE(svg_text.find("<svg"), std::string::npos);
  EXPECT_NE(svg_text.find(">sentences</text>"), std::string::npos);
  EXPECT_NE(svg_text.find("fields(word)"), std::string::npos);
  const auto png =
      test::Run({{SparseBinary(), "visualize", "topo.yaml", "-f", "png", "-o", "t.png"}, sb.dir()});
  ASSERT_EQ(png.exit_code, 0) << png.err;
  EXPECT_EQ(ReadFile(sb.dir() / "t.png").substr(0, 8), "\x89PNG\r\n\x1a\n");
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
  const auto all = test::Run({{SparseBinary(), "tail", "-n", "4"}, sb.dir()});
  ASSERT_EQ(all.exit_code, 0) << all.err;
  EXPECT_EQ(all.out,
            "bb | 2030-01-01 10:00:00.200 task=2 INFO bb one\n"
            "a  | 2030-01-01 10:00:00.300 task=1 FAILURE stderr tail:\n"
            "a  | Traceback (most recent call last):\n"
            "a  |   boom\n"
            "bb | 2030-01-01 10:00:00.400 task=2 WARN bb two\n"
            "a  | 2030-01-01 10:00:00.500 task=1 INFO a three\n");
  const auto one = test::Run({{SparseBinary(), "tail", "bb", "-n", "1"}, sb.dir()});
  EXPECT_EQ(one.out, "2030-01-01 10:00:00.400 task=2 WARN bb two\n");
  const auto missing = test::Run({{SparseBinary(), "tail", "zz"}, sb.dir()});
  EXPECT_EQ(missing.exit_code, 1);
  EXPECT_NE(missing.err.find("no log of `zz`"), std::string::npos) << missing.err;
  EXPECT_NE(missing.err.find("there are: a bb"), std::string::npos) << missing.err;

  // -f: what is appended (to an existing log or a new one) is printed as it comes.
  test::Child follow({{SparseBinary(), "tail", "-f", "-n", "1"}, sb.dir()}, sb.dir() / "follow.out",
                     sb.dir() / "follow.err");
  ASSERT_TRUE(WaitFor([&] { return follow.Stdout().find("a three") != std::string::npos; }))
      << follow.Stderr();
  {
    std::ofstream(sb.dir() / "logs" / "bb.log", std::ios::app)
        << "2030-01-01 10:00:01.000 task=2 INFO bb later\n";
    std::ofstream(sb.dir() / "logs" / "c.log") << "2030-01-01 10:00:02.000 task=3 INFO c new\n";
  }
  const bool followed = WaitFor([&] {
    const std::string out = follow.Stdout();
    return out.find("bb later") != std::string::npos && out.find("c new") != std::string::npos;
  });
  follow.Signal(SIGTERM);
  follow.WaitOrKill(std::chrono::seconds(10));
  EXPECT_TRUE(followed) << follow.Stdout();
  EXPECT_EQ(follow.Stdout().find("a one"), std::string::npos);  // -n 1
}

}  // namespace
}  // namespace sparse::testing
