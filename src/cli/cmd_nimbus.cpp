// The Nimbus management commands: `sparse list`, `kill`, `activate`, `deactivate`, `rebalance`.
// Each connects to the leader (--nimbus, else the environment's `nimbus`, else localhost:6627).
// Note that kill/activate/deactivate/rebalance take the topology's NAME, as Storm's calls do.
#include <cstdio>
#include <iomanip>
#include <iostream>
#include <map>

#include "cli/storm_commands.hpp"
#include "cli/streamparse_project.hpp"
#include "storm/thrift_json.hpp"

namespace sparse::cli {

namespace fs = std::filesystem;

namespace {

// ---- list ------------------------------------------------------------------------------------

struct ListArgs {
  NimbusTarget target;
  bool json = false;
};

int List(const ListArgs& a) {
  auto client = ConnectLeader(a.target.Seeds(), MakeClientOptions(a.target.timeout_secs));
  const auto info = client->GetClusterInfo();
  std::vector<storm::gen::TopologySummary> topologies = info.topologies;
  std::sort(topologies.begin(), topologies.end(),
            [](const auto& x, const auto& y) { return x.name < y.name; });
  if (a.json) {
    nlohmann::json out = nlohmann::json::array();
    for (const auto& t : topologies) out.push_back(storm::TopologySummaryToJson(t));
    std::cout << out.dump(2) << "\n";
    return kExitOk;
  }
  if (topologies.empty()) {
    std::cerr << "no topologies on Nimbus " << client->address().ToString() << "\n";
    return kExitOk;
  }
  std::vector<std::vector<std::string>> rows = {
      {"NAME", "STATUS", "WORKERS", "EXECUTORS", "TASKS", "UPTIME", "ID"}};
  auto num = [](bool set, int v) { return set ? std::to_string(v) : std::string("-"); };
  for (const auto& t : topologies) {
    rows.push_back(
        {t.__isset.name ? t.name : "-", t.__isset.status ? t.status : "-",
         num(t.__isset.num_workers, t.num_workers), num(t.__isset.num_executors, t.num_executors),
         num(t.__isset.num_tasks, t.num_tasks),
         UptimeText(t.__isset.uptime_secs ? std::optional<int>(t.uptime_secs) : std::nullopt),
         t.__isset.id ? t.id : "-"});
  }
  PrintTable(std::cout, rows);
  return kExitOk;
}

// ---- kill, activate, deactivate --------------------------------------------------------------

struct NameArgs {
  NimbusTarget target;
  std::string name;
  int wait = -1;
};

int Kill(const NameArgs& a) {
  const std::string name = ClusterTopologyName(a.name, "kill");
  auto client = ConnectLeader(a.target.Seeds(), MakeClientOptions(a.target.timeout_secs));
  std::optional<int> wait;
  if (a.wait >= 0) wait = a.wait;
  client->KillTopology(name, wait);
  std::cerr << "killed `" << name << "` on Nimbus " << client->address().ToString()
            << ": Storm deactivates it now and removes it after "
            << (wait ? std::to_string(*wait) + " s" : "topology.message.timeout.secs") << "\n";
  return kExitOk;
}

int Activate(const NameArgs& a, bool activate) {
  auto client = ConnectLeader(a.target.Seeds(), MakeClientOptions(a.target.timeout_secs));
  if (activate) {
    client->Activate(a.name);
  } else {
    client->Deactivate(a.name);
  }
  std::cerr << (activate ? "activated `" : "deactivated `") << a.name << "` on Nimbus "
            << client->address().ToString() << "\n";
  return kExitOk;
}

// ---- rebalance -------------------------------------------------------------------------------

struct RebalanceArgs {
  NimbusTarget target;
  std::string name;
  int workers = 0;
  std::vector<std::string> executors;
  int wait = -1;
};

std::map<std::string, int> ParseExecutors(const std::vector<std::string>& specs) {
  std::map<std::string, int> out;
  for (const auto& spec : specs) {
    const auto eq = spec.rfind('=');
    int n = 0;
    bool ok = eq != std::string::npos && eq > 0 && eq + 1 < spec.size();
    if (ok) {
      try {
        std::size_t used = 0;
        n = std::stoi(spec.substr(eq + 1), &used);
        ok = used == spec.size() - eq - 1 && n >= 1;
      } catch (const std::exception&) {
        ok = false;
      }
    }
    if (!ok) {
      throw base::Error(base::Errc::kUsage,
                        "-e expects COMPONENT=N with N at least 1, got `" + spec + "`");
    }
    out[spec.substr(0, eq)] = n;
  }
  return out;
}

int Rebalance(const RebalanceArgs& a) {
  storm::gen::RebalanceOptions options;
  if (a.wait >= 0) options.__set_wait_secs(a.wait);
  if (a.workers > 0) options.__set_num_workers(a.workers);
  const auto executors = ParseExecutors(a.executors);
  if (!executors.empty()) options.__set_num_executors(executors);
  auto client = ConnectLeader(a.target.Seeds(), MakeClientOptions(a.target.timeout_secs));
  client->Rebalance(a.name, options);
  std::cerr << "rebalancing `" << a.name << "` on Nimbus " << client->address().ToString();
  if (a.workers > 0) std::cerr << ": " << a.workers << " workers";
  for (const auto& [c, n] : executors) std::cerr << ", " << c << "=" << n;
  std::cerr << "\n";
  return kExitOk;
}

template <typename Args, typename F>
void SetAction(CLI::App* cmd, std::shared_ptr<Args> args, Action& action, F f) {
  cmd->callback([args, &action, f] { action = [args, f] { return f(*args); }; });
}

}  // namespace

void RegisterNimbusCommands(CLI::App& app, Action& action) {
  {
    auto args = std::make_shared<ListArgs>();
    CLI::App* cmd = app.add_subcommand("list", "List the topologies on a Storm cluster");
    cmd->footer(R"(Examples:
  sparse list -e prod
  sparse list --nimbus nimbus.example.com:6627 --json)");
    AddNimbusOptions(cmd, args->target, "-e,--env,--environment");
    AddIgnoredStreamparseFlags(*cmd, "list");
    cmd->add_flag("--json", args->json, "Print a JSON array instead of a table");
    SetAction(cmd, args, action, [](const ListArgs& a) { return List(a); });
  }
  {
    auto args = std::make_shared<NameArgs>();
    CLI::App* cmd = app.add_subcommand("kill", "Kill a topology running on a Storm cluster");
    cmd->footer(R"(Storm deactivates the topology, waits (--wait, default its
topology.message.timeout.secs) so tuples in flight can finish, then removes it.

Examples:
  sparse kill wordcount -e prod
  sparse kill wordcount --nimbus localhost:6627 -w 0)");
    cmd->add_option("name", args->name, "Topology name (default: the project's only topology)");
    cmd->add_option("-n,--name", args->name, "Topology name (streamparse's flag)");
    AddNimbusOptions(cmd, args->target, "-e,--env,--environment");
    AddIgnoredStreamparseFlags(*cmd, "kill");
    // -w is Storm's own flag (`storm kill NAME -w 10`).
    cmd->add_option("-w,--wait", args->wait, "Seconds Storm waits before removing it")
        ->check(CLI::Range(0, 100000000));
    SetAction(cmd, args, action, [](const NameArgs& a) { return Kill(a); });
  }
  for (const bool activate : {true, false}) {
    auto args = std::make_shared<NameArgs>();
    CLI::App* cmd =
        app.add_subcommand(activate ? "activate" : "deactivate",
                           activate ? "Activate a topology on a Storm cluster (spouts resume)"
                                    : "Deactivate a topology on a Storm cluster (spouts pause)");
    cmd->footer(std::string("Example:\n  sparse ") + (activate ? "activate" : "deactivate") +
                " wordcount -e prod");
    cmd->add_option("name", args->name, "Topology name")->required();
    AddNimbusOptions(cmd, args->target, "-e,--env");
    SetAction(cmd, args, action, [activate](const NameArgs& a) { return Activate(a, activate); });
  }
  {
    auto args = std::make_shared<RebalanceArgs>();
    CLI::App* cmd = app.add_subcommand(
        "rebalance", "Change a running topology's number of workers or executors");
    cmd->footer(
        R"(Here -e, -n and -w are Storm's own flags (`storm rebalance NAME -w 5 -n 4 -e count=8`);
the environment is --env.

Examples:
  sparse rebalance wordcount --env prod --workers 4
  sparse rebalance wordcount --nimbus localhost:6627 -e count=8 -e words=2 --wait 5)");
    cmd->add_option("name", args->name, "Topology name")->required();
    AddNimbusOptions(cmd, args->target, "--env");
    cmd->add_option("-n,--workers", args->workers, "New number of worker processes");
    cmd->add_option("-e,--executors", args->executors,
                    "COMPONENT=N: new number of executors of a component; repeatable")
        ->allow_extra_args(false);
    cmd->add_option("-w,--wait", args->wait,
                    "Seconds Storm deactivates the topology before redistributing it")
        ->check(CLI::Range(0, 100000000));
    SetAction(cmd, args, action, [](const RebalanceArgs& a) { return Rebalance(a); });
  }
}

}  // namespace sparse::cli
