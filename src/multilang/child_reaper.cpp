#include "multilang/child_reaper.hpp"

#include <sys/wait.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <thread>
#include <vector>

namespace sparse::multilang {

namespace {
// A killed child is gone within a few ms; polling at this pace costs nothing while none waits.
constexpr auto kReapPoll = std::chrono::milliseconds(5);
}  // namespace

struct ChildReaper::State {
  mutable std::mutex mu;
  std::condition_variable wake;
  std::vector<pid_t> pids;
  std::uint64_t reaped = 0;
  bool started = false;

  void Loop() {
    std::unique_lock lock(mu);
    for (;;) {
      wake.wait(lock, [this] { return !pids.empty(); });
      auto gone = [this](pid_t pid) {
        int status = 0;
        const pid_t r = ::waitpid(pid, &status, WNOHANG);
        if (r == 0 || (r < 0 && errno == EINTR)) return false;
        ++reaped;  // reaped now, or (ECHILD) by someone else already
        return true;
      };
      pids.erase(std::remove_if(pids.begin(), pids.end(), gone), pids.end());
      if (!pids.empty()) wake.wait_for(lock, kReapPoll);
    }
  }
};

ChildReaper::ChildReaper() : state_(new State) {}

ChildReaper& ChildReaper::Instance() {
  // Never destroyed (see the header): a function-local static would join the thread at exit.
  static ChildReaper* const instance = new ChildReaper;
  return *instance;
}

void ChildReaper::Adopt(pid_t pid) {
  if (pid <= 0) return;
  State* s = state_;
  {
    std::lock_guard lock(s->mu);
    s->pids.push_back(pid);
    if (!s->started) {
      s->started = true;
      std::thread([s] { s->Loop(); }).detach();
    }
  }
  s->wake.notify_one();
}

std::size_t ChildReaper::pending() const {
  std::lock_guard lock(state_->mu);
  return state_->pids.size();
}

std::uint64_t ChildReaper::reaped() const {
  std::lock_guard lock(state_->mu);
  return state_->reaped;
}

}  // namespace sparse::multilang
