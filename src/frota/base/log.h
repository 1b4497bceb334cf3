// Logging setup: frota's messages on stderr and, optionally, a rotating file with its own
// level, for the technical detail.
#pragma once

#include <spdlog/spdlog.h>

#include <optional>
#include <string>
#include <string_view>

#include "frota/base/status.h"

namespace frota::base {

struct LogOptions {
  /// Debug detail: into the file when there is one (the terminal keeps info), else on
  /// the terminal.
  bool verbose = false;
  bool quiet = false;  // the terminal shows warnings and errors only
  std::string file;    // rotating file (5 MB x 3) when not empty
  /// The file's level ("debug", "info", ...); empty: debug with `verbose`, else info.
  std::string file_level;
};

/// "trace", "debug", "info", "warn" (or "warning"), "error", "critical", "off"; nullopt
/// for anything else.
std::optional<spdlog::level::level_enum> ParseLogLevel(std::string_view name);

/// The levels `options` give: the terminal's and the file's (equal to the terminal's
/// when there is no file).
struct LogLevels {
  spdlog::level::level_enum terminal;
  spdlog::level::level_enum file;
};
LogLevels LogLevelsOf(const LogOptions& options);

/// Installs frota's default logger: stderr at the terminal level, lines "L HH:MM:SS.mmm
/// message"; the file, if any, at its level, with the date, zone, level and thread id.
/// Call from main, and again to add a file a configuration names (the options are
/// remembered: CurrentLogOptions). An unknown file_level is an error, logging unchanged.
Status InitLogging(const LogOptions& options);
/// The options of the last InitLogging (defaults before any).
const LogOptions& CurrentLogOptions();

}  // namespace frota::base
