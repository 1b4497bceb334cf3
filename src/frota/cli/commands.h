// The list of subcommands compiled into `frota`, in the order --help shows them.
#pragma once

#include "frota/cli/command.h"

namespace frota::cli {

void AddVersionCommand(CLI::App& app, CommandMain& run);

inline constexpr CommandRegistrar kCommands[] = {
    AddVersionCommand,
};

}  // namespace frota::cli
