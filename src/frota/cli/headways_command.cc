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
  bool json = false;
};

int RunHeadways(HeadwaysFlags& flags) {
  auto feed = gtfs::StaticFeed::Load(flags.gtfs);
  if (!feed.ok()) {
    return ReportError(feed.error());
  }
  // PostgreSQL: computed on a copy of its results in DuckDB (the same queries, so the
  // same numbers), then the tables written back into it in one transaction.
  auto db = flags.postgres.empty() ? sink::OpenFrotaDuckDb(flags.db, /*must_exist=*/true)
                                   : sink::CopyPostgresToDuckDb(flags.postgres);
  if (!db.ok()) {
    return ReportError(db.error());
  }
  flags.options.holidays = flags.holidays;
  const auto report = batch::ComputeHeadways(**db, *feed, flags.options);
  if (!report.ok()) {
    return ReportError(report.error());
  }
  if (!flags.postgres.empty()) {
    // With the alerts: a database Kafka members wrote has none of its own (they do not
    // run the regularity jobs); the batch computes them as the stream would.
    std::vector<std::string> tables = batch::HeadwayTables();
    tables.emplace_back("alerts");
    if (const auto written = sink::ReplacePostgresTables(**db, flags.postgres, tables);
        !written.ok()) {
      return ReportError(written.error());
    }
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
  sub->add_flag("--json", flags->json, "Print the report as JSON");
  sub->callback([flags, &run] {
    if (flags->db.empty() && flags->postgres.empty()) {
      throw CLI::RequiredError("--db or --postgres");
    }
    run = [flags] { return RunHeadways(*flags); };
  });
}

}  // namespace frota::cli
