// Subcommands of the `sparse` CLI. Each lives in its own file and registers itself on the app;
// `main.cpp` only builds the app and runs it. Conventions (design.md): data on stdout, messages
// on stderr, `--json` where the output is a table, colour only on a TTY and never with NO_COLOR.
#pragma once

#include <CLI/CLI.hpp>
#include <functional>
#include <memory>

#include "cli/exit_status.hpp"

namespace sparse::runtime {
class BuiltinRegistry;
}

namespace sparse::cli {

// A registered subcommand sets `action` to what runs when it is chosen; the action returns the
// process exit code (kExitOk or ExitCode(kind), cli/exit_status.hpp).
using Action = std::function<int()>;

// Commands that load topologies take the registry of built-in components Main builds
// (runtime/builtin_registry.hpp); it outlives the app and its actions.
void RegisterRun(CLI::App& app, Action& action, const runtime::BuiltinRegistry& builtins);
void RegisterQuickstart(CLI::App& app, Action& action);
// Further subcommands (submit, list, kill, ..., kafka, stats, visualize, tail) register here too.
void RegisterExtraCommands(CLI::App& app, Action& action, const runtime::BuiltinRegistry& builtins);
// `sparse help [COMMAND]` (registered last: it describes the others).
void RegisterHelp(CLI::App& app, Action& action);

int Main(int argc, char** argv);

}  // namespace sparse::cli
