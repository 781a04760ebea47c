// Subcommands of other subsystems hook in here, so app.cpp stays the same as they are added.
#include "cli/cmd_kafka.hpp"
#include "cli/commands.hpp"
#include "cli/observability_commands.hpp"
#include "cli/storm_commands.hpp"
#include "cli/streamparse_project.hpp"

namespace sparse::cli {

void RegisterExtraCommands(CLI::App& app, Action& action) {
  (void)app;
  (void)action;
  RegisterKafkaCommands(app, action);
  RegisterStormCommands(app, action);
  RegisterObservabilityCommands(app, action);
  RegisterStreamparseCommands(app, action);
}

}  // namespace sparse::cli
