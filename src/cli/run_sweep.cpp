#include "cli/run_sweep.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <ctime>
#include <string>

namespace sparse::cli {

namespace {

// Whether the NUL-separated environment in `path` has `entry` (NUL + "KEY=VALUE" + NUL) as a
// whole entry. False when the file is gone or not ours to read.
bool EnvironmentHas(const std::string& path, const std::string& entry) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return false;
  // A leading NUL lets one search match whole entries only, the first one included.
  std::string env(1, '\0');
  char buf[4096];
  for (;;) {
    const ssize_t n = ::read(fd, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    env.append(buf, static_cast<std::size_t>(n));
  }
  ::close(fd);
  return env.find(entry) != std::string::npos;
}

void SleepMs(long ms) {
  timespec t{ms / 1000, (ms % 1000) * 1000000L};
  while (::nanosleep(&t, &t) != 0 && errno == EINTR) {
  }
}

}  // namespace

std::vector<int> ProcessesOfRun(std::string_view id) {
  std::vector<int> found;
  if (id.empty()) return found;
  const std::string entry = std::string(1, '\0') + kRunIdEnv + "=" + std::string(id) + '\0';
  const int self = static_cast<int>(::getpid());
  DIR* proc = ::opendir("/proc");
  if (!proc) return found;
  while (const dirent* e = ::readdir(proc)) {
    const std::string_view name = e->d_name;
    if (name.empty() || name.find_first_not_of("0123456789") != std::string_view::npos) continue;
    const int pid = std::atoi(e->d_name);
    if (pid == self) continue;
    if (EnvironmentHas("/proc/" + std::string(name) + "/environ", entry)) found.push_back(pid);
  }
  ::closedir(proc);
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
    SleepMs(20);
  }
  return killed;
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
