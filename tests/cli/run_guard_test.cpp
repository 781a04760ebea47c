// The run guard's process, both ways it is started: `sparse-guard` (next to sparse) and `sparse
// __guard` (a sparse binary without it). Once its parent is gone and it is signalled, it kills
// every process whose environment carries the run id. (The parent-death signal itself, and the
// choice of guard, are tested end to end by Descendants.NoDaemonOutlivesTheRun/Kill9.)
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <chrono>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include "cli/run_sweep.hpp"

namespace sparse::cli {
namespace {

// A process that sleeps with `env_entry` in its environment (the test's child).
pid_t StartSleeper(const std::string& env_entry) {
  const pid_t pid = ::fork();
  if (pid == 0) {
    char* argv[] = {const_cast<char*>("sleep"), const_cast<char*>("60"), nullptr};
    char* envp[] = {const_cast<char*>(env_entry.c_str()), nullptr};
    ::execve("/bin/sleep", argv, envp);
    ::_exit(127);
  }
  return pid;
}

bool Running(pid_t pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
  std::string stat((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const auto close = stat.rfind(')');
  return close != std::string::npos && close + 2 < stat.size() && stat[close + 2] != 'Z';
}

std::string Cmdline(pid_t pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/cmdline");
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

// Kills and reaps the test's processes however the test ends (an assertion returns early).
struct Reaper {
  std::vector<pid_t> pids;
  ~Reaper() {
    for (pid_t pid : pids) {
      if (pid > 0) {
        ::kill(pid, SIGKILL);
        ::waitpid(pid, nullptr, 0);
      }
    }
  }
};

class Guard : public ::testing::TestWithParam<const char*> {};

TEST_P(Guard, KillsTheRunsProcessesOnceItsParentIsGone) {
  const std::string id = "guard-test-" + std::to_string(::getpid()) + "-" +
                         (std::string(GetParam()) == SPARSE_BINARY ? "sparse" : "guard");
  const pid_t victim = StartSleeper(std::string(kRunIdEnv) + "=" + id);
  const pid_t bystander = StartSleeper(std::string(kRunIdEnv) + "=" + id + "-other");
  Reaper reaper{{victim, bystander}};
  ASSERT_GT(victim, 0);
  ASSERT_GT(bystander, 0);

  // The guard's parent: a process that starts the guard, tells us its pid and waits.
  int fds[2];
  ASSERT_EQ(::pipe(fds), 0);
  const pid_t parent = ::fork();
  if (parent == 0) {
    ::close(fds[0]);
    const std::string self = std::to_string(::getpid());
    const pid_t guard = ::fork();
    if (guard == 0) {
      const std::string exe = GetParam();
      char* argv[] = {const_cast<char*>(exe.c_str()), const_cast<char*>("__guard"),
                      const_cast<char*>(id.c_str()), const_cast<char*>(self.c_str()), nullptr};
      ::execv(exe.c_str(), argv);
      ::_exit(127);
    }
    if (::write(fds[1], &guard, sizeof guard) != sizeof guard) ::_exit(1);
    ::pause();
    ::_exit(0);
  }
  reaper.pids.push_back(parent);
  ::close(fds[1]);
  pid_t guard = 0;
  ASSERT_EQ(::read(fds[0], &guard, sizeof guard), static_cast<ssize_t>(sizeof guard));
  ::close(fds[0]);
  // Not the test's child (the parent's): killed, not reaped, if the test ends early.
  struct KillGuard {
    pid_t pid;
    ~KillGuard() { ::kill(pid, SIGKILL); }
  } kill_guard{guard};
  // Wait for the exec, and for the guard to be waiting.
  for (int i = 0; i < 500 && Cmdline(guard).find("__guard") == std::string::npos; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  ASSERT_TRUE(Running(guard));
  EXPECT_TRUE(Running(victim)) << "nothing is killed while the parent lives";

  ::kill(parent, SIGKILL);
  ::waitpid(parent, nullptr, 0);
  reaper.pids.pop_back();  // the parent, reaped
  ::kill(guard, SIGTERM);  // what the kernel sends a guard started by RunGuard (PDEATHSIG)
  for (int i = 0; i < 500 && Running(victim); ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  EXPECT_FALSE(Running(victim)) << "the run's process outlived the guard's sweep";
  EXPECT_TRUE(Running(bystander)) << "a process of another run was killed";
  for (int i = 0; i < 500 && Running(guard); ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  EXPECT_FALSE(Running(guard)) << "the guard did not exit after its sweep";
}

INSTANTIATE_TEST_SUITE_P(BothBinaries, Guard, ::testing::Values(SPARSE_GUARD_BINARY, SPARSE_BINARY),
                         [](const auto& info) {
                           return std::string(info.index == 0 ? "SparseGuard"
                                                              : "SparseDunderGuard");
                         });

}  // namespace
}  // namespace sparse::cli
