// Subcommands of the `sparse` CLI. Each lives in its own file and registers itself on the app;
// `main.cpp` only builds the app and runs it. Conventions (design.md): data on stdout, messages
// on stderr, `--json` where the output is a table, colour only on a TTY and never with NO_COLOR.
#pragma once

#include <CLI/CLI.hpp>
#include <functional>
#include <memory>

namespace sparse::cli {

// Exit codes shared by every subcommand (documented in `sparse --help` and the README).
namespace exit_code {
inline constexpr int kOk = 0;
inline constexpr int kError = 1;            // usage, I/O, or an unexpected error
inline constexpr int kInvalidTopology = 2;  // the topology or project config is invalid
inline constexpr int kStartFailed = 3;      // a component could not start
inline constexpr int kRuntimeFailed = 4;    // a component kept failing (crash loop)
inline constexpr int kRemoteFailed = 5;     // Nimbus / a remote service refused or is unreachable
inline constexpr int kForced = 130;         // a second Ctrl-C: stopped without draining
}  // namespace exit_code

// A registered subcommand sets `action` to what runs when it is chosen; the action returns the
// process exit code.
using Action = std::function<int()>;

void RegisterRun(CLI::App& app, Action& action);
void RegisterQuickstart(CLI::App& app, Action& action);
// Further subcommands (submit, list, kill, ..., kafka, stats, visualize, tail) register here too.
void RegisterExtraCommands(CLI::App& app, Action& action);
// `sparse help [COMMAND]` (registered last: it describes the others).
void RegisterHelp(CLI::App& app, Action& action);

int Main(int argc, char** argv);

}  // namespace sparse::cli
