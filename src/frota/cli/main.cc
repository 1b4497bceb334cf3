// The `frota` binary: parses the command line and runs one subcommand.
#include <fmt/core.h>

#include <algorithm>
#include <exception>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "frota/base/log.h"
#include "frota/cli/command.h"
#include "frota/cli/commands.h"
#include "frota/version.h"

namespace {

// Levenshtein distance, for the nearest subcommand to a mistyped one.
std::size_t EditDistance(std::string_view a, std::string_view b) {
  std::vector<std::size_t> row(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) {
    row[j] = j;
  }
  for (std::size_t i = 1; i <= a.size(); ++i) {
    std::size_t diagonal = row[0];
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t above = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diagonal = above;
    }
  }
  return row[b.size()];
}

// The first word of the command line that is neither a global option nor its value: the
// subcommand the user meant, empty when there is none.
std::string SubcommandWord(const CLI::App& app, int argc, char** argv) {
  for (int i = 1; i < argc; ++i) {
    const std::string_view word = argv[i];
    if (word.empty() || word[0] != '-') {
      return std::string(word);
    }
    const auto* option = app.get_option_no_throw(std::string(word.substr(0, word.find('='))));
    // A flag expects no item (CLI11's expected(0)); an option with a value takes the next word.
    if (option != nullptr && option->get_items_expected_max() > 0 && word.find('=') == word.npos) {
      ++i;  // its value
    }
  }
  return {};
}

// An unknown subcommand named, with the nearest known one (CLI11 says only that a
// subcommand is required).
std::optional<std::string> UnknownSubcommand(const CLI::App& app, const std::string& word) {
  const auto subcommands = app.get_subcommands([](const CLI::App*) { return true; });
  if (word.empty() || std::any_of(subcommands.begin(), subcommands.end(),
                                  [&](const CLI::App* sub) { return sub->check_name(word); })) {
    return std::nullopt;
  }
  std::string nearest;
  std::size_t best = std::numeric_limits<std::size_t>::max();
  for (const auto* sub : subcommands) {
    if (const std::size_t d = EditDistance(word, sub->get_name()); d < best) {
      best = d;
      nearest = sub->get_name();
    }
  }
  std::string message = fmt::format("frota: unknown subcommand '{}'", word);
  if (!nearest.empty() && best <= std::max<std::size_t>(2, nearest.size() / 3)) {
    message += fmt::format("; did you mean '{}'?", nearest);
  }
  return message + " (frota --help lists them)";
}

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
  if (const auto unknown = UnknownSubcommand(app, SubcommandWord(app, argc, argv))) {
    fmt::print(stderr, "{}\n", *unknown);
    return frota::cli::kExitBadInput;
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
