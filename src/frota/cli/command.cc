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

base::Result<std::unique_ptr<ResultsFile>> ResultsFile::Open(const std::string& db,
                                                             const std::string& postgres) {
  std::unique_ptr<ResultsFile> file(new ResultsFile());
  if (postgres.empty()) {
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
  FROTA_ASSIGN_OR_RETURN(auto copy, sink::CopyPostgresToDuckDb(postgres, file->path_));
  return file;
}

ResultsFile::~ResultsFile() {
  if (!scratch_.empty()) {
    std::error_code ignored;
    std::filesystem::remove_all(scratch_, ignored);
  }
}

}  // namespace frota::cli
