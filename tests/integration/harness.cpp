#include "harness.hpp"

#include <signal.h>

#include <gtest/gtest.h>

#include <fstream>

namespace sparse::testing {

namespace fs = std::filesystem;

std::string Py(const std::string& cls) {
  return "[python3, -m, sparse_multilang.run, components:" + cls + "]";
}

void ExpectNoLeftovers(const Sandbox& sb) {
  EXPECT_TRUE(sb.ProcessesInside().empty()) << "a component outlived the runtime";
}

nlohmann::json ReadStats(const Sandbox& sb) {
  std::ifstream in(sb.dir() / "stats.json");
  return nlohmann::json::parse(in);
}

long RuntimePeakKb(const Sandbox& sb) {
  return ReadStats(sb)["cpu"]["runtime_max_rss_kb"].get<long>();
}

nlohmann::json StatsOf(const nlohmann::json& stats, const std::string& id) {
  for (const auto& c : stats["components"]) {
    if (c["id"] == id) return c;
  }
  ADD_FAILURE() << "no component " << id << " in the stats";
  return nlohmann::json::object();
}

std::string SparseBinary() {
  return SPARSE_BINARY;
}
std::string FixturesDir() {
  return SPARSE_FIXTURES;
}

Sandbox::Sandbox() : dir_("sparse-it") {
  fs::create_directories(out_dir());
  for (const auto& e : fs::directory_iterator(FixturesDir())) {
    if (e.is_regular_file()) fs::copy_file(e.path(), dir() / e.path().filename());
  }
}

Sandbox::~Sandbox() {
  // dir_ (the folder) goes after the processes working in it.
  for (pid_t p : ProcessesInside()) ::kill(p, SIGKILL);
}

void Sandbox::Write(const std::string& name, const std::string& text) const {
  std::ofstream(dir() / name) << text;
}

std::vector<std::string> IdleRunArgs(const Sandbox& sb, std::vector<std::string> extra) {
  std::vector<std::string> args = {
      "run", "topo.yaml",    "--stop-when-idle", "1",  "-t",
      "120", "--stats-json", "stats.json",       "-o", "test.out=" + sb.out_dir().string()};
  args.insert(args.end(), extra.begin(), extra.end());
  return args;
}

std::vector<std::string> RunArgs(const Sandbox& sb, std::vector<std::string> extra) {
  std::vector<std::string> args = {"run",
                                   "topo.yaml",
                                   "--stop-when-idle",
                                   "1",
                                   "-t",
                                   "60",
                                   "-o",
                                   "test.out=" + sb.out_dir().string()};
  args.insert(args.end(), extra.begin(), extra.end());
  return args;
}

std::vector<std::string> StatsRunArgs(const Sandbox& sb, std::vector<std::string> extra) {
  std::vector<std::string> a = {"run",          "topo.yaml",
                                "--stats-json", (sb.dir() / "stats.json").string(),
                                "-o",           "test.out=" + sb.out_dir().string()};
  a.insert(a.end(), extra.begin(), extra.end());
  return a;
}

std::size_t CountOf(const std::string& text, const std::string& what) {
  std::size_t n = 0;
  for (auto pos = text.find(what); pos != std::string::npos; pos = text.find(what, pos + 1)) ++n;
  return n;
}

pid_t Sandbox::Start(const std::vector<std::string>& args, int stderr_fd,
                     const std::map<std::string, std::string>& env) const {
  test::Command command{{SparseBinary()}, dir(), env};
  command.argv.insert(command.argv.end(), args.begin(), args.end());
  test::Streams streams;
  streams.out = dir() / "bg.out";
  streams.err = dir() / "bg.err";
  streams.err_fd = stderr_fd;
  return test::Spawn(command, streams);
}

int Sandbox::Wait(pid_t pid, std::chrono::seconds timeout) const {
  return test::WaitExit(pid, timeout);
}

RunResult Sandbox::Run(const std::vector<std::string>& args, std::chrono::seconds timeout,
                       const std::map<std::string, std::string>& env) const {
  test::Command command{{SparseBinary()}, dir(), env};
  command.argv.insert(command.argv.end(), args.begin(), args.end());
  return test::Run(command, timeout);
}

std::vector<pid_t> Sandbox::ProcessesInside() const {
  std::vector<pid_t> out;
  std::error_code ec;
  const fs::path canonical = fs::canonical(dir(), ec);
  for (const auto& e : fs::directory_iterator("/proc", ec)) {
    const std::string name = e.path().filename().string();
    if (name.find_first_not_of("0123456789") != std::string::npos) continue;
    std::error_code ec2;
    fs::path cwd = fs::read_symlink(e.path() / "cwd", ec2);
    if (ec2) continue;
    // Zombies are reaped by their parent; only live processes count.
    std::string stat = ReadFile(e.path() / "stat");
    auto close = stat.rfind(')');
    if (close != std::string::npos && close + 2 < stat.size() && stat[close + 2] == 'Z') continue;
    if (cwd == canonical || cwd.string().rfind(canonical.string() + "/", 0) == 0) {
      out.push_back(static_cast<pid_t>(std::stol(name)));
    }
  }
  return out;
}

std::map<std::string, std::vector<nlohmann::json>> Sandbox::LinesByFile(
    const std::string& prefix) const {
  std::map<std::string, std::vector<nlohmann::json>> out;
  for (const auto& e : fs::directory_iterator(out_dir())) {
    const std::string name = e.path().filename().string();
    if (name.rfind(prefix, 0) != 0) continue;
    // Components may still be writing: only lines that end in a newline are whole (a buffered
    // writer can flush half a line, and a test that polls would read it as broken JSON).
    const std::string text = ReadFile(e.path());
    auto& lines = out[name];
    for (std::size_t at = 0, eol; (eol = text.find('\n', at)) != std::string::npos; at = eol + 1) {
      if (eol > at) lines.push_back(nlohmann::json::parse(text.substr(at, eol - at)));
    }
  }
  return out;
}

std::vector<nlohmann::json> Sandbox::Lines(const std::string& prefix) const {
  std::vector<nlohmann::json> all;
  for (auto& [_, lines] : LinesByFile(prefix)) all.insert(all.end(), lines.begin(), lines.end());
  return all;
}

}  // namespace sparse::testing
