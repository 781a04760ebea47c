#include "support/process.hpp"

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <thread>

#include "support/files.hpp"
#include "support/temp_dir.hpp"

extern char** environ;

namespace sparse::test {

namespace {

// The test's environment with `overrides` applied, as "KEY=VALUE" strings.
std::vector<std::string> Environment(const std::map<std::string, std::string>& overrides) {
  std::map<std::string, std::string> vars;
  for (char** e = environ; *e != nullptr; ++e) {
    const std::string kv = *e;
    const auto eq = kv.find('=');
    if (eq != std::string::npos) vars.emplace(kv.substr(0, eq), kv.substr(eq + 1));
  }
  for (const auto& [k, v] : overrides) vars[k] = v;
  std::vector<std::string> out;
  for (const auto& [k, v] : vars) out.push_back(k + "=" + v);
  return out;
}

std::vector<char*> Pointers(std::vector<std::string>& strings) {
  std::vector<char*> out;
  for (auto& s : strings) out.push_back(s.data());
  out.push_back(nullptr);
  return out;
}

int ExitCodeOf(int status) {
  return WIFSIGNALED(status) ? 128 + WTERMSIG(status) : WEXITSTATUS(status);
}

// Polls for the exit only to enforce the timeout; the result never depends on timing.
std::optional<int> PollExit(pid_t pid, std::chrono::milliseconds timeout) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  while (true) {
    int status = 0;
    if (::waitpid(pid, &status, WNOHANG) == pid) return ExitCodeOf(status);
    if (std::chrono::steady_clock::now() >= deadline) return std::nullopt;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
}

}  // namespace

pid_t Spawn(const Command& command, const Streams& streams) {
  if (command.argv.empty()) return -1;
  std::vector<std::string> argv = command.argv;
  std::vector<std::string> env = Environment(command.env);
  std::vector<char*> cargv = Pointers(argv);
  std::vector<char*> cenv = Pointers(env);
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_addopen(&fa, 1, streams.out.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  if (streams.err_fd >= 0) {
    posix_spawn_file_actions_adddup2(&fa, streams.err_fd, 2);
  } else {
    posix_spawn_file_actions_addopen(&fa, 2, streams.err.c_str(), O_WRONLY | O_CREAT | O_TRUNC,
                                     0644);
  }
  for (const auto& [from, to] : streams.more_fds) posix_spawn_file_actions_adddup2(&fa, from, to);
  if (!command.cwd.empty()) posix_spawn_file_actions_addchdir_np(&fa, command.cwd.c_str());
  pid_t pid = -1;
  if (posix_spawn(&pid, cargv[0], &fa, nullptr, cargv.data(), cenv.data()) != 0) pid = -1;
  posix_spawn_file_actions_destroy(&fa);
  return pid;
}

int WaitExit(pid_t pid, std::chrono::milliseconds timeout) {
  if (const auto code = PollExit(pid, timeout)) return *code;
  ::kill(pid, SIGKILL);
  int status = 0;
  ::waitpid(pid, &status, 0);
  return -1;
}

Child::Child(const Command& command, std::filesystem::path out, std::filesystem::path err)
    : out_(std::move(out)), err_(std::move(err)) {
  Streams streams;
  streams.out = out_;
  streams.err = err_;
  pid_ = Spawn(command, streams);
}

Child::~Child() {
  KillAndReap();
}

Child::Child(Child&& other) noexcept
    : pid_(std::exchange(other.pid_, -1)),
      status_(other.status_),
      out_(std::move(other.out_)),
      err_(std::move(other.err_)) {}

Child& Child::operator=(Child&& other) noexcept {
  if (this != &other) {
    KillAndReap();
    pid_ = std::exchange(other.pid_, -1);
    status_ = other.status_;
    out_ = std::move(other.out_);
    err_ = std::move(other.err_);
  }
  return *this;
}

void Child::KillAndReap() {
  if (pid_ > 0 && !status_) {
    ::kill(pid_, SIGKILL);
    int status = 0;
    ::waitpid(pid_, &status, 0);
    status_ = ExitCodeOf(status);
  }
}

void Child::Signal(int sig) const {
  if (pid_ > 0 && !status_) ::kill(pid_, sig);
}

std::optional<int> Child::Wait(std::chrono::milliseconds timeout) {
  if (!status_ && pid_ > 0) status_ = PollExit(pid_, timeout);
  return status_;
}

int Child::WaitOrKill(std::chrono::milliseconds timeout) {
  if (pid_ <= 0) return -1;
  if (const auto code = Wait(timeout)) return *code;
  KillAndReap();
  return -1;
}

std::string Child::Stdout() const {
  return ReadFile(out_);
}
std::string Child::Stderr() const {
  return ReadFile(err_);
}

std::string Show(const RunResult& r) {
  return "exit " + std::to_string(r.exit_code) + "\nstdout:\n" + r.out + "\nstderr:\n" + r.err;
}

RunResult Run(const Command& command, std::chrono::milliseconds timeout) {
  // Not "sparse-run-": that is the prefix of the runtime's own scratch folders.
  const TempDir io("sparse-test-output");
  RunResult r;
  Child child(command, io.path() / "out", io.path() / "err");
  if (!child.started()) {
    r.err = "cannot start " + (command.argv.empty() ? std::string("(no argv)") : command.argv[0]);
    return r;
  }
  r.exit_code = child.WaitOrKill(timeout);
  r.out = child.Stdout();
  r.err = child.Stderr();
  if (r.exit_code == -1) r.err += "\n[killed by the test after its timeout]";
  return r;
}

}  // namespace sparse::test
