// The `frota` binary: parses the command line and runs one subcommand.
#include <fmt/core.h>

#include <exception>

#include "frota/base/log.h"
#include "frota/cli/command.h"
#include "frota/cli/commands.h"
#include "frota/version.h"

namespace {

int Main(int argc, char** argv) {
  CLI::App app{"frota: a stream processor for fleet positions (GTFS-Realtime, Rio GPS, OpenSky)"};
  app.require_subcommand(1);
  app.set_version_flag("--version", std::string("frota ") + frota::kVersion);
  frota::base::LogOptions log_options;
  app.add_flag("-v,--verbose", log_options.verbose,
               "Debug detail: into the log file if there is one (the terminal keeps info), "
               "else on the terminal");
  app.add_flag("-q,--quiet", log_options.quiet, "The terminal shows warnings and errors only");
  app.add_option("--log-file", log_options.file, "Also log to this rotating file (5 MB x 3)");
  app.add_option("--log-level-file", log_options.file_level,
                 "The log file's level: trace, debug, info, warn, error (default: info, debug "
                 "with --verbose)")
      ->check(
          CLI::IsMember({"trace", "debug", "info", "warn", "warning", "error", "critical", "off"}));

  // Each registrar adds its subcommand; the one the user chose sets `run` while parsing.
  frota::cli::CommandMain run;
  for (const auto registrar : frota::cli::kCommands) {
    registrar(app, run);
  }
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    const int code = app.exit(e);
    return code == 0 ? 0 : frota::cli::kExitBadInput;
  }
  if (const auto logging = frota::base::InitLogging(log_options); !logging.ok()) {
    return frota::cli::ReportError(logging.error());
  }
  if (!run) {
    fmt::print(stderr, "frota: no subcommand chosen; see frota --help\n");
    return frota::cli::kExitBadInput;
  }
  return run();
}

}  // namespace

// An exception nothing below handled (a full string dictionary, memory exhausted) ends
// the run with its message and kExitFailedCheck, not std::terminate's abort.
int main(int argc, char** argv) {
  try {
    return Main(argc, argv);
  } catch (const std::exception& e) {
    fmt::print(stderr, "frota: {}\n", e.what());
  } catch (...) {
    fmt::print(stderr, "frota: an unknown exception ended the run\n");
  }
  return frota::cli::kExitFailedCheck;
}
