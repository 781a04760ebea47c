// streamparse's cluster views, answered by Nimbus over Thrift (streamparse asked Storm UI's REST
// API; Nimbus has the same facts and is already what sparse talks to):
//
//   sparse worker_uptime [-n NAME]   every worker (host:port) of every running topology, with
//                                    its uptime and the components it runs (getClusterInfo,
//                                    then getTopologyInfo per topology)
//   sparse slot_usage [-n NAME]      every supervisor's worker slots: total, used, free, and
//                                    which topologies (only NAME) use them (getClusterInfo's
//                                    supervisors and each topology's workers)
//
// A worker is one (host, port) of a topology's executors; its uptime is its oldest executor's.
// A topology that is gone between the two calls (NotAlive) is left out. `--json` prints the
// same facts as JSON.
#include <iostream>
#include <map>
#include <set>

#include "cli/storm_commands.hpp"

namespace sparse::cli {

namespace {

namespace gen = storm::gen;

struct Worker {
  std::string topology;
  std::string host;
  int port = 0;
  std::optional<int> uptime;
  int executors = 0;
  std::set<std::string> components;
};

struct Usage {
  gen::ClusterSummary cluster;
  std::vector<Worker> workers;  // by topology name, host, port
  std::string nimbus;           // the leader's address, for messages
};

// The cluster and the workers of its topologies (only `name`'s when not empty).
Usage ReadUsage(const NimbusTarget& target, const std::string& name) {
  auto client = ConnectLeader(target.Seeds(), MakeClientOptions(target.timeout_secs));
  Usage u;
  u.nimbus = client->address().ToString();
  u.cluster = client->GetClusterInfo();
  std::map<std::tuple<std::string, std::string, int>, Worker> by_key;
  bool found = name.empty();
  for (const auto& t : u.cluster.topologies) {
    if (!name.empty() && t.name != name) continue;
    found = true;
    if (!t.__isset.id) continue;
    gen::TopologyInfo info;
    try {
      info = client->GetTopologyInfo(t.id);
    } catch (const storm::NimbusError& e) {
      if (e.kind() == storm::NimbusErrorKind::kNotAlive) continue;  // killed meanwhile
      throw;
    }
    for (const auto& e : info.executors) {
      const std::string host = e.__isset.host ? e.host : "?";
      const int port = e.__isset.port ? e.port : 0;
      Worker& w = by_key[{t.name, host, port}];
      w.topology = t.name;
      w.host = host;
      w.port = port;
      ++w.executors;
      if (e.__isset.component_id) w.components.insert(e.component_id);
      if (e.__isset.uptime_secs && (!w.uptime || e.uptime_secs > *w.uptime)) {
        w.uptime = e.uptime_secs;
      }
    }
  }
  if (!found) {
    throw base::Error(base::Errc::kNotFound,
                      "no topology named `" + name + "` on Nimbus " + u.nimbus);
  }
  for (auto& [key, w] : by_key) u.workers.push_back(std::move(w));
  return u;
}

std::string Join(const std::set<std::string>& items) {
  std::string out;
  for (const auto& i : items) out += (out.empty() ? "" : ",") + i;
  return out;
}

struct UsageArgs {
  NimbusTarget target;
  std::string name;  // only this topology
  bool json = false;
};

int WorkerUptime(const UsageArgs& a) {
  const Usage u = ReadUsage(a.target, a.name);
  if (a.json) {
    nlohmann::json out = nlohmann::json::array();
    for (const auto& w : u.workers) {
      out.push_back({{"topology", w.topology},
                     {"host", w.host},
                     {"port", w.port},
                     {"uptime_secs", w.uptime ? nlohmann::json(*w.uptime) : nlohmann::json()},
                     {"executors", w.executors},
                     {"components", w.components}});
    }
    std::cout << out.dump(2) << "\n";
    return kExitOk;
  }
  if (u.workers.empty()) {
    std::cerr << "no workers running on Nimbus " << u.nimbus << "\n";
    return kExitOk;
  }
  std::vector<std::vector<std::string>> rows = {
      {"TOPOLOGY", "WORKER", "UPTIME", "EXECUTORS", "COMPONENTS"}};
  for (const auto& w : u.workers) {
    rows.push_back({w.topology, w.host + ":" + std::to_string(w.port), UptimeText(w.uptime),
                    std::to_string(w.executors), Join(w.components)});
  }
  PrintTable(std::cout, rows);
  return kExitOk;
}

int SlotUsage(const UsageArgs& a) {
  const Usage u = ReadUsage(a.target, a.name);
  // Slots each topology holds per host: its distinct worker ports there.
  std::map<std::string, std::map<std::string, int>> used_by;  // host -> topology -> slots
  for (const auto& w : u.workers) ++used_by[w.host][w.topology];
  struct Row {
    std::string host;
    int slots = 0, used = 0;
    std::map<std::string, int> topologies;
  };
  std::vector<Row> rows;
  std::set<std::string> seen;
  for (const auto& s : u.cluster.supervisors) {
    Row r;
    r.host = s.__isset.host ? s.host : "?";
    r.slots = s.__isset.num_workers ? s.num_workers : 0;
    r.used = s.__isset.num_used_workers ? s.num_used_workers : 0;
    r.topologies = used_by[r.host];
    seen.insert(r.host);
    rows.push_back(std::move(r));
  }
  for (const auto& [host, topologies] : used_by) {
    if (seen.count(host)) continue;  // a worker on a host no supervisor reported
    Row r;
    r.host = host;
    r.topologies = topologies;
    for (const auto& [t, n] : topologies) r.used += n;
    rows.push_back(std::move(r));
  }
  if (a.json) {
    nlohmann::json out = nlohmann::json::array();
    for (const auto& r : rows) {
      out.push_back({{"host", r.host},
                     {"slots", r.slots},
                     {"used", r.used},
                     {"free", std::max(0, r.slots - r.used)},
                     {"topologies", r.topologies}});
    }
    std::cout << out.dump(2) << "\n";
    return kExitOk;
  }
  if (rows.empty()) {
    std::cerr << "no supervisors on Nimbus " << u.nimbus << "\n";
    return kExitOk;
  }
  std::vector<std::vector<std::string>> table = {{"HOST", "SLOTS", "USED", "FREE", "TOPOLOGIES"}};
  int slots = 0, used = 0;
  for (const auto& r : rows) {
    std::string topologies;
    for (const auto& [t, n] : r.topologies) {
      topologies += (topologies.empty() ? "" : ",") + t + "(" + std::to_string(n) + ")";
    }
    table.push_back({r.host, std::to_string(r.slots), std::to_string(r.used),
                     std::to_string(std::max(0, r.slots - r.used)), topologies});
    slots += r.slots;
    used += r.used;
  }
  table.push_back({"TOTAL", std::to_string(slots), std::to_string(used),
                   std::to_string(std::max(0, slots - used)), ""});
  PrintTable(std::cout, table);
  return kExitOk;
}

}  // namespace

void RegisterClusterUsageCommands(CLI::App& app, Action& action) {
  struct View {
    const char* name;
    const char* description;
    const char* examples;
    int (*run)(const UsageArgs&);
  };
  const View views[] = {
      {"worker_uptime", "Show every Storm worker of the running topologies and its uptime",
       "  sparse worker_uptime -e prod\n"
       "  sparse worker_uptime -n wordcount --nimbus nimbus.example.com:6627 --json",
       WorkerUptime},
      {"slot_usage", "Show every supervisor's worker slots and the topologies using them",
       "  sparse slot_usage -e prod\n  sparse slot_usage --nimbus localhost:6627 --json",
       SlotUsage},
  };
  for (const View& v : views) {
    auto args = std::make_shared<UsageArgs>();
    CLI::App* cmd = app.add_subcommand(v.name, v.description);
    cmd->footer(std::string("Asks Nimbus (getClusterInfo, getTopologyInfo); streamparse's "
                            "command of the same name.\n\nExamples:\n") +
                v.examples);
    cmd->add_option("-n,--name", args->name, "Only this topology");
    AddNimbusOptions(cmd, args->target, "-e,--env,--environment");
    cmd->add_flag("--json", args->json, "Print a JSON array instead of a table");
    auto run = v.run;
    cmd->callback([args, run, &action] { action = [args, run] { return run(*args); }; });
  }
}

}  // namespace sparse::cli
