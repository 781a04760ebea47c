// `sparse kafka ...`: an embedded Kafka broker for development (serve) and small produce /
// consume helpers for demos and debugging.
#pragma once

#include "cli/commands.hpp"

namespace sparse::cli {

void RegisterKafkaCommands(CLI::App& app, Action& action);

}  // namespace sparse::cli
