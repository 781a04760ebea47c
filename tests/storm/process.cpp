#include "process.hpp"

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fstream>
#include <sstream>
#include <stdexcept>
#include <thread>

extern char** environ;

namespace sparse::storm::testing {

namespace fs = std::filesystem;

std::string SparseBinary() {
  return SPARSE_BINARY;
}
std::string FixturesDir() {
  return STORM_FIXTURES;
}
std::string PythonAdapterDir() {
  return SPARSE_PYTHON_ADAPTER;
}

std::string ReadFile(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

void WriteFile(const fs::path& path, const std::string& text) {
  fs::create_directories(path.parent_path());
  std::ofstream(path, std::ios::binary) << text;
}

TempDir::TempDir() {
  char tmpl[] = "/tmp/sparse-storm-test-XXXXXX";
  if (!::mkdtemp(tmpl)) throw std::runtime_error("mkdtemp failed");
  path_ = tmpl;
}

TempDir::~TempDir() {
  std::error_code ec;
  fs::remove_all(path_, ec);
}

void CopyFixture(const std::string& name, const fs::path& dest) {
  fs::copy(fs::path(FixturesDir()) / name, dest, fs::copy_options::recursive);
}

RunResult RunSparse(const std::vector<std::string>& args, const fs::path& cwd,
                    std::chrono::seconds timeout, const std::map<std::string, std::string>& env) {
  std::vector<std::string> argv = {SparseBinary()};
  argv.insert(argv.end(), args.begin(), args.end());
  auto vars = env;
  vars.emplace("NO_COLOR", "1");
  return RunProgram(argv, cwd, timeout, vars);
}

RunResult RunProgram(std::vector<std::string> argv, const fs::path& cwd,
                     std::chrono::seconds timeout, const std::map<std::string, std::string>& env) {
  TempDir io;
  const std::string out_path = (io.path() / "out").string();
  const std::string err_path = (io.path() / "err").string();
  std::vector<char*> cargv;
  for (auto& a : argv) cargv.push_back(a.data());
  cargv.push_back(nullptr);

  std::map<std::string, std::string> vars;
  for (char** e = environ; *e; ++e) {
    const std::string kv = *e;
    const auto eq = kv.find('=');
    if (eq != std::string::npos) vars[kv.substr(0, eq)] = kv.substr(eq + 1);
  }
  for (const auto& [k, v] : env) vars[k] = v;
  std::vector<std::string> env_strings;
  for (const auto& [k, v] : vars) env_strings.push_back(k + "=" + v);
  std::vector<char*> cenv;
  for (auto& s : env_strings) cenv.push_back(s.data());
  cenv.push_back(nullptr);

  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_addopen(&fa, 1, out_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_addopen(&fa, 2, err_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_addchdir_np(&fa, cwd.c_str());
  pid_t pid = -1;
  const int rc = posix_spawn(&pid, cargv[0], &fa, nullptr, cargv.data(), cenv.data());
  posix_spawn_file_actions_destroy(&fa);
  RunResult r;
  if (rc != 0) {
    r.err = "cannot start " + argv[0];
    return r;
  }
  // Polls for the exit only to enforce the timeout; the result never depends on timing.
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  int status = 0;
  while (true) {
    const pid_t w = ::waitpid(pid, &status, WNOHANG);
    if (w == pid) break;
    if (std::chrono::steady_clock::now() > deadline) {
      ::kill(pid, SIGKILL);
      ::waitpid(pid, &status, 0);
      r.out = ReadFile(out_path);
      r.err = ReadFile(err_path) + "\n[killed by the test after its timeout]";
      return r;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  r.exit_code = WIFSIGNALED(status) ? 128 + WTERMSIG(status) : WEXITSTATUS(status);
  r.out = ReadFile(out_path);
  r.err = ReadFile(err_path);
  return r;
}

}  // namespace sparse::storm::testing
