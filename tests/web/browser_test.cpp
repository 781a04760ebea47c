// The web page in a real browser: Debian's chromium, headless, loads the page of a running
// topology, shows every component (graph and tables), and its numbers move while it runs.
#include <gtest/gtest.h>

#include <regex>

#include "live_run.hpp"

namespace sparse::testing {
namespace {

namespace fs = std::filesystem;

std::string Chromium() {
  for (const char* p : {"/usr/bin/chromium", "/usr/bin/chromium-browser"}) {
    if (::access(p, X_OK) == 0) return p;
  }
  return "";
}

// Loads `url` in headless chromium, lets its scripts run, and returns the DOM (or writes a
// screenshot when `screenshot` is set).
std::string Browse(const Sandbox& sb, const std::string& url, const std::string& name,
                   const std::string& screenshot = "") {
  std::vector<std::string> argv = {Chromium(),
                                   "--headless",
                                   "--no-sandbox",
                                   "--disable-gpu",
                                   "--disable-dev-shm-usage",
                                   "--disable-background-networking",
                                   "--disable-component-update",
                                   "--disable-sync",
                                   "--no-first-run",
                                   "--user-data-dir=" + (sb.dir() / ("profile-" + name)).string(),
                                   "--virtual-time-budget=4000",
                                   "--window-size=1400,1500"};
  argv.push_back(screenshot.empty() ? "--dump-dom" : "--screenshot=" + screenshot);
  argv.push_back(url);
  const auto r = RunToEnd(argv, sb.dir(), "chromium-" + name, {}, std::chrono::seconds(60));
  EXPECT_EQ(r.code, 0) << r.err;
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
  ASSERT_TRUE(WaitUntil([&] {
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
  ASSERT_TRUE(WaitUntil([&] {
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
  ASSERT_TRUE(WaitUntil([&] {
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
  EXPECT_EQ(Slurp(png).substr(0, 8), "\x89PNG\r\n\x1a\n");
  EXPECT_EQ(run.Stop(), 0);
}

}  // namespace
}  // namespace sparse::testing
