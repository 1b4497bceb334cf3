#include "frota/cli/command.h"

#include <fmt/core.h>
#include <unistd.h>

#include <random>

#include "frota/sink/pg_connection.h"
#include "frota/sink/postgres_to_duckdb.h"

namespace frota::cli {

int ReportError(const base::Error& error) {
  fmt::print(stderr, "frota: {}\n", error.message());
  return error.kind() == base::Error::Kind::kInvalidInput ||
                 error.kind() == base::Error::Kind::kNotFound ||
                 error.kind() == base::Error::Kind::kIo
             ? kExitBadInput
             : kExitFailedCheck;
}

void AddRuleOption(CLI::App& sub, std::vector<std::string>& rules) {
  sub.add_option("--rule", rules,
                 "Set a rule KEY=VALUE (repeatable): future_tolerance_s, stale_after_s, "
                 "max_speed_kmh.<mode>, watermark_slack_s, idle_timeout_s, "
                 "max_segment_speed_kmh.<mode>")
      ->take_all()
      ->allow_extra_args(false);
}

void AddGaragesOption(CLI::App& sub, std::string& garages) {
  sub.add_option("--garages", garages,
                 "GeoJSON of the garages: a stop inside one is at a depot (PATH or "
                 "PATH#PROPERTY=VALUE); without it depots are found in the data");
}

sink::GarageRecord GarageRecordOf(const runner::ReplayContext& context) {
  return context.garages ? sink::GarageEdges(context.garages->rings()) : sink::GarageRecord{};
}

void AddRetainDaysOption(CLI::App& sub, runner::RetentionPolicy& retention, std::string_view what) {
  sub.add_option_function<std::int32_t>(
         "--retain-days", [&retention](std::int32_t days) { retention.raw_days = days; },
         std::string(what))
      ->check(CLI::Range(1, 100'000));
}

void AddRetentionOptions(CLI::App& sub, runner::RetentionPolicy& retention) {
  AddRetainDaysOption(
      sub, retention,
      "Keep raw input (positions, rejected, duplicate_counts, collector_polls, "
      "aircraft_positions, and the bronze archive read or written) for the N local days up to "
      "the newest data's, removing older days at epoch boundaries once committed (default: "
      "keep everything)");
  sub.add_option_function<std::int32_t>(
         "--retain-results-days",
         [&retention](std::int32_t days) { retention.results_days = days; },
         "Keep result tables (speed, stops, trips, quality, departures, headways, alerts, ...) "
         "for the M local days up to the newest data's (default: keep everything)")
      ->check(CLI::Range(1, 100'000));
}

void AddWindowOptions(CLI::App& sub, WindowFlags& flags) {
  sub.add_option("--from", flags.from,
                 "First local date read, YYYY-MM-DD (default: the first the database holds)");
  sub.add_option("--to", flags.to,
                 "Last local date read, YYYY-MM-DD, included (default: the last it holds)");
}

base::Result<base::TimeZone> ReaderTimeZone(std::string_view flag, std::string_view gtfs_zone) {
  if (!flag.empty()) {
    return base::TimeZone::Load(flag);
  }
  return base::TimeZone::Load(gtfs_zone.empty() ? std::string_view("America/Sao_Paulo")
                                                : gtfs_zone);
}

void ResultsFile::Describe() const {
  if (!description_.empty()) {
    fmt::print(stderr, "{}", description_);
  }
}

base::Result<std::unique_ptr<ResultsFile>> ResultsFile::Open(const std::string& db,
                                                             const std::string& postgres,
                                                             const sink::DateWindow& window,
                                                             const base::TimeZone& zone) {
  std::unique_ptr<ResultsFile> file(new ResultsFile());
  if (postgres.empty() && !window.bounded()) {
    file->path_ = db;
    return file;
  }
  const auto base = std::filesystem::temp_directory_path();
  std::random_device random;
  for (int attempt = 0; attempt < 100 && file->scratch_.empty(); ++attempt) {
    auto candidate = base / fmt::format("frota-results-{}-{:08x}", ::getpid(), random());
    std::error_code error;
    if (std::filesystem::create_directory(candidate, error)) {
      file->scratch_ = std::move(candidate);
    }
  }
  if (file->scratch_.empty()) {
    return base::IoError("no new folder under {} for the copy of {}", base.string(),
                         sink::PgConnection::Describe(postgres));
  }
  file->path_ = file->scratch_ / "results.duckdb";
  // Closed at once: the reader opens (or attaches) the file itself.
  if (postgres.empty()) {
    FROTA_ASSIGN_OR_RETURN(auto copy, sink::CopyDuckDbWindow(db, file->path_, window, zone));
    file->description_ = std::move(copy.description);
    file->empty_ = copy.held.empty();
    return file;
  }
  FROTA_ASSIGN_OR_RETURN(auto copy,
                         sink::CopyPostgresToDuckDb(postgres, file->path_, nullptr, window, zone));
  if (window.bounded()) {
    FROTA_ASSIGN_OR_RETURN(auto current, copy->Query("SELECT current_database()"));
    FROTA_ASSIGN_OR_RETURN(const auto held, sink::FindHeldDates(*copy, current.String(0, 0), zone));
    file->description_ = sink::DescribeWindow(window, held, held);
    file->empty_ = held.empty();
  }
  return file;
}

base::Result<std::unique_ptr<ResultsFile>> ResultsFile::OpenWindow(const std::string& db,
                                                                   const std::string& postgres,
                                                                   const WindowFlags& flags,
                                                                   std::string_view time_zone) {
  FROTA_ASSIGN_OR_RETURN(const auto window, flags.Parse());
  FROTA_ASSIGN_OR_RETURN(const auto zone, ReaderTimeZone(time_zone, {}));
  return Open(db, postgres, window, zone);
}

ResultsFile::~ResultsFile() {
  if (!scratch_.empty()) {
    std::error_code ignored;
    std::filesystem::remove_all(scratch_, ignored);
  }
}

}  // namespace frota::cli
