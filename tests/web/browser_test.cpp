// The web page in a real browser: Debian's chromium, headless, loads the page of a running
// topology, shows every component (graph and tables), and its numbers move while it runs; driven
// over the DevTools protocol (cdp.hpp), it shows gauges, charts, grouped errors with their
// traceback on a click, a component's tasks and streams, the configuration, and its buttons
// deactivate, activate and kill the run.
#include <gtest/gtest.h>

#include <regex>

#include "cdp.hpp"
#include "live_run.hpp"

namespace sparse::testing {
namespace {

namespace fs = std::filesystem;

// Loads `url` in headless chromium, lets its scripts run, and returns the DOM (or writes a
// screenshot when `screenshot` is set).
std::string Browse(const Sandbox& sb, const std::string& url, const std::string& name,
                   const std::string& screenshot = "") {
  std::vector<std::string> argv = HeadlessChromium(sb.dir() / ("profile-" + name));
  argv.push_back("--virtual-time-budget=4000");
  argv.push_back(screenshot.empty() ? "--dump-dom" : "--screenshot=" + screenshot);
  argv.push_back(url);
  const auto r = test::Run({argv, sb.dir()}, std::chrono::seconds(60));
  EXPECT_EQ(r.exit_code, 0) << r.err;
  return r.out;
}

// The value of `field` in the table row of `component`, as the page wrote it.
std::optional<std::uint64_t> Cell(const std::string& dom, const std::string& component,
                                  const std::string& field) {
  const std::regex row("<tr data-component=\"" + component + "\">(.*?)</tr>");
  std::smatch m;
  if (!std::regex_search(dom, m, row)) return std::nullopt;
  const std::string cells = m[1];
  const std::regex cell("data-field=\"" + field + "\" data-value=\"([0-9]+)\"");
  if (!std::regex_search(cells, m, cell)) return std::nullopt;
  return std::stoull(m[1]);
}

TEST(Browser, PageShowsEveryComponentAndTheNumbersMove) {
  const std::string chromium = Chromium();
  ASSERT_FALSE(chromium.empty())
      << "chromium is not installed: `apt-get install chromium` (scripts/setup.sh installs it); "
         "this test drives the web view in a real headless browser";
  Sandbox sb;
  LiveRun run(sb);
  ASSERT_TRUE(run.ok());
  ASSERT_TRUE(WaitFor([&] {
    auto t = run.TryGet("api/v1/topology/webview");
    return t && Component(*t, "count")["executed"].get<std::uint64_t>() > 0;
  }));

  const std::string first = Browse(sb, run.url(), "first");
  ASSERT_NE(first.find("<h1 id=\"topology-name\">webview</h1>"), std::string::npos) << first;
  EXPECT_NE(first.find("class=\"state running\""), std::string::npos);
  for (const auto& id : kComponents) {
    EXPECT_NE(first.find("data-node=\"" + id + "\""), std::string::npos) << id << " not in graph";
    EXPECT_NE(first.find("<tr data-component=\"" + id + "\">"), std::string::npos)
        << id << " not in the tables";
  }
  // Spouts and bolts are told apart, edges are labelled.
  EXPECT_NE(first.find("class=\"node spout\" data-node=\"sentences\""), std::string::npos);
  EXPECT_NE(first.find("class=\"node bolt\" data-node=\"count\""), std::string::npos);
  EXPECT_NE(first.find(">fields(word)</text>"), std::string::npos);
  EXPECT_NE(first.find(">shuffle</text>"), std::string::npos);
  const auto emitted = Cell(first, "sentences", "emitted");
  const auto executed = Cell(first, "count", "executed");
  ASSERT_TRUE(emitted && executed) << first;

  // Once the topology has provably moved on, a second page load shows bigger numbers.
  ASSERT_TRUE(WaitFor([&] {
    auto t = run.TryGet("api/v1/topology/webview");
    return t && Component(*t, "sentences")["emitted"].get<std::uint64_t>() > *emitted &&
           Component(*t, "count")["executed"].get<std::uint64_t>() > *executed;
  }));
  const std::string second = Browse(sb, run.url(), "second");
  const auto emitted2 = Cell(second, "sentences", "emitted");
  const auto executed2 = Cell(second, "count", "executed");
  ASSERT_TRUE(emitted2 && executed2) << second;
  EXPECT_GT(*emitted2, *emitted);
  EXPECT_GT(*executed2, *executed);

  // The errors the audit bolt reports reach the page...
  ASSERT_TRUE(WaitFor([&] {
    auto t = run.TryGet("api/v1/topology/webview");
    return t && !(*t)["recentErrors"].empty();
  }));
  // ... and so does a component's details, linked to by address.
  const std::string third = Browse(sb, run.url() + "#component=count", "third");
  EXPECT_NE(third.find("looks suspicious"), std::string::npos);
  EXPECT_NE(third.find("<span id=\"details-name\">count (bolt)</span>"), std::string::npos)
      << third;
  EXPECT_NE(third.find("<td class=\"text\">fields(word)</td>"), std::string::npos) << third;

  // A screenshot renders (kept when SPARSE_WEB_SCREENSHOT names a file, for people to look at).
  const char* keep = std::getenv("SPARSE_WEB_SCREENSHOT");
  const std::string png = keep ? keep : (sb.dir() / "page.png").string();
  Browse(sb, run.url(), "shot", png);
  EXPECT_EQ(ReadFile(png).substr(0, 8), "\x89PNG\r\n\x1a\n");
  EXPECT_EQ(run.Stop(), 0);
}

// A page of the run open in chromium, driven over the DevTools protocol, once it has drawn.
class DrivenPage {
 public:
  DrivenPage(const Sandbox& sb, const std::string& url, const std::string& name)
      : cdp_(sb.dir() / ("profile-" + name), sb.dir()) {
    ok_ = cdp_.ok() && cdp_.Open(url) && cdp_.WaitFor("!!document.body.dataset.updated");
  }
  bool ok() const { return ok_; }
  Cdp& cdp() { return cdp_; }
  // The value of a JavaScript expression, or null when it throws.
  nlohmann::json Value(const std::string& expression) {
    return cdp_.Eval(expression).value_or(nlohmann::json());
  }

 private:
  Cdp cdp_;
  bool ok_ = false;
};

TEST(Browser, ShowsGaugesChartsGroupedErrorsTasksAndConfiguration) {
  ASSERT_FALSE(Chromium().empty()) << "chromium is not installed (scripts/setup.sh installs it)";
  Sandbox sb;
  LiveRun run(sb);
  ASSERT_TRUE(run.ok());
  DrivenPage page(sb, run.url(), "driven");
  ASSERT_TRUE(page.ok()) << ReadFile(sb.dir() / "chromium-cdp.err");
  Cdp& cdp = page.cdp();

  // Gauges: a Kafka-style lag as a row per partition, the others as component / name / value.
  ASSERT_TRUE(
      cdp.WaitFor("!!document.querySelector('#partitions tr[data-component=\"count\"]"
                  "[data-partition=\"words-0\"] td[data-field=\"lag\"][data-value=\"14\"]')"));
  ASSERT_TRUE(cdp.WaitFor(
      "Number((document.querySelector('#gauges tr[data-component=\"count\"]"
      "[data-gauge=\"distinct_words\"] td[data-value]') || {dataset: {}}).dataset.value) > 0"));
  EXPECT_EQ(page.Value("document.getElementById('gauges-panel').hidden"), false);

  // Charts of throughput, complete latency and capacity, drawn from the history.
  ASSERT_TRUE(cdp.WaitFor(
      "(() => { const l = document.querySelector('svg[data-chart=\"throughput\"] "
      "polyline[data-series=\"emitted\"]'); return !!l && Number(l.dataset.points) >= 2 && "
      "Number(l.dataset.last) > 0; })()"));
  EXPECT_EQ(page.Value("!!document.querySelector('svg[data-chart=\"latency\"] polyline')"), true);
  for (const char* bolt : {"audit", "count", "split"}) {
    EXPECT_EQ(page.Value(std::string("!!document.querySelector('svg[data-chart=\"capacity\"] "
                                     "polyline[data-series=\"") +
                         bolt + "\"]')"),
              true)
        << bolt;
  }

  // Errors: the audit bolt's repeats are one row with a count, its first line shown and the
  // traceback hidden until the row is clicked.
  ASSERT_TRUE(
      cdp.WaitFor("Number((document.querySelector('#errors tr[data-component=\"audit\"]') || "
                  "{dataset: {}}).dataset.count) >= 2"));
  EXPECT_EQ(page.Value("document.querySelectorAll('#errors tbody tr').length"), 1);
  const std::string summary = "document.querySelector('#errors details summary')";
  const std::string pre = "document.querySelector('#errors details pre')";
  EXPECT_EQ(page.Value(summary + ".textContent").get<std::string>().find("audit: sentence "), 0u);
  EXPECT_EQ(page.Value("document.querySelector('#errors details').open"), false);
  EXPECT_EQ(page.Value(pre + ".checkVisibility()"), false) << "the traceback shows before a click";
  ASSERT_TRUE(page.Value(summary + ".click(), true").is_boolean());
  EXPECT_EQ(page.Value("document.querySelector('#errors details').open"), true);
  EXPECT_EQ(page.Value(pre + ".checkVisibility()"), true);
  EXPECT_NE(page.Value(pre + ".textContent").get<std::string>().find("ValueError: suspicious"),
            std::string::npos);
  // The bolts table shows only the first line of the last error too.
  const std::string last_error =
      page.Value(
              "document.querySelector('#bolts tr[data-component=\"audit\"] "
              "td[data-field=\"lastError\"]').textContent")
          .get<std::string>();
  EXPECT_EQ(last_error.find("audit: sentence "), 0u) << last_error;
  EXPECT_EQ(last_error.find("Traceback"), std::string::npos) << last_error;
  // It stays open across the next redraws.
  const auto updated = page.Value("document.body.dataset.updated");
  ASSERT_TRUE(cdp.WaitFor("document.body.dataset.updated !== " + updated.dump()));
  EXPECT_EQ(page.Value("document.querySelector('#errors details').open"), true);

  // A component's tasks and streams, after a click on its row.
  ASSERT_TRUE(
      page.Value("document.querySelector('#bolts tr[data-component=\"count\"]').click(), true")
          .is_boolean());
  ASSERT_TRUE(
      cdp.WaitFor("document.querySelectorAll('#details-body table.tasks tr[data-task]')"
                  ".length === 2"));
  EXPECT_EQ(page.Value("Number(document.querySelector('#details-body table.tasks "
                       "tr[data-task] td[data-field=\"executed\"]').dataset.value) > 0"),
            true);
  EXPECT_NE(page.Value("document.getElementById('details-body').textContent")
                .get<std::string>()
                .find("Output stats"),
            std::string::npos);

  // The configuration, a row per key.
  EXPECT_EQ(page.Value("!!document.querySelector('#configuration "
                       "tr[data-config-key=\"topology.message.timeout.secs\"]')"),
            true)
      << page.Value("document.getElementById('configuration').textContent").dump();
  EXPECT_EQ(run.Stop(), 0);
}

TEST(Browser, ButtonsDeactivateActivateAndKillTheRun) {
  ASSERT_FALSE(Chromium().empty()) << "chromium is not installed (scripts/setup.sh installs it)";
  Sandbox sb;
  LiveRun run(sb);
  ASSERT_TRUE(run.ok());
  DrivenPage page(sb, run.url(), "buttons");
  ASSERT_TRUE(page.ok()) << ReadFile(sb.dir() / "chromium-cdp.err");
  Cdp& cdp = page.cdp();
  auto status = [&] { return run.Get("api/v1/topology/summary")["topologies"][0]["status"]; };
  auto click = [&](const char* id) {
    return page.Value(std::string("document.getElementById('") + id + "').click(), true");
  };

  EXPECT_EQ(page.Value("document.getElementById('run-controls').hidden"), false);
  ASSERT_TRUE(cdp.WaitFor("!document.getElementById('deactivate').disabled"));
  click("deactivate");
  ASSERT_TRUE(WaitFor([&] { return status() == "INACTIVE"; }));
  ASSERT_TRUE(cdp.WaitFor("document.getElementById('state').textContent === 'inactive'"));
  ASSERT_TRUE(cdp.WaitFor("!document.getElementById('activate').disabled"));
  click("activate");
  ASSERT_TRUE(WaitFor([&] { return status() == "ACTIVE"; }));

  // Kill takes two clicks.
  click("kill");
  EXPECT_EQ(page.Value("document.getElementById('kill').textContent"), "really kill?");
  EXPECT_EQ(status(), "ACTIVE");
  click("kill");
  EXPECT_EQ(run.Wait(), 0) << run.err();
  EXPECT_NE(run.err().find("killed from the web view"), std::string::npos) << run.err();
}

}  // namespace
}  // namespace sparse::testing
