// A `sparse run` of a small endless topology in the background of a sandbox, found (as
// `sparse stats` finds it) through its .sparse/run.json, with JSON from its web view.
#pragma once

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <optional>

#include "harness.hpp"
#include "support/wait_for.hpp"
#include "web/http_client.hpp"

namespace sparse::testing {

using test::WaitFor;

// A component of tests/web's web_components.py (harness.hpp's Py is the integration tests').
inline std::string WebPy(const std::string& cls) {
  return "[python3, -m, sparse_multilang.run, web_components:" + cls + "]";
}

// sentences -> split (x2, shuffle) -> count (x2, fields on word); sentences -> audit (all).
inline std::string WebTopology() {
  return "name: webview\n"
         "spouts:\n"
         "  - {id: sentences, command: " +
         WebPy("EndlessSentences") +
         ", outputs: [sentence]}\n"
         "bolts:\n"
         "  - {id: split, command: " +
         WebPy("Split") +
         ", parallelism: 2, outputs: [word],\n"
         "     inputs: [{from: sentences, grouping: shuffle}]}\n"
         "  - {id: count, command: " +
         WebPy("Count") +
         ", parallelism: 2, outputs: [word, count],\n"
         "     inputs: [{from: split, grouping: fields, fields: [word]}]}\n"
         "  - {id: audit, command: " +
         WebPy("Audit") +
         ",\n"
         "     inputs: [{from: sentences, grouping: all}]}\n";
}

inline const std::vector<std::string> kComponents = {"audit", "count", "sentences", "split"};

class LiveRun {
 public:
  // Starts `sparse run topo.yaml ARGS` and waits until its web view reports it running.
  LiveRun(const Sandbox& sb, std::vector<std::string> extra = {}) : sb_(sb) {
    sb.Write("topo.yaml", WebTopology());
    test::Command command{{SparseBinary(), "run", "topo.yaml", "-t", "90"}, sb.dir(), {}};
    command.argv.insert(command.argv.end(), extra.begin(), extra.end());
    child_ = test::Child(command, sb.dir() / "run.out", sb.dir() / "run.err");
    const auto state_file = sb.dir() / ".sparse" / "run.json";
    const bool found = WaitFor([&] {
      if (!std::filesystem::exists(state_file)) return false;
      state_ = nlohmann::json::parse(ReadFile(state_file), nullptr, false);
      return !state_.is_discarded();
    });
    if (!found) {
      ADD_FAILURE() << "no " << state_file << "; stderr:\n" << child_.Stderr();
      return;
    }
    url_ = state_.value("url", "");
    const bool running = WaitFor([&] {
      auto s = TryGet("api/v1/topology/summary");
      return s && (*s)["topologies"][0]["state"] == "running";
    });
    if (!running) ADD_FAILURE() << "never running; stderr:\n" << child_.Stderr();
  }

  const nlohmann::json& state() const { return state_; }
  const std::string& url() const { return url_; }
  pid_t pid() const { return child_.pid(); }
  bool ok() const { return !url_.empty(); }

  std::optional<nlohmann::json> TryGet(const std::string& path) const {
    try {
      auto r = web::HttpGet(url_ + path);
      if (r.status != 200) return std::nullopt;
      return nlohmann::json::parse(r.body);
    } catch (const std::exception&) {
      return std::nullopt;
    }
  }
  nlohmann::json Get(const std::string& path) const {
    const auto r = web::HttpGet(url_ + path);
    EXPECT_EQ(r.status, 200) << path << ": " << r.body;
    return nlohmann::json::parse(r.body);
  }

  // Ctrl-C: drain and stop. Returns the exit code; stdout/stderr afterwards.
  int Stop() {
    child_.Signal(SIGINT);
    return child_.WaitOrKill(std::chrono::seconds(60));
  }
  // Waits for the run to end by itself (a kill from the web view). Returns the exit code.
  int Wait() { return child_.WaitOrKill(std::chrono::seconds(60)); }
  std::string out() const { return child_.Stdout(); }
  std::string err() const { return child_.Stderr(); }

 private:
  const Sandbox& sb_;
  test::Child child_;  // killed, if still running, when the run goes away
  nlohmann::json state_;
  std::string url_;
};

// The component of that id in a topology document's spouts or bolts.
inline nlohmann::json Component(const nlohmann::json& topology, const std::string& id) {
  for (const char* list : {"spouts", "bolts"}) {
    for (const auto& c : topology[list]) {
      if (c["id"] == id) return c;
    }
  }
  return nullptr;
}

}  // namespace sparse::testing
