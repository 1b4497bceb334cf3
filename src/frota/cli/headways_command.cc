#include <fmt/core.h>

#include "frota/batch/headways.h"
#include "frota/cli/commands.h"
#include "frota/gtfs/static_feed.h"
#include "frota/sink/duckdb_sink.h"
#include "frota/sink/postgres_to_duckdb.h"

namespace frota::cli {

namespace {

struct HeadwaysFlags {
  batch::HeadwayOptions options;
  std::string db;
  std::string postgres;
  std::string gtfs;
  std::string holidays;
  WindowFlags window;
  bool json = false;
};

// The tables a run keeps in the database it read: with the alerts, which a database Kafka
// members wrote has none of (they do not run the regularity jobs); the batch computes
// them as the stream would.
std::vector<std::string> KeptTables() {
  std::vector<std::string> tables = batch::HeadwayTables();
  tables.emplace_back("alerts");
  return tables;
}

// `--from`/`--to`: computed on a copy of the window's rows, then only the window's days
// written back (a table without dates, such as headway_summary, whole).
base::Result<batch::HeadwayReport> WindowHeadways(const HeadwaysFlags& flags,
                                                  const gtfs::StaticFeed& feed,
                                                  const sink::DateWindow& window) {
  FROTA_ASSIGN_OR_RETURN(const auto zone,
                         ReaderTimeZone(flags.options.time_zone, feed.time_zone()));
  FROTA_ASSIGN_OR_RETURN(const auto results,
                         ResultsFile::Open(flags.db, flags.postgres, window, zone));
  results->Describe();
  if (results->empty()) {
    return batch::HeadwayReport{};
  }
  FROTA_ASSIGN_OR_RETURN(auto copy, sink::OpenFrotaDuckDb(results->path(), /*must_exist=*/true));
  FROTA_ASSIGN_OR_RETURN(auto report, batch::ComputeHeadways(*copy, feed, flags.options));
  FROTA_RETURN_IF_ERROR(
      flags.postgres.empty()
          ? sink::ReplaceDuckDbWindowRows(*copy, flags.db, KeptTables(), window, zone)
          : sink::ReplacePostgresTables(*copy, flags.postgres, KeptTables(), window, zone));
  return report;
}

// The whole database: DuckDB in place; PostgreSQL computed on a copy of its results in
// DuckDB (the same queries, so the same numbers), then the tables written back into it
// in one transaction.
base::Result<batch::HeadwayReport> AllHeadways(const HeadwaysFlags& flags,
                                               const gtfs::StaticFeed& feed) {
  FROTA_ASSIGN_OR_RETURN(auto db, flags.postgres.empty()
                                      ? sink::OpenFrotaDuckDb(flags.db, /*must_exist=*/true)
                                      : sink::CopyPostgresToDuckDb(flags.postgres));
  FROTA_ASSIGN_OR_RETURN(auto report, batch::ComputeHeadways(*db, feed, flags.options));
  if (!flags.postgres.empty()) {
    FROTA_RETURN_IF_ERROR(sink::ReplacePostgresTables(*db, flags.postgres, KeptTables()));
  }
  return report;
}

int RunHeadways(HeadwaysFlags& flags) {
  auto feed = gtfs::StaticFeed::Load(flags.gtfs);
  if (!feed.ok()) {
    return ReportError(feed.error());
  }
  const auto window = flags.window.Parse();
  if (!window.ok()) {
    return ReportError(window.error());
  }
  flags.options.holidays = flags.holidays;
  const auto report =
      window->bounded() ? WindowHeadways(flags, *feed, *window) : AllHeadways(flags, *feed);
  if (!report.ok()) {
    return ReportError(report.error());
  }
  if (flags.json) {
    fmt::print("{}\n", batch::HeadwayJson(*report));
  } else {
    fmt::print("{}", batch::HeadwayText(*report));
  }
  return kExitOk;
}

}  // namespace

void AddHeadwaysCommand(CLI::App& app, CommandMain& run) {
  auto flags = std::make_shared<HeadwaysFlags>();
  auto* sub = app.add_subcommand(
      "headways", "Departures and headways per route, direction and hour against the GTFS plan");
  sub->footer("\nThe text table's columns:\n" + std::string(batch::HeadwayTextLegend()));
  auto* db = sub->add_option("--db", flags->db, "DuckDB database written by replay or run");
  auto* pg = sub->add_option("--postgres", flags->postgres, "PostgreSQL DSN instead of --db");
  db->excludes(pg);
  sub->add_option("--gtfs", flags->gtfs, "Static GTFS (zip or folder)")->required();
  sub->add_option("--holidays", flags->holidays,
                  "CSV of more holidays (date,name), e.g. municipal ones");
  sub->add_option("--time-zone", flags->options.time_zone,
                  "IANA zone of service days (default: the GTFS agency's)");
  sub->add_option("--coverage-gap-minutes", flags->options.coverage_gap_minutes,
                  "Minutes without a position of a feed that make a coverage gap")
      ->default_val(5)
      ->check(CLI::Range(1, 1440));
  sub->add_option("--min-headways", flags->options.min_headways,
                  "Measured headways a statistic needs (fewer: only counts are given)")
      ->default_val(10)
      ->check(CLI::Range(1, 1000000));
  sub->add_flag("--compare-inferred", flags->options.compare_inferred,
                "Also find the departures with trip ids ignored and report how many match");
  AddWindowOptions(*sub, flags->window);
  sub->add_flag("--json", flags->json, "Print the report as JSON");
  sub->callback([flags, &run] {
    if (flags->db.empty() && flags->postgres.empty()) {
      throw CLI::RequiredError("--db or --postgres");
    }
    run = [flags] { return RunHeadways(*flags); };
  });
}

}  // namespace frota::cli
