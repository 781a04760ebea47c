// `sparse help [COMMAND]`: the same text as `sparse [COMMAND] --help` (streamparse's CLI has
// `sparse help COMMAND`, so muscle memory works here too).
#include <iostream>

#include "cli/commands.hpp"

namespace sparse::cli {

void RegisterHelp(CLI::App& app, Action& action) {
  auto topic = std::make_shared<std::string>();
  CLI::App* cmd = app.add_subcommand("help", "Show the help of sparse or of one command");
  cmd->add_option("command", *topic, "The command to describe");
  cmd->callback([&app, topic, &action] {
    action = [&app, topic] {
      if (topic->empty()) {
        std::cout << app.help();
        return kExitOk;
      }
      for (const CLI::App* sub : app.get_subcommands([](const CLI::App*) { return true; })) {
        if (sub->get_name() == *topic) {
          std::cout << sub->help();
          return kExitOk;
        }
      }
      std::cerr << "sparse: error: no command `" << *topic << "` (see `sparse help`)\n";
      return ExitCode(base::Errc::kUsage);
    };
  });
}

}  // namespace sparse::cli
