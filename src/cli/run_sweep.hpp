// The processes of a run, found by the run id in their environment, and the guard that kills
// them once the runtime is gone (see run_guard.hpp for the whole scheme).
//
// Plain POSIX and the standard library only: the `sparse-guard` executable is this file and a
// main, so that the process that waits out every run costs about a megabyte, not the runtime's
// libraries (`sparse __guard` does the same work, for a sparse binary copied without it).
#pragma once

#include <string_view>
#include <vector>

namespace sparse::cli {

inline constexpr const char* kRunIdEnv = "SPARSE_RUN_ID";

// Live processes (not zombies) of this user whose environment has kRunIdEnv=id.
std::vector<int> ProcessesOfRun(std::string_view id);
// SIGKILLs them, again until none is left (one may fork while being found); returns how many.
int KillProcessesOfRun(std::string_view id);

// The guard: `GUARD __guard ID PARENT_PID` waits until the parent dies (its parent-death
// signal), then kills the run's processes. Returns the exit status.
int GuardMain(int argc, char** argv);

}  // namespace sparse::cli
