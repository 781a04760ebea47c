#include "cli/exit_status.hpp"

#include <iostream>

#include "cli/console.hpp"
#include "runtime/local_cluster.hpp"
#include "runtime/topology_loader.hpp"

namespace sparse::cli {

int ExitCode(base::Errc errc) {
  switch (errc) {
    case base::Errc::kUsage:
    case base::Errc::kNotFound:
    case base::Errc::kIo:
    case base::Errc::kInvalidInput:
    case base::Errc::kBuildFailed:
    case base::Errc::kInternal:
      return 1;
    case base::Errc::kInvalidTopology:
      return 2;
    case base::Errc::kStartFailed:
      return 3;
    case base::Errc::kCrashLoop:
      return 4;
    case base::Errc::kRemote:
      return 5;
    case base::Errc::kInterrupted:
      return 130;  // as a shell reports a process ended by SIGINT
  }
  return 1;  // not reached: the switch names every kind
}

int ExitCode(runtime::RunStatus status) {
  switch (status) {
    case runtime::RunStatus::kOk:
      return kExitOk;
    case runtime::RunStatus::kStartFailed:
      return ExitCode(base::Errc::kStartFailed);
    case runtime::RunStatus::kFailed:
      return ExitCode(base::Errc::kCrashLoop);
    case runtime::RunStatus::kForced:
      return ExitCode(base::Errc::kInterrupted);
  }
  return ExitCode(base::Errc::kInternal);
}

std::string_view ExitCodesHelp() {
  return R"(Exit codes:
  0    success (for run: stopped by time limit, Ctrl-C drain, or idle stop)
  1    usage, I/O or unexpected error
  2    invalid topology or project configuration (file:line in the message)
  3    a component could not start (command not found, no handshake)
  4    a component kept failing while running (crash loop)
  5    a remote service (Nimbus, Kafka) refused or could not be reached
  130  stopped by a second Ctrl-C without draining)";
}

int ReportFailure(const std::exception& e) {
  const Style style = Style::ForStderr();
  if (const auto* topology = dynamic_cast<const runtime::TopologyError*>(&e)) {
    std::cerr << style.Paint("invalid topology:", "31") << "\n";
    for (const auto& d : topology->diagnostics()) std::cerr << "  " << d.ToString() << "\n";
    return ExitCode(topology->errc());
  }
  std::cerr << "sparse: " << style.Paint("error:", "31") << " " << e.what() << "\n";
  if (const auto* error = dynamic_cast<const base::Error*>(&e)) return ExitCode(error->errc());
  return ExitCode(base::Errc::kInternal);
}

}  // namespace sparse::cli
