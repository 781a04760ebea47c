// Nothing a run starts outlives it: not its components, not what they start (a `setsid`
// daemon, a grandchild that escaped the component's process group), not even after kill -9 of
// the runtime.
//
// Every component's environment carries SPARSE_RUN_ID=<a random id of this run>, which the
// processes it starts inherit. When the run ends, every process of this user whose environment
// carries the id is killed:
//   - by the runtime itself when it stops (RunGuard's destructor), and
//   - by a small guard process (`sparse-guard`, next to the sparse binary, else `sparse
//     __guard`; started by RunGuard) that the kernel signals when the runtime dies, however it
//     dies (PR_SET_PDEATHSIG).
// What is not covered: a descendant that replaces its environment (exec with a clean one) or
// runs as another user; a cgroup would catch those, and is not required here.
#pragma once

#include <string>

#include "cli/run_sweep.hpp"

namespace sparse::cli {

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

}  // namespace sparse::cli
