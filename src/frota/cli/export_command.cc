#include <fmt/core.h>

#include "frota/cli/commands.h"
#include "frota/sink/duckdb_sink.h"
#include "frota/sink/export.h"
#include "frota/sink/postgres_to_duckdb.h"

namespace frota::cli {

namespace {

struct ExportFlags {
  std::string db;
  std::string postgres;
  std::string out;
  std::string format = "csv";
};

int RunExport(const ExportFlags& flags) {
  if (flags.format != "csv" && flags.format != "parquet") {
    return ReportError(base::InvalidInput("--format {}: use csv or parquet", flags.format));
  }
  // PostgreSQL: its tables copied into DuckDB, then the same export code, so the files
  // are byte-identical to those of a DuckDB database holding the same rows.
  auto db = flags.postgres.empty() ? sink::OpenFrotaDuckDb(flags.db, /*must_exist=*/true)
                                   : sink::CopyPostgresToDuckDb(flags.postgres);
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
      ".parquet), sorted, for diff -r");
  auto* db = sub->add_option("--db", flags->db, "DuckDB database file");
  auto* pg = sub->add_option("--postgres", flags->postgres, "PostgreSQL DSN");
  db->excludes(pg);
  sub->add_option("--out", flags->out, "Output folder")->required();
  sub->add_option("--format", flags->format, "csv or parquet")->capture_default_str();
  sub->callback([flags, &run] {
    if (flags->db.empty() && flags->postgres.empty()) {
      throw CLI::RequiredError("--db or --postgres");
    }
    run = [flags] { return RunExport(*flags); };
  });
}

}  // namespace frota::cli
