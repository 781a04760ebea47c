#include "cli/process_identity.hpp"

#include <signal.h>
#include <unistd.h>

#include <cerrno>
#include <fstream>
#include <sstream>

namespace sparse::cli {

std::optional<std::uint64_t> ProcessIdentity::StartTicksOf(int pid) {
  if (pid <= 0) return std::nullopt;
  std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
  std::string stat;
  if (!std::getline(in, stat)) return std::nullopt;
  // The command name (field 2) may hold spaces and parentheses: fields restart after the last ')'.
  const auto close = stat.rfind(')');
  if (close == std::string::npos) return std::nullopt;
  std::istringstream fields(stat.substr(close + 1));
  std::string state;
  fields >> state;  // field 3
  if (state == "Z" || state == "X") return std::nullopt;
  std::string skip;
  for (int field = 4; field < 22; ++field) fields >> skip;
  std::uint64_t start = 0;
  if (!(fields >> start)) return std::nullopt;
  return start;
}

ProcessIdentity ProcessIdentity::Self() {
  ProcessIdentity me;
  me.pid = static_cast<int>(::getpid());
  me.start_ticks = StartTicksOf(me.pid).value_or(0);
  return me;
}

bool ProcessIdentity::Alive() const {
  if (pid <= 0) return false;
  if (const auto start = StartTicksOf(pid)) return start_ticks == 0 || *start == start_ticks;
  // No /proc entry readable: fall back to a signal probe (EPERM: alive, someone else's).
  return ::access("/proc/self/stat", R_OK) != 0 && (::kill(pid, 0) == 0 || errno == EPERM);
}

std::string ProcessIdentity::Encode() const {
  return std::to_string(pid) + " " + std::to_string(start_ticks);
}

std::optional<ProcessIdentity> ProcessIdentity::Decode(const std::string& text) {
  std::istringstream in(text);
  ProcessIdentity id;
  if (!(in >> id.pid) || id.pid <= 0) return std::nullopt;
  if (!(in >> id.start_ticks)) id.start_ticks = 0;
  return id;
}

}  // namespace sparse::cli
