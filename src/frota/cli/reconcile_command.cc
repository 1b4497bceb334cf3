#include <fmt/core.h>

#include "frota/batch/reconcile.h"
#include "frota/cli/commands.h"
#include "frota/gtfs/static_feed.h"

namespace frota::cli {

namespace {

struct ReconcileFlags {
  batch::ReconcileConfig config;
  std::string db;
  std::string postgres;
  std::string mode;
  WindowFlags window;
  bool json = false;
};

// The zone of the window's dates, as replay chose it: --time-zone, else the GTFS agency's
// (the GTFS read only for this), else Rio's.
base::Result<base::TimeZone> WindowZone(const runner::ReplayConfig& replay) {
  if (!replay.time_zone.empty() || replay.gtfs.empty()) {
    return ReaderTimeZone(replay.time_zone, {});
  }
  FROTA_ASSIGN_OR_RETURN(const auto feed, gtfs::StaticFeed::Load(replay.gtfs));
  return ReaderTimeZone({}, feed.time_zone());
}

int RunReconcile(ReconcileFlags& flags) {
  const auto window = flags.window.Parse();
  if (!window.ok()) {
    return ReportError(window.error());
  }
  const auto zone = window->bounded() ? WindowZone(flags.config.replay)
                                      : base::Result<base::TimeZone>(base::TimeZone::Utc());
  if (!zone.ok()) {
    return ReportError(zone.error());
  }
  // PostgreSQL, or a window: the stream's results copied into a DuckDB file first (the
  // same tables and views; of a window, its rows), which the recomputation attaches as
  // it attaches a stream's database.
  auto results = ResultsFile::Open(flags.db, flags.postgres, *window, *zone);
  if (!results.ok()) {
    return ReportError(results.error());
  }
  (*results)->Describe();
  if ((*results)->empty()) {
    return kExitOk;
  }
  flags.config.options.window = *window;
  if (!flags.mode.empty()) {
    const auto mode = model::ParseMode(flags.mode);
    if (!mode) {
      return ReportError(base::InvalidInput(
          "--mode {}: not one of bus, brt, rail, ferry, aircraft, other", flags.mode));
    }
    flags.config.replay.mode = mode;
  }
  flags.config.db = (*results)->path().string();
  const auto report = batch::Reconcile(flags.config);
  if (!report.ok()) {
    return ReportError(report.error());
  }
  if (flags.json) {
    fmt::print("{}\n", batch::ReconcileJson(*report));
  } else {
    fmt::print("{}", batch::ReconcileText(*report));
  }
  return report->equal ? kExitOk : kExitFailedCheck;
}

}  // namespace

void AddReconcileCommand(CLI::App& app, CommandMain& run) {
  auto flags = std::make_shared<ReconcileFlags>();
  auto* sub = app.add_subcommand(
      "reconcile",
      "Recompute every job in batch SQL from the inputs and diff the stream's tables row by row");
  sub->add_option("inputs", flags->config.replay.inputs,
                  "The inputs the database was replayed from (FORMAT:PATH or PATH)")
      ->required();
  auto* db = sub->add_option("--db", flags->db, "The stream's DuckDB database");
  auto* pg = sub->add_option("--postgres", flags->postgres, "PostgreSQL DSN instead of --db");
  db->excludes(pg);
  sub->add_option("--gtfs", flags->config.replay.gtfs, "Static GTFS, as given to replay");
  sub->add_option("--area", flags->config.replay.area, "GeoJSON area, as given to replay");
  sub->add_option("--feed-id", flags->config.replay.feed_id, "Feed id, as given to replay");
  sub->add_option("--mode", flags->mode, "Mode, as given to replay");
  sub->add_option("--time-zone", flags->config.replay.time_zone, "Zone, as given to replay");
  sub->add_option("--examples", flags->config.options.examples,
                  "Example differences printed per table")
      ->capture_default_str();
  sub->add_option("--memory-limit", flags->config.options.memory_limit,
                  "DuckDB memory limit of the recomputation, e.g. 4GB; beyond it DuckDB spills "
                  "to a temp folder (default: a third of the RAM, at most 8GB)");
  AddWindowOptions(*sub, flags->window);
  sub->add_flag("--json", flags->json, "Print the report as JSON");
  sub->callback([flags, &run] {
    if (flags->db.empty() && flags->postgres.empty()) {
      throw CLI::RequiredError("--db or --postgres");
    }
    run = [flags] { return RunReconcile(*flags); };
  });
}

}  // namespace frota::cli
