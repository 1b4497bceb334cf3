#include <fmt/core.h>

#include "frota/cli/commands.h"
#include "frota/serve/gtfs_rt_export.h"
#include "frota/serve/server.h"
#include "frota/serve/store.h"
#include "frota/sink/duckdb_sink.h"
#include "frota/sink/export.h"

namespace frota::cli {

namespace {

struct ExportFlags {
  std::string db;
  std::string postgres;
  std::string out;
  std::string format = "csv";
  std::string gtfs_rt;
  std::string gtfs;
  std::string time_zone;
  WindowFlags window;
};

// `--gtfs-rt DIR`: the feed `frota serve` would have answered, minute by minute.
int ExportGtfsRt(const ExportFlags& flags) {
  auto store = serve::OpenStore(
      flags.postgres, [&] { return sink::OpenFrotaDuckDb(flags.db, /*must_exist=*/true); });
  if (!store.ok()) {
    return ReportError(store.error());
  }
  auto feed = serve::LoadVehicleFeed(flags.gtfs);
  if (!feed.ok()) {
    return ReportError(feed.error());
  }
  const auto summary =
      serve::ExportGtfsRt(**store, **feed, flags.gtfs_rt, serve::ServerOptions{}.vehicle_window);
  if (!summary.ok()) {
    return ReportError(summary.error());
  }
  fmt::print(stderr, "{:>16} {:>10} files, {} entities{}\n", "gtfs-rt", summary->files,
             summary->entities,
             summary->first ? fmt::format(", {} to {}", base::FormatIso8601(*summary->first),
                                          base::FormatIso8601(*summary->last))
                            : std::string());
  return kExitOk;
}

int RunExport(const ExportFlags& flags) {
  if (!flags.gtfs_rt.empty()) {
    if (const int code = ExportGtfsRt(flags); code != kExitOk || flags.out.empty()) {
      return code;
    }
  }
  if (flags.format != "csv" && flags.format != "parquet") {
    return ReportError(base::InvalidInput("--format {}: use csv or parquet", flags.format));
  }
  // PostgreSQL, or a window: the rows copied into a DuckDB file, then the same export
  // code, so the files are byte-identical to those of a DuckDB database holding the same
  // rows.
  const auto results =
      ResultsFile::OpenWindow(flags.db, flags.postgres, flags.window, flags.time_zone);
  if (!results.ok()) {
    return ReportError(results.error());
  }
  (*results)->Describe();
  if ((*results)->empty()) {
    return kExitOk;
  }
  auto db = sink::OpenFrotaDuckDb((*results)->path(), /*must_exist=*/true);
  if (!db.ok()) {
    return ReportError(db.error());
  }
  const auto summary = sink::ExportDuckDb(
      **db, flags.out,
      flags.format == "csv" ? sink::ExportFormat::kCsv : sink::ExportFormat::kParquet);
  if (!summary.ok()) {
    return ReportError(summary.error());
  }
  for (const auto& [table, rows] : summary->rows_per_table) {
    fmt::print(stderr, "{:>16} {:>10} rows\n", table, rows);
  }
  return kExitOk;
}

}  // namespace

void AddExportCommand(CLI::App& app, CommandMain& run) {
  auto flags = std::make_shared<ExportFlags>();
  auto* sub = app.add_subcommand(
      "export",
      "Write every result table but departures, headways and alerts as DIR/TABLE.csv (or "
      ".parquet), sorted, for diff -r; --gtfs-rt: the GTFS-RT feed minute by minute");
  auto* db = sub->add_option("--db", flags->db, "DuckDB database file");
  auto* pg = sub->add_option("--postgres", flags->postgres, "PostgreSQL DSN");
  db->excludes(pg);
  sub->add_option("--out", flags->out, "Output folder");
  sub->add_option("--format", flags->format, "csv or parquet")->capture_default_str();
  sub->add_option("--gtfs-rt", flags->gtfs_rt,
                  "Also (or, without --out, only) write the cleaned GTFS-RT VehiclePositions "
                  "feed as of each minute: DIR/vehicle-positions-YYYY-MM-DDTHH-MM-SSZ.pb");
  sub->add_option("--gtfs", flags->gtfs,
                  "Static GTFS (zip or folder) the jobs ran with, for --gtfs-rt");
  AddWindowOptions(*sub, flags->window);
  sub->add_option("--time-zone", flags->time_zone,
                  "IANA zone of the local dates of --from and --to (default: America/Sao_Paulo)");
  sub->callback([flags, &run] {
    if (flags->db.empty() && flags->postgres.empty()) {
      throw CLI::RequiredError("--db or --postgres");
    }
    if (flags->out.empty() && flags->gtfs_rt.empty()) {
      throw CLI::RequiredError("--out or --gtfs-rt");
    }
    run = [flags] { return RunExport(*flags); };
  });
}

}  // namespace frota::cli
