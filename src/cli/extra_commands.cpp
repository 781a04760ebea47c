// Subcommands of other subsystems hook in here, so app.cpp stays the same as they are added.
#include "cli/cmd_kafka.hpp"
#include "cli/commands.hpp"
#include "cli/observability_commands.hpp"
#include "cli/storm_commands.hpp"
#include "cli/streamparse_project.hpp"

namespace sparse::cli {

void RegisterExtraCommands(CLI::App& app, Action& action,
                           const runtime::BuiltinRegistry& builtins) {
  (void)app;
  (void)action;
  RegisterKafkaCommands(app, action);
  RegisterStormCommands(app, action, builtins);
  RegisterObservabilityCommands(app, action, builtins);
  RegisterStreamparseCommands(app, action);
}

}  // namespace sparse::cli
