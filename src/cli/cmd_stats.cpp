// `sparse stats`: the numbers of a running topology, printed with the same table as the end of
// `sparse run`, or as JSON in the web API's key names. A `sparse run` here is read through its
// web view; a Storm cluster topology (-e/--nimbus) through Nimbus's getTopologyPageInfo, the
// numbers Storm's UI shows (storm/page_stats).
#include <cctype>
#include <iostream>
#include <nlohmann/json.hpp>

#include "cli/console.hpp"
#include "cli/observability_commands.hpp"
#include "cli/run_observability.hpp"
#include "cli/storm_commands.hpp"
#include "storm/page_stats.hpp"
#include "web/api.hpp"
#include "web/http_client.hpp"

namespace sparse::cli {

namespace fs = std::filesystem;

namespace {

struct StatsArgs {
  NimbusTarget cluster;
  std::string name;  // streamparse's -n: the topology, checked against the running one
  bool all = false;  // streamparse's --all: every component (overrides -c)
  std::string component;
  bool json = false;
  std::string url;
  std::string window = ":all-time";
};

// Percent-encodes a URL path segment.
std::string Encode(std::string_view s) {
  static const char* hex = "0123456789ABCDEF";
  std::string out;
  for (const char ch : s) {
    const auto c = static_cast<unsigned char>(ch);
    if (std::isalnum(c) || c == '-' || c == '_' || c == '.' || c == '~') {
      out += static_cast<char>(c);
    } else {
      out += '%';
      out += hex[c >> 4];
      out += hex[c & 15];
    }
  }
  return out;
}

nlohmann::json GetJson(const std::string& url) {
  const web::HttpResult r = web::HttpGet(url);
  nlohmann::json j = nlohmann::json::parse(r.body, nullptr, false);
  if (r.status != 200) {
    const std::string why = j.is_object() && j.contains("errorMessage")
                                ? j["errorMessage"].get<std::string>()
                                : r.body.substr(0, 200);
    throw std::runtime_error(url + ": HTTP " + std::to_string(r.status) + ": " + why);
  }
  if (j.is_discarded()) throw std::runtime_error(url + ": the answer is not JSON");
  return j;
}

// The web view's base URL, from --url or the run-state file of a run in this folder.
std::string BaseUrl(const StatsArgs& args) {
  std::string url = args.url;
  if (url.empty()) {
    std::optional<fs::path> stale;
    const auto run = FindRun(fs::current_path(), &stale);
    if (!run) {
      std::string msg =
          "no running topology found here: start one with `sparse run` in this folder (or a "
          "parent), or give the web view's address with --url";
      if (stale) msg += " (" + stale->string() + " is left from a run that has ended)";
      throw std::runtime_error(msg);
    }
    if (run->state.url.empty()) {
      throw std::runtime_error("the run of " + run->state.topology + " (pid " +
                               std::to_string(run->state.pid) +
                               ") has no web view: it was started with --no-ui");
    }
    url = run->state.url;
  }
  if (url.back() != '/') url += '/';
  return url;
}

// Keeps only the component asked for (-c without --all); false, having said so, when there is
// none of that name.
bool SelectComponent(const StatsArgs& args, runtime::ClusterSnapshot& snapshot,
                     const std::string& where) {
  if (args.component.empty() || args.all) return true;
  std::string known;
  for (const auto& c : snapshot.components) known += " " + c.id;
  std::erase_if(snapshot.components, [&](const auto& c) { return c.id != args.component; });
  if (!snapshot.components.empty()) return true;
  std::cerr << "sparse: error: no component `" << args.component << "` in " << where
            << "; it has:" << known << "\n";
  return false;
}

int Print(const StatsArgs& args, const runtime::ClusterSnapshot& snapshot, const std::string& name,
          const std::string& header) {
  if (args.json) {
    std::cout << web::SnapshotJson(snapshot, name).dump(2) << "\n";
    return kExitOk;
  }
  std::cerr << header << "\n";
  PrintSummary(std::cout, snapshot);
  return kExitOk;
}

// A topology on a Storm cluster: Storm's own numbers for the window, from the leader Nimbus.
int ClusterStats(const StatsArgs& args) {
  const std::string window = args.window == "all-time" ? ":all-time" : args.window;
  if (!storm::IsStormWindow(window)) {
    throw base::Error(base::Errc::kUsage,
                      "--window " + args.window +
                          ": Storm keeps a cluster topology's numbers for 600, 10800 or "
                          "86400 seconds, or :all-time");
  }
  const std::string name = ClusterTopologyName(args.name, "show");
  auto client = ConnectLeader(args.cluster.Seeds(), MakeClientOptions(args.cluster.timeout_secs));
  const std::string nimbus = "Nimbus " + client->address().ToString();
  std::string id, running;
  for (const auto& t : client->GetClusterInfo().topologies) {
    if (t.name == name) id = t.id;
    running += " " + t.name;
  }
  if (id.empty()) {
    throw base::Error(base::Errc::kNotFound,
                      "no topology `" + name + "` on " + nimbus +
                          (running.empty() ? " (it runs none)" : "; it runs:" + running));
  }
  const auto page = client->GetTopologyPageInfo(id, window);
  const auto now = std::chrono::duration_cast<std::chrono::seconds>(
                       std::chrono::system_clock::now().time_since_epoch())
                       .count();
  runtime::ClusterSnapshot snapshot = storm::SnapshotFromPageInfo(page, now);
  if (!SelectComponent(args, snapshot, id)) return ExitCode(base::Errc::kNotFound);
  return Print(args, snapshot, name,
               "topology " + name + " (" + id + "): " + (page.__isset.status ? page.status : "?") +
                   ", up " + UptimeText(page.uptime_secs) + "; window " + window + " (" + nimbus +
                   "; Storm samples its counts, topology.stats.sample.rate)");
}

int Stats(const StatsArgs& args) {
  if (!args.cluster.nimbus.empty() || !args.cluster.env.empty()) return ClusterStats(args);
  const std::string url = BaseUrl(args);
  const auto summary = GetJson(url + "api/v1/topology/summary");
  const auto& topologies = summary.at("topologies");
  if (topologies.empty()) throw std::runtime_error(url + " serves no topology");
  const std::string id = topologies[0].at("id").get<std::string>();
  const auto topology =
      GetJson(url + "api/v1/topology/" + Encode(id) + "?window=" + Encode(args.window));
  runtime::ClusterSnapshot snapshot = web::SnapshotFromTopologyJson(topology);
  const std::string name = topology.at("name").get<std::string>();
  if (!args.name.empty() && args.name != name) {
    std::cerr << "sparse: error: the topology running here is `" << name << "`, not `" << args.name
              << "` (" << url << ")\n";
    return ExitCode(base::Errc::kNotFound);
  }
  if (!SelectComponent(args, snapshot, id)) return ExitCode(base::Errc::kNotFound);
  return Print(args, snapshot, name,
               "topology " + name + ": " + snapshot.state + ", up " +
                   topology.at("uptime").get<std::string>() + "; window " +
                   topology.at("windowHint").get<std::string>() + " (" + url + ")");
}

}  // namespace

void RegisterStats(CLI::App& app, Action& action) {
  auto args = std::make_shared<StatsArgs>();
  CLI::App* cmd = app.add_subcommand("stats", "Show the statistics of a running topology");
  cmd->footer(
      R"(Finds the topology that `sparse run` is running in this folder (or a parent) through
its .sparse/run.json, and prints the same table as the end of the run. With -e/--nimbus, the
topology of that name on a Storm cluster (default: the project's), with the numbers Storm's UI
shows for the window (600, 10800, 86400 or :all-time), read from Nimbus.

Examples:
  sparse stats                    every component, since the start of the run
  sparse stats -c count --json    one component, as JSON
  sparse stats -n wordcount --all   streamparse's flags: the topology, every component
  sparse stats --window 600       the last 10 minutes
  sparse stats --url http://127.0.0.1:8080/
  sparse stats -n wordcount -e prod --window 600   a topology on Storm, the last 10 minutes)");
  cmd->add_option("-n,--name", args->name,
                  "The topology (streamparse's flag): checked against the one running here");
  cmd->add_option("-c,--component", args->component, "Only this component");
  cmd->add_flag("--all", args->all, "Every component, even with -c (streamparse's flag)");
  cmd->add_flag("--json", args->json,
                "Print JSON, in the key names of the web view's API (/api/v1/topology/<id>)");
  AddNimbusOptions(cmd, args->cluster, "-e,--env,--environment");
  cmd->add_option("--url", args->url, "The web view's address (default: from .sparse/run.json)");
  cmd->add_option("--window", args->window,
                  "Seconds up to now (1-600; on Storm 600, 10800 or 86400), or :all-time "
                  "(default: :all-time)");
  cmd->callback([args, &action] { action = [args] { return Stats(*args); }; });
}

}  // namespace sparse::cli
