// Which process wrote a file: its pid and its start time, so that a pid reused by another
// process after the writer was killed (kill -9 leaves its files behind) is not taken for the
// writer. Linux only (/proc/PID/stat).
#pragma once

#include <cstdint>
#include <optional>
#include <string>

namespace sparse::cli {

struct ProcessIdentity {
  int pid = 0;
  std::uint64_t start_ticks = 0;  // field 22 of /proc/PID/stat; 0: unknown (older files)

  static ProcessIdentity Self();
  // The start time of a live process; nullopt when it is gone (zombies count as gone).
  static std::optional<std::uint64_t> StartTicksOf(int pid);
  // The process is running and, when start_ticks is known, is the same one.
  bool Alive() const;

  std::string Encode() const;  // "PID START"
  static std::optional<ProcessIdentity> Decode(const std::string& text);
};

}  // namespace sparse::cli
