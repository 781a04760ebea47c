#include "cli/run_observability.hpp"

#include <signal.h>
#include <unistd.h>

#include <boost/asio/ip/address.hpp>
#include <cerrno>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>

#include "cli/process_identity.hpp"
#include "web/graph.hpp"
#include "web/web_ui.hpp"

namespace sparse::cli {

namespace fs = std::filesystem;
using nlohmann::json;

void AddUiOptions(CLI::App& cmd, UiArgs& ui) {
  cmd.add_flag("--no-ui", ui.no_ui, "Do not serve the web view (stats, graph, errors) over HTTP");
  cmd.add_option("--ui-port", ui.port, "Port of the web view (default: a free port)");
  cmd.add_option("--ui-bind", ui.bind,
                 "Address the web view listens on (default 127.0.0.1; anything else exposes it "
                 "to whoever can reach this machine)")
      ->check([](const std::string& address) {
        boost::system::error_code ec;
        boost::asio::ip::make_address(address, ec);
        return ec ? "`" + address + "` is not an IP address (e.g. 127.0.0.1, ::1, 0.0.0.0)"
                  : std::string();
      });
}

fs::path RunStatePath(const fs::path& dir) {
  return dir / ".sparse" / "run.json";
}

void WriteRunState(const fs::path& path, const RunState& s) {
  std::error_code ec;
  fs::create_directories(path.parent_path(), ec);
  const json j{{"pid", s.pid},           {"pid_start", s.pid_start},
               {"topology", s.topology}, {"id", s.id},
               {"url", s.url},           {"port", s.port},
               {"bind", s.bind},         {"log_dir", s.log_dir},
               {"file", s.file},         {"started_ms", s.started_ms},
               {"kafka", s.kafka}};
  const fs::path tmp = path.string() + "." + std::to_string(::getpid()) + ".tmp";
  {
    std::ofstream out(tmp);
    out << j.dump(2) << "\n";
    if (!out) throw std::runtime_error("cannot write " + tmp.string());
  }
  fs::rename(tmp, path, ec);
  if (ec) {
    fs::remove(tmp, ec);
    throw std::runtime_error("cannot write " + path.string() + ": " + ec.message());
  }
}

std::optional<RunState> ReadRunState(const fs::path& path) {
  std::ifstream in(path);
  if (!in) return std::nullopt;
  try {
    const json j = json::parse(in);
    RunState s;
    s.pid = j.at("pid").get<int>();
    s.pid_start = j.value("pid_start", std::uint64_t{0});
    s.topology = j.at("topology").get<std::string>();
    s.id = j.at("id").get<std::string>();
    s.url = j.at("url").get<std::string>();
    s.port = j.at("port").get<std::uint16_t>();
    s.bind = j.at("bind").get<std::string>();
    s.log_dir = j.at("log_dir").get<std::string>();
    s.file = j.at("file").get<std::string>();
    s.started_ms = j.at("started_ms").get<std::int64_t>();
    s.kafka = j.value("kafka", "");
    return s;
  } catch (const json::exception&) {
    return std::nullopt;
  }
}

bool RunAlive(const RunState& state) {
  return ProcessIdentity{state.pid, state.pid_start}.Alive();
}

std::optional<FoundRun> FindRun(const fs::path& start, std::optional<fs::path>* stale) {
  std::error_code ec;
  fs::path dir = fs::absolute(start, ec);
  if (ec) return std::nullopt;
  while (true) {
    const fs::path p = RunStatePath(dir);
    if (auto s = ReadRunState(p)) {
      if (RunAlive(*s)) return FoundRun{p, *s};
      if (stale && !*stale) *stale = p;
    }
    if (!dir.has_parent_path() || dir.parent_path() == dir) return std::nullopt;
    dir = dir.parent_path();
  }
}

RunObservability::RunObservability(runtime::ClusterObserver& console, fs::path log_dir)
    : log_dir_(std::move(log_dir)) {
  fanout_.Add(&console);
}

RunObservability::~RunObservability() = default;

RunObservability::Live::~Live() {
  if (ui_) {
    fanout_->Remove(ui_.get());
    ui_->Stop();
  }
  // Only our own file: another run may have taken the folder over since.
  if (auto s = ReadRunState(state_path_); s && s->pid == ::getpid()) {
    std::error_code ec;
    fs::remove(state_path_, ec);
    fs::remove(state_path_.parent_path(), ec);  // only if empty
  }
}

std::unique_ptr<RunObservability::Live> RunObservability::Start(runtime::LocalCluster& cluster,
                                                                const runtime::Topology& topology,
                                                                const runtime::Plan& plan,
                                                                const UiArgs& args,
                                                                const fs::path& state_dir) {
  std::unique_ptr<Live> live(new Live());
  live->fanout_ = &fanout_;
  RunState state;
  const auto me = ProcessIdentity::Self();
  state.pid = me.pid;
  state.pid_start = me.start_ticks;
  state.topology = topology.name;
  state.id = topology.name;
  state.log_dir = log_dir_.empty() ? "" : fs::absolute(log_dir_).string();
  state.file = fs::absolute(topology.file).string();
  state.started_ms = web::NowMs();
  state.bind = args.bind;
  state.kafka = kafka_;
  if (!args.no_ui) {
    web::TopologyInfo info;
    info.id = state.id;
    info.name = topology.name;
    info.file = state.file;
    info.log_dir = state.log_dir;
    info.started_ms = state.started_ms;
    info.graph = web::MakeGraph(topology);
    info.configuration = plan.topology_config;
    // The page's deactivate/activate/kill buttons, for this machine only (the server takes
    // POST from loopback peers only) and only with the token the page embeds.
    web::RunControls controls;
    controls.token = web::NewControlToken();
    controls.set_active = [&cluster](bool active) { cluster.SetActive(active); };
    controls.kill = [&cluster](std::chrono::milliseconds wait) {
      cluster.Kill(wait, "killed from the web view");
    };
    const std::string token = controls.token;
    live->ui_ = std::make_unique<web::WebUi>(cluster.io(), std::move(info), args.bind, args.port,
                                             std::move(controls));
    fanout_.Add(live->ui_.get());
    live->url_ = live->ui_->Url();
    state.url = live->url_;
    state.port = live->ui_->port();
    std::cerr << "web view: " << live->url_ << " (control token " << token << ")\n";
    boost::system::error_code ec;
    const auto addr = boost::asio::ip::make_address(args.bind, ec);
    if (!ec && !addr.is_loopback()) {
      if (addr.is_unspecified()) {
        char host[256] = {};
        if (::gethostname(host, sizeof host - 1) == 0 && host[0] != '\0') {
          std::cerr << "web view from other machines: http://" << host << ":" << live->ui_->port()
                    << "/\n";
        }
      }
      std::cerr << "warning: the web view listens on " << args.bind
                << ": anyone who can reach this machine can read the topology's stats\n";
    }
  }
  live->state_path_ = RunStatePath(state_dir);
  try {
    WriteRunState(live->state_path_, state);
  } catch (const std::exception& e) {
    // Not fatal: the run works, only `sparse stats`/`tail` will not find it on their own.
    std::cerr << "warning: " << e.what() << "\n";
  }
  return live;
}

}  // namespace sparse::cli
