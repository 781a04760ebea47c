#include <algorithm>
#include <csignal>
#include <iostream>
#include <string>
#include <vector>

#include "cli/commands.hpp"
#include "cli/paths.hpp"
#include "cli/run_guard.hpp"
#include "kafka/register.hpp"
#include "runtime/builtin_registry.hpp"
#include "runtime/nearest_name.hpp"

namespace sparse::cli {

namespace {
constexpr const char* kExamples = R"(Examples:
  sparse quickstart wordcount          write a new project into ./wordcount
  cd wordcount && sparse run -t 10     run its topology locally for 10 seconds
  sparse run topologies/x.yaml -o topology.debug=true

)";

constexpr const char* kEnvironment = R"(
Environment:
  SPARSE_HOME   where sparse's share/ files live (default: next to the binary)
  NO_COLOR      disable colours)";

// The names a command answers to (its name and aliases), or those of every command.
std::vector<std::string> Names(CLI::App& app) {
  std::vector<std::string> names;
  for (const CLI::App* sub : app.get_subcommands([](CLI::App*) { return true; })) {
    if (sub->get_name().empty() || sub->get_name().starts_with("__")) continue;
    names.push_back(sub->get_name());
    for (const auto& alias : sub->get_aliases()) names.push_back(alias);
  }
  return names;
}

std::vector<std::string> OptionNames(const CLI::App& command) {
  std::vector<std::string> names;
  for (const CLI::Option* o : command.get_options()) {
    for (const auto& l : o->get_lnames()) names.push_back("--" + l);
    for (const auto& s : o->get_snames()) names.push_back("-" + s);
  }
  return names;
}

std::string DidYouMean(std::string_view given, const std::vector<std::string>& known) {
  if (given.size() <= 2 && given[0] == '-') return "";  // `-x`: every short flag is near
  const auto near = runtime::NearestName(given, known);
  return near ? " (did you mean `" + *near + "`?)" : "";
}

// A first argument that is no command, said plainly with the nearest command, instead of
// CLI11's "A subcommand is required".
bool UnknownCommand(CLI::App& app, int argc, char** argv) {
  if (argc < 2 || argv[1][0] == '-') return false;
  const auto names = Names(app);
  if (std::find(names.begin(), names.end(), argv[1]) != names.end()) return false;
  std::cerr << "sparse: error: unknown command `" << argv[1] << "`" << DidYouMean(argv[1], names)
            << "\nRun `sparse --help` for the commands.\n";
  return true;
}

// After an ExtrasError: the unknown flags of the command given, each with the nearest flag.
bool UnknownFlags(const CLI::App& app, int argc, char** argv) {
  const CLI::App* command = &app;
  for (const CLI::App* sub : app.get_subcommands()) command = sub;
  const auto known = OptionNames(*command);
  bool any = false;
  for (int i = 1; i < argc; ++i) {
    std::string_view arg = argv[i];
    if (arg == "--") break;
    if (arg.size() < 2 || arg[0] != '-' || (arg[1] >= '0' && arg[1] <= '9')) continue;
    const std::string flag(arg.substr(0, arg.find('=')));
    if (flag.size() > 2 && flag[1] != '-') continue;  // -abc: short flags together, or a value
    if (std::find(known.begin(), known.end(), flag) != known.end()) continue;
    if (command != &app && app.get_option_no_throw(flag.substr(flag.find_first_not_of('-')))) {
      continue;
    }
    std::cerr << "sparse: error: unknown option `" << flag << "` for `sparse"
              << (command != &app ? " " + command->get_name() : "") << "`"
              << DidYouMean(flag, known) << "\n";
    any = true;
  }
  if (any) {
    std::cerr << "Run `sparse" << (command != &app ? " " + command->get_name() : "")
              << " --help` for its options.\n";
  }
  return any;
}
}  // namespace

int Main(int argc, char** argv) {
  // Not a command for people: the guard process of a run (run_guard.hpp).
  if (argc >= 2 && std::string_view(argv[1]) == "__guard") return GuardMain(argc, argv);
  // Writing to a child that died must be an error value, not a signal that kills the runtime.
  ::signal(SIGPIPE, SIG_IGN);
  // The built-in components every command knows, handed to those that load topologies.
  runtime::BuiltinRegistry builtins;
  runtime::RegisterStandardBuiltins(builtins);
  kafka::RegisterKafkaBuiltins(builtins);
  CLI::App app{
      "sparse: run Storm-style stream topologies of multilang components locally, and "
      "submit them to Apache Storm."};
  app.name("sparse");
  app.footer(std::string(kExamples) + std::string(ExitCodesHelp()) + "\n" + kEnvironment);
  app.require_subcommand(1);
  app.set_version_flag("--version", std::string("sparse ") + SPARSE_VERSION);
  Action action;
  RegisterQuickstart(app, action);
  RegisterRun(app, action, builtins);
  RegisterExtraCommands(app, action, builtins);
  RegisterHelp(app, action);
  if (argc == 1) {
    std::cout << app.help();
    return kExitOk;
  }
  if (UnknownCommand(app, argc, argv)) return ExitCode(base::Errc::kUsage);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    // An unknown flag is the likeliest cause of a failed parse; say which and what was meant.
    if (e.get_exit_code() != 0 && UnknownFlags(app, argc, argv))
      return ExitCode(base::Errc::kUsage);
    return app.exit(e) == 0 ? kExitOk : ExitCode(base::Errc::kUsage);
  }
  if (!action) return ExitCode(base::Errc::kUsage);
  try {
    return action();
  } catch (const std::exception& e) {
    return ReportFailure(e);
  }
}

}  // namespace sparse::cli
