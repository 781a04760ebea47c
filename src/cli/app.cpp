#include <csignal>
#include <iostream>

#include "cli/commands.hpp"
#include "cli/paths.hpp"
#include "cli/run_guard.hpp"
#include "kafka/register.hpp"
#include "runtime/builtin.hpp"

namespace sparse::cli {

namespace {
constexpr const char* kFooter = R"(Examples:
  sparse quickstart wordcount          write a new project into ./wordcount
  cd wordcount && sparse run -t 10     run its topology locally for 10 seconds
  sparse run topologies/x.yaml -o topology.debug=true

Exit codes:
  0    success (for run: stopped by time limit, Ctrl-C drain, or idle stop)
  1    usage, I/O or unexpected error
  2    invalid topology or project configuration (file:line in the message)
  3    a component could not start (command not found, no handshake)
  4    a component kept failing while running (crash loop)
  5    a remote service (Nimbus, Kafka) refused or could not be reached
  130  stopped by a second Ctrl-C without draining

Environment:
  SPARSE_HOME   where sparse's share/ files live (default: next to the binary)
  NO_COLOR      disable colours)";
}  // namespace

int Main(int argc, char** argv) {
  // Not a command for people: the guard process of a run (run_guard.hpp).
  if (argc >= 2 && std::string_view(argv[1]) == "__guard") return GuardMain(argc, argv);
  // Writing to a child that died must be an error value, not a signal that kills the runtime.
  ::signal(SIGPIPE, SIG_IGN);
  runtime::RegisterStandardBuiltins();
  kafka::RegisterKafkaBuiltins();
  CLI::App app{
      "sparse: run Storm-style stream topologies of multilang components locally, and "
      "submit them to Apache Storm."};
  app.footer(kFooter);
  app.require_subcommand(1);
  app.set_version_flag("--version", std::string("sparse ") + SPARSE_VERSION);
  Action action;
  RegisterQuickstart(app, action);
  RegisterRun(app, action);
  RegisterExtraCommands(app, action);
  RegisterHelp(app, action);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e) == 0 ? exit_code::kOk : exit_code::kError;
  }
  if (!action) return exit_code::kError;
  try {
    return action();
  } catch (const std::exception& e) {
    std::cerr << "sparse: error: " << e.what() << "\n";
    return exit_code::kError;
  }
}

}  // namespace sparse::cli
