// Nothing a run starts outlives it: not its components, not what they start (a `setsid`
// daemon, a grandchild that escaped the component's process group), not even after kill -9 of
// the runtime.
//
// Every component's environment carries SPARSE_RUN_ID=<a random id of this run>, which the
// processes it starts inherit. When the run ends, every process of this user whose environment
// carries the id is killed:
//   - by the runtime itself when it stops (RunGuard's destructor), and
//   - by a small guard process (`sparse __guard ID PID`, started by RunGuard) that the kernel
//     signals when the runtime dies, however it dies (PR_SET_PDEATHSIG).
// What is not covered: a descendant that replaces its environment (exec with a clean one) or
// runs as another user; a cgroup would catch those, and is not required here.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace sparse::cli {

inline constexpr const char* kRunIdEnv = "SPARSE_RUN_ID";

class RunGuard {
 public:
  RunGuard();   // makes the run id and starts the guard process (best effort)
  ~RunGuard();  // kills every process still carrying the id
  RunGuard(const RunGuard&) = delete;
  RunGuard& operator=(const RunGuard&) = delete;

  const std::string& id() const { return id_; }

 private:
  std::string id_;
  int guard_pid_ = -1;
};

// Live processes (not zombies) of this user whose environment has kRunIdEnv=id.
std::vector<int> ProcessesOfRun(std::string_view id);
// SIGKILLs them, again until none is left (one may fork while being found); returns how many.
int KillProcessesOfRun(std::string_view id);

// `sparse __guard ID PARENT_PID`: waits until the parent dies, then kills the run's processes.
int GuardMain(int argc, char** argv);

}  // namespace sparse::cli
