// The runtime's peak resident memory, for `sparse run --stats-json` (runtime_max_rss_kb).
//
// getrusage's ru_maxrss is not that figure when the runtime was started with vfork (glibc's
// posix_spawn, Python's subprocess): Linux carries the high-water mark of the memory the process
// had before its execve into the new program's, so a runtime started by a 500 MB Python process
// reported 500 MB. /proc/self/status's VmHWM belongs to the program's own address space.
#pragma once

#include <optional>
#include <string_view>

namespace sparse::cli {

// VmHWM of a /proc/PID/status text, in KiB; nullopt when absent or unreadable.
std::optional<long> VmHwmKb(std::string_view status);

// This process's peak RSS in KiB: VmHWM, else ru_maxrss (where /proc is not mounted).
long PeakRssKb();

}  // namespace sparse::cli
