#include "cli/run_guard.hpp"

#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <random>
#include <thread>

#include "multilang/child_fds.hpp"

namespace sparse::cli {

namespace fs = std::filesystem;

namespace {

std::string NewRunId() {
  std::random_device random;
  std::uniform_int_distribution<unsigned> hex(0, 15);
  std::string id = std::to_string(::getpid()) + "-";
  for (int i = 0; i < 16; ++i) id += "0123456789abcdef"[hex(random)];
  return id;
}

bool EnvironmentHas(const fs::path& environ_file, const std::string& entry) {
  std::ifstream in(environ_file, std::ios::binary);
  if (!in) return false;  // gone, or not ours
  // Entries are NUL-terminated; a leading NUL lets one search match whole entries only.
  std::string env(1, '\0');
  env.append(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  return env.find(entry) != std::string::npos;
}

}  // namespace

std::vector<int> ProcessesOfRun(std::string_view id) {
  std::vector<int> found;
  if (id.empty()) return found;
  const std::string entry = std::string(1, '\0') + kRunIdEnv + "=" + std::string(id) + '\0';
  const int self = static_cast<int>(::getpid());
  std::error_code ec;
  for (const auto& e : fs::directory_iterator("/proc", ec)) {
    const std::string name = e.path().filename().string();
    if (name.empty() || name.find_first_not_of("0123456789") != std::string::npos) continue;
    const int pid = std::stoi(name);
    if (pid == self) continue;
    if (EnvironmentHas(e.path() / "environ", entry)) found.push_back(pid);
  }
  return found;
}

int KillProcessesOfRun(std::string_view id) {
  int killed = 0;
  // A process being killed may have forked a moment before: look again until a look finds none.
  for (int round = 0; round < 50; ++round) {
    const auto pids = ProcessesOfRun(id);
    if (pids.empty()) break;
    for (int pid : pids) {
      if (::kill(pid, SIGKILL) == 0) ++killed;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return killed;
}

RunGuard::RunGuard() : id_(NewRunId()) {
  // Everything the child needs is made before fork: between fork and exec only async-signal-safe
  // calls (the runtime has threads).
  char exe[4096];
  const ssize_t n = ::readlink("/proc/self/exe", exe, sizeof exe - 1);
  if (n <= 0) return;  // no guard: the clean-stop sweep still runs
  exe[n] = '\0';
  std::string parent = std::to_string(::getpid());
  std::string verb = "__guard";
  std::string id = id_;
  char* argv[] = {exe, verb.data(), id.data(), parent.data(), nullptr};
  const pid_t pid = ::fork();
  if (pid == 0) {
    // Signalled when the runtime's main thread dies, however it dies.
    // (Had it died before the prctl, GuardMain sees a new parent and sweeps at once.)
    ::prctl(PR_SET_PDEATHSIG, SIGTERM);
    ::setpgid(0, 0);  // a terminal's Ctrl-C is for the runtime, not the guard
    if (::chdir("/") != 0) ::_exit(127);
    const int null = ::open("/dev/null", O_RDWR);
    if (null >= 0) {
      ::dup2(null, 0);
      ::dup2(null, 1);
    }
    multilang::MarkInheritedDescriptorsCloseOnExec();
    ::execv(exe, argv);
    ::_exit(127);
  }
  guard_pid_ = pid;
}

RunGuard::~RunGuard() {
  KillProcessesOfRun(id_);
  if (guard_pid_ > 0) {
    ::kill(guard_pid_, SIGKILL);  // its work is done
    int status = 0;
    ::waitpid(guard_pid_, &status, 0);
  }
}

int GuardMain(int argc, char** argv) {
  if (argc != 4) return 2;
  const std::string id = argv[2];
  const pid_t parent = static_cast<pid_t>(std::atol(argv[3]));
  sigset_t wanted;
  ::sigemptyset(&wanted);
  ::sigaddset(&wanted, SIGTERM);
  ::sigprocmask(SIG_BLOCK, &wanted, nullptr);
  ::signal(SIGINT, SIG_IGN);
  ::signal(SIGHUP, SIG_IGN);
  // The parent may have died before the exec: then there is nothing to wait for.
  while (::getppid() == parent) {
    int sig = 0;
    ::sigwait(&wanted, &sig);  // the parent-death signal, or a stray SIGTERM (then wait again)
  }
  KillProcessesOfRun(id);
  return 0;
}

}  // namespace sparse::cli
