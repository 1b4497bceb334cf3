// The list of subcommands compiled into `frota`, in the order --help shows them.
#pragma once

#include "frota/cli/command.h"

namespace frota::cli {

void AddDemoCommand(CLI::App& app, CommandMain& run);
void AddInspectCommand(CLI::App& app, CommandMain& run);
void AddGtfsInfoCommand(CLI::App& app, CommandMain& run);
void AddReplayCommand(CLI::App& app, CommandMain& run);
void AddExportCommand(CLI::App& app, CommandMain& run);
void AddDashboardCommand(CLI::App& app, CommandMain& run);
void AddReconcileCommand(CLI::App& app, CommandMain& run);
void AddHeadwaysCommand(CLI::App& app, CommandMain& run);
void AddServeCommand(CLI::App& app, CommandMain& run);
void AddSimulateCommand(CLI::App& app, CommandMain& run);
void AddEvaluateCommand(CLI::App& app, CommandMain& run);
void AddCollectCommand(CLI::App& app, CommandMain& run);
void AddRunCommand(CLI::App& app, CommandMain& run);
void AddFeedServerCommand(CLI::App& app, CommandMain& run);
void AddStatusCommand(CLI::App& app, CommandMain& run);
void AddVersionCommand(CLI::App& app, CommandMain& run);

inline constexpr CommandRegistrar kCommands[] = {
    AddDemoCommand,   AddInspectCommand,    AddGtfsInfoCommand,  AddReplayCommand,
    AddExportCommand, AddDashboardCommand,  AddReconcileCommand, AddHeadwaysCommand,
    AddServeCommand,  AddSimulateCommand,   AddEvaluateCommand,  AddCollectCommand,
    AddRunCommand,    AddFeedServerCommand, AddStatusCommand,    AddVersionCommand,
};

}  // namespace frota::cli
