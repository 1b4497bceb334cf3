// How subcommands plug into the `frota` binary: each adds itself to the CLI11 app.
#pragma once

#include <CLI/CLI.hpp>

#include <functional>
#include <string>

#include "frota/base/status.h"

namespace frota::cli {

/// Exit codes of every subcommand (docs/cli.md).
inline constexpr int kExitOk = 0;
inline constexpr int kExitFailedCheck = 1;
inline constexpr int kExitBadInput = 2;

/// What a subcommand runs once its flags are parsed; returns the exit code.
using CommandMain = std::function<int()>;

/// Registers a subcommand: `app` gets the subcommand and its flags; `run` is set to its
/// main, to be called by main() if that subcommand was chosen.
using CommandRegistrar = void (*)(CLI::App& app, CommandMain& run);

/// Prints `error` as one line on stderr ("frota: <message>") and returns its exit code:
/// 2 for bad input or usage, 1 for failed checks and everything else.
int ReportError(const base::Error& error);

}  // namespace frota::cli
