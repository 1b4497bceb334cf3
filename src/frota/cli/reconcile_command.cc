#include <fmt/core.h>
#include <unistd.h>

#include <filesystem>
#include <random>

#include "frota/batch/reconcile.h"
#include "frota/cli/commands.h"
#include "frota/sink/pg_connection.h"
#include "frota/sink/postgres_to_duckdb.h"

namespace frota::cli {

namespace {

struct ReconcileFlags {
  batch::ReconcileConfig config;
  std::string db;
  std::string postgres;
  std::string mode;
  bool json = false;
};

// A folder of its own under the system's temporary folder, removed with it.
class ScratchFolder {
 public:
  ScratchFolder() {
    const auto base = std::filesystem::temp_directory_path();
    std::random_device random;
    for (int attempt = 0; attempt < 100 && path_.empty(); ++attempt) {
      auto candidate = base / fmt::format("frota-reconcile-{}-{:08x}", ::getpid(), random());
      std::error_code error;
      if (std::filesystem::create_directory(candidate, error)) {
        path_ = std::move(candidate);
      }
    }
  }
  ~ScratchFolder() {
    std::error_code ignored;
    if (!path_.empty()) {
      std::filesystem::remove_all(path_, ignored);
    }
  }
  ScratchFolder(const ScratchFolder&) = delete;
  ScratchFolder& operator=(const ScratchFolder&) = delete;
  [[nodiscard]] const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
};

int RunReconcile(ReconcileFlags& flags) {
  // PostgreSQL: its results copied into a DuckDB file first (the same tables and views),
  // which the recomputation attaches as it attaches a stream's database.
  ScratchFolder scratch;
  if (!flags.postgres.empty()) {
    if (scratch.path().empty()) {
      return ReportError(base::Internal("no temporary folder for the copy of {}",
                                        sink::PgConnection::Describe(flags.postgres)));
    }
    flags.db = (scratch.path() / "stream.duckdb").string();
    auto copy = sink::CopyPostgresToDuckDb(flags.postgres, flags.db);
    if (!copy.ok()) {
      return ReportError(copy.error());
    }
  }
  if (!flags.mode.empty()) {
    const auto mode = model::ParseMode(flags.mode);
    if (!mode) {
      return ReportError(base::InvalidInput(
          "--mode {}: not one of bus, brt, rail, ferry, aircraft, other", flags.mode));
    }
    flags.config.replay.mode = mode;
  }
  flags.config.db = flags.db;
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
  sub->add_flag("--json", flags->json, "Print the report as JSON");
  sub->callback([flags, &run] {
    if (flags->db.empty() && flags->postgres.empty()) {
      throw CLI::RequiredError("--db or --postgres");
    }
    run = [flags] { return RunReconcile(*flags); };
  });
}

}  // namespace frota::cli
