#include "cli/run_guard.hpp"

#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <random>
#include <string>

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

}  // namespace

RunGuard::RunGuard() : id_(NewRunId()) {
  // Everything the child needs is made before fork: between fork and exec only async-signal-safe
  // calls (the runtime has threads).
  char self[4096];
  const ssize_t n = ::readlink("/proc/self/exe", self, sizeof self - 1);
  if (n <= 0) return;  // no guard: the clean-stop sweep still runs
  self[n] = '\0';
  // The small guard executable next to this one, else this one (`sparse __guard`), which does
  // the same with all of the runtime's libraries loaded (~8 MiB instead of ~1).
  std::string guard = (fs::path(self).parent_path() / "sparse-guard").string();
  if (::access(guard.c_str(), X_OK) != 0) guard = self;
  char* exe = guard.data();
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

}  // namespace sparse::cli
