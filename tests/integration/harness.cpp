#include "harness.hpp"

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <thread>

extern char** environ;

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

Sandbox::Sandbox() {
  char tmpl[] = "/tmp/sparse-it-XXXXXX";
  dir_ = ::mkdtemp(tmpl);
  fs::create_directories(out_dir());
  for (const auto& e : fs::directory_iterator(FixturesDir())) {
    if (e.is_regular_file()) fs::copy_file(e.path(), dir_ / e.path().filename());
  }
}

Sandbox::~Sandbox() {
  for (pid_t p : ProcessesInside()) ::kill(p, SIGKILL);
  std::error_code ec;
  fs::remove_all(dir_, ec);
}

void Sandbox::Write(const std::string& name, const std::string& text) const {
  std::ofstream(dir_ / name) << text;
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

std::string ReadFile(const fs::path& p) {
  std::ifstream in(p);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

pid_t Sandbox::Start(const std::vector<std::string>& args, int stderr_fd) const {
  std::vector<std::string> argv = {SparseBinary()};
  argv.insert(argv.end(), args.begin(), args.end());
  std::vector<char*> cargv;
  for (auto& a : argv) cargv.push_back(a.data());
  cargv.push_back(nullptr);
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  const std::string out = (dir_ / "bg.out").string();
  const std::string err = (dir_ / "bg.err").string();
  posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_addopen(&fa, 1, out.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  if (stderr_fd >= 0) {
    posix_spawn_file_actions_adddup2(&fa, stderr_fd, 2);
  } else {
    posix_spawn_file_actions_addopen(&fa, 2, err.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  }
  posix_spawn_file_actions_addchdir_np(&fa, dir_.c_str());
  pid_t pid = -1;
  if (posix_spawn(&pid, cargv[0], &fa, nullptr, cargv.data(), environ) != 0) pid = -1;
  posix_spawn_file_actions_destroy(&fa);
  return pid;
}

int Sandbox::Wait(pid_t pid, std::chrono::seconds timeout) const {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  int status = 0;
  while (true) {
    if (::waitpid(pid, &status, WNOHANG) == pid) break;
    if (std::chrono::steady_clock::now() > deadline) {
      ::kill(pid, SIGKILL);
      ::waitpid(pid, &status, 0);
      return -1;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  if (WIFSIGNALED(status)) return 128 + WTERMSIG(status);
  return WEXITSTATUS(status);
}

RunResult Sandbox::Run(const std::vector<std::string>& args, std::chrono::seconds timeout) const {
  RunResult r;
  pid_t pid = Start(args);
  if (pid < 0) return r;
  r.exit_code = Wait(pid, timeout);
  r.out = ReadFile(dir_ / "bg.out");
  r.err = ReadFile(dir_ / "bg.err");
  return r;
}

std::vector<pid_t> Sandbox::ProcessesInside() const {
  std::vector<pid_t> out;
  std::error_code ec;
  const fs::path canonical = fs::canonical(dir_, ec);
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
