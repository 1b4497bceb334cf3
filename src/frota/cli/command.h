// How subcommands plug into the `frota` binary: each adds itself to the CLI11 app.
#pragma once

#include <CLI/CLI.hpp>
#include <filesystem>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "frota/base/status.h"
#include "frota/base/time_zone.h"
#include "frota/runner/replay_runner.h"
#include "frota/runner/retention.h"
#include "frota/sink/garages_record.h"
#include "frota/sink/window.h"

namespace frota::cli {

/// Exit codes of every subcommand (../shared/docs/cli.md).
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

/// `--rule KEY=VALUE` (repeatable) into `rules`: the thresholds of semantics.md
/// sections 2-3 by the keys of job/rules.h, applied after the configuration's [rules].
void AddRuleOption(CLI::App& sub, std::vector<std::string>& rules);
/// `--garages PATH[#PROPERTY=VALUE]` into `garages` (runner::ReplayConfig::garages).
void AddGaragesOption(CLI::App& sub, std::string& garages);
/// The edges of the context's garages for a sink's options (none without --garages).
sink::GarageRecord GarageRecordOf(const runner::ReplayContext& context);
/// `--retain-days N` and `--retain-results-days M` (docs/tables.md "Retention").
void AddRetentionOptions(CLI::App& sub, runner::RetentionPolicy& retention);
/// `--retain-days N` alone, described as `what` (collect: its archive only).
void AddRetainDaysOption(CLI::App& sub, runner::RetentionPolicy& retention, std::string_view what);

/// `--from DATE` and `--to DATE` of a reader (docs/tables.md "Dates").
struct WindowFlags {
  std::string from;
  std::string to;
  [[nodiscard]] base::Result<sink::DateWindow> Parse() const {
    return sink::ParseDateWindow(from, to);
  }
};
void AddWindowOptions(CLI::App& sub, WindowFlags& flags);

/// The zone of local dates, as `frota replay` chose it: `flag` (--time-zone), else
/// `gtfs_zone` (the GTFS agency's), else America/Sao_Paulo.
base::Result<base::TimeZone> ReaderTimeZone(std::string_view flag, std::string_view gtfs_zone);

/// The DuckDB file a reader works on: `db` as given, or for a PostgreSQL DSN `postgres`
/// a copy of its results (sink::CopyPostgresToDuckDb), or for a bounded `window` a copy of
/// the window's rows (sink::CopyDuckDbWindow, or the PostgreSQL copy of the window
/// alone): copies in a new folder under the system's temporary folder, removed with this
/// object.
class ResultsFile {
 public:
  static base::Result<std::unique_ptr<ResultsFile>> Open(
      const std::string& db, const std::string& postgres, const sink::DateWindow& window = {},
      const base::TimeZone& zone = base::TimeZone::Utc());
  /// Open with the window of `flags` in the zone `time_zone` (ReaderTimeZone, no GTFS).
  static base::Result<std::unique_ptr<ResultsFile>> OpenWindow(const std::string& db,
                                                               const std::string& postgres,
                                                               const WindowFlags& flags,
                                                               std::string_view time_zone);
  ~ResultsFile();
  ResultsFile(const ResultsFile&) = delete;
  ResultsFile& operator=(const ResultsFile&) = delete;
  [[nodiscard]] const std::filesystem::path& path() const { return path_; }
  /// Whether a bounded window holds no data at all.
  [[nodiscard]] bool empty() const { return empty_; }
  /// Prints what the window holds (sink::DescribeWindow) on stderr; nothing when unbounded.
  void Describe() const;

 private:
  ResultsFile() = default;
  std::filesystem::path path_;
  std::filesystem::path scratch_;  // empty for --db
  std::string description_;
  bool empty_ = false;
};

}  // namespace frota::cli
