#include <fmt/core.h>
#include <pthread.h>
#include <signal.h>
#include <spdlog/spdlog.h>

#include <chrono>
#include <optional>

#include "frota/base/clock.h"
#include "frota/base/file.h"
#include "frota/cli/commands.h"
#include "frota/dashboard/data_model.h"
#include "frota/dashboard/render.h"
#include "frota/geo/area.h"
#include "frota/gtfs/static_feed.h"
#include "frota/sink/duckdb_sink.h"
#include "frota/sink/pg_connection.h"

namespace frota::cli {

namespace {

struct DashboardFlags {
  std::string db;
  std::string postgres;
  std::string gtfs;
  std::string area;
  std::string out;
  std::string time_zone;
  std::string lang = "pt-BR";
  std::vector<std::string> reports;
  WindowFlags window;
  std::int32_t days = 0;
  bool sizes = false;
  double every_s = 0;
};

/// A PostgreSQL database as the page names it: its database name, never a DSN.
std::string PostgresName(const std::string& dsn) {
  const std::string described = sink::PgConnection::Describe(dsn);
  const auto at = described.find("dbname=");
  if (at == std::string::npos) {
    return "PostgreSQL";
  }
  const auto end = described.find(' ', at);
  return "PostgreSQL " + described.substr(at + 7, end == std::string::npos ? end : end - at - 7);
}

/// The name a reader should see for an input: its file name (for `PATH#FILTER` areas, the
/// file name with the filter), never a machine's absolute path.
std::string DisplayName(const std::string& spec) {
  if (spec.empty()) {
    return {};
  }
  const auto hash = spec.find('#');
  std::filesystem::path path(spec.substr(0, hash));
  if (!path.has_filename()) {
    path = path.parent_path();  // "gtfs/" names the folder
  }
  // A folder's own name is often generic ("gtfs"): keep its parent's name with it.
  std::string name = path.filename().string();
  if (std::filesystem::is_directory(path) && path.has_parent_path() &&
      !path.parent_path().filename().empty()) {
    name = path.parent_path().filename().string() + "/" + name;
  }
  return hash == std::string::npos ? name : name + spec.substr(hash);
}

// The newest local date of data (quality has a row per feed and hour with any record).
base::Result<std::optional<base::LocalDate>> NewestDate(const DashboardFlags& flags) {
  constexpr std::string_view kNewest =
      "SELECT CAST(max(local_date) - DATE '1970-01-01' AS BIGINT) FROM quality";
  std::optional<std::int64_t> days;
  if (flags.postgres.empty()) {
    FROTA_ASSIGN_OR_RETURN(auto db, sink::DuckDbConnection::Open(flags.db, /*read_only=*/true));
    FROTA_ASSIGN_OR_RETURN(auto newest, db->Query(kNewest));
    if (!newest.IsNull(0, 0)) {
      days = newest.Int64(0, 0);
    }
  } else {
    FROTA_ASSIGN_OR_RETURN(auto pg, sink::PgConnection::Open(flags.postgres));
    FROTA_ASSIGN_OR_RETURN(auto newest, pg->Query(kNewest));
    if (!newest.IsNull(0, 0)) {
      days = std::stoll(std::string(newest.Value(0, 0)));
    }
  }
  if (!days) {
    return std::optional<base::LocalDate>();
  }
  return std::optional<base::LocalDate>(base::LocalDateFromDays(static_cast<std::int32_t>(*days)));
}

// The dates the page shows: --from/--to, or the last --days of data.
base::Result<sink::DateWindow> PageWindow(const DashboardFlags& flags) {
  FROTA_ASSIGN_OR_RETURN(auto window, flags.window.Parse());
  if (flags.days > 0) {
    FROTA_ASSIGN_OR_RETURN(const auto newest, NewestDate(flags));
    if (newest) {
      window.from = *newest - std::chrono::days(flags.days - 1);
      window.to = *newest;
    }
  }
  return window;
}

int RunDashboard(const DashboardFlags& flags) {
  if (flags.lang != "pt-BR" && flags.lang != "en") {
    return ReportError(base::InvalidInput("--lang {}: use pt-BR or en", flags.lang));
  }
  std::optional<gtfs::StaticFeed> feed;
  if (!flags.gtfs.empty()) {
    auto loaded = gtfs::StaticFeed::Load(flags.gtfs);
    if (!loaded.ok()) {
      return ReportError(loaded.error());
    }
    feed.emplace(std::move(loaded).value());
  }
  std::optional<geo::Area> area;
  if (!flags.area.empty()) {
    auto loaded = geo::Area::LoadSpec(flags.area);
    if (!loaded.ok()) {
      return ReportError(loaded.error());
    }
    area.emplace(std::move(loaded).value());
  }
  // The zone `frota replay` used: --time-zone, else the GTFS agency's, else Rio's.
  std::string zone_name = flags.time_zone;
  if (zone_name.empty() && feed && !feed->time_zone().empty()) {
    zone_name = std::string(feed->time_zone());
  }
  if (zone_name.empty()) {
    zone_name = "America/Sao_Paulo";
  }
  auto zone = base::TimeZone::Load(zone_name);
  if (!zone.ok()) {
    return ReportError(zone.error());
  }
  // One page from what the database holds now, of the window; PostgreSQL through a copy
  // of its results (and the tables `frota headways --postgres` keeps there) into DuckDB,
  // of the window's days only.
  const auto write_page = [&]() -> base::Status {
    FROTA_ASSIGN_OR_RETURN(const auto window, PageWindow(flags));
    FROTA_ASSIGN_OR_RETURN(const auto results,
                           ResultsFile::Open(flags.db, flags.postgres, window, *zone));
    results->Describe();
    FROTA_ASSIGN_OR_RETURN(auto db, sink::OpenFrotaDuckDb(results->path(), /*must_exist=*/true));
    dashboard::DataModelOptions options;
    options.feed = feed ? &*feed : nullptr;
    options.area = area ? &*area : nullptr;
    options.time_zone = *zone;
    options.db_name = flags.postgres.empty() ? DisplayName(flags.db) : PostgresName(flags.postgres);
    if (window.bounded()) {
      options.db_name += fmt::format(", {}", window.Describe());
    }
    options.gtfs_name = DisplayName(flags.gtfs);
    options.area_name = DisplayName(flags.area);
    options.reports.assign(flags.reports.begin(), flags.reports.end());
    FROTA_ASSIGN_OR_RETURN(auto model, dashboard::BuildDataModel(*db, options));
    const std::string html = dashboard::RenderHtml(model.json, {flags.lang});
    // Written beside the page and renamed over it: a reader never sees half a file.
    FROTA_RETURN_IF_ERROR(base::WriteFileAtomic(flags.out, html));
    if (flags.sizes) {
      for (const auto& [section, bytes] : model.section_bytes) {
        fmt::print(stderr, "{:>16} {:>10} bytes\n", section, bytes);
      }
    }
    spdlog::info("dashboard written out={} bytes={} data_bytes={}", flags.out, html.size(),
                 model.json.size());
    return base::Status::Ok();
  };
  if (flags.every_s <= 0) {
    const auto written = write_page();
    return written.ok() ? kExitOk : ReportError(written.error());
  }
  // --every S: the page again every S seconds until SIGINT or SIGTERM, which end the wait
  // (never a write). A failed round (the database briefly unreachable) is logged and the
  // previous page stays; the next round tries again.
  sigset_t stop_signals;
  sigemptyset(&stop_signals);
  sigaddset(&stop_signals, SIGINT);
  sigaddset(&stop_signals, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &stop_signals, nullptr);
  const auto period = std::chrono::milliseconds(static_cast<std::int64_t>(flags.every_s * 1000));
  std::int64_t rounds = 0;
  const base::Clock& clock = base::SystemClock::Get();
  while (true) {
    const auto started = clock.Steady();
    if (const auto written = write_page(); !written.ok()) {
      spdlog::warn("dashboard round failed, keeping the previous page error={}",
                   written.error().message());
    }
    ++rounds;
    auto wait = period - (clock.Steady() - started);
    if (wait < std::chrono::milliseconds(0)) {
      wait = std::chrono::milliseconds(0);
    }
    const auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(wait).count();
    timespec timeout{static_cast<time_t>(ms / 1000), static_cast<long>((ms % 1000) * 1'000'000)};
    const int signal = sigtimedwait(&stop_signals, nullptr, &timeout);
    if (signal == SIGINT || signal == SIGTERM) {
      spdlog::info("dashboard stopping signal={} rounds={}",
                   signal == SIGINT ? "SIGINT" : "SIGTERM", rounds);
      return kExitOk;
    }
  }
}

}  // namespace

void AddDashboardCommand(CLI::App& app, CommandMain& run) {
  auto flags = std::make_shared<DashboardFlags>();
  auto* sub = app.add_subcommand(
      "dashboard", "Write one self-contained HTML dashboard (works offline) from the database");
  auto* db = sub->add_option("--db", flags->db, "DuckDB database file");
  auto* pg = sub->add_option("--postgres", flags->postgres, "PostgreSQL DSN instead of --db");
  db->excludes(pg);
  sub->add_option("--gtfs", flags->gtfs, "Static GTFS (zip or folder): route names and shapes");
  sub->add_option("--area", flags->area,
                  "GeoJSON area drawn as the outline (PATH or PATH#PROPERTY=VALUE)");
  sub->add_option("--out", flags->out, "The HTML file to write")->required();
  sub->add_option("--time-zone", flags->time_zone,
                  "IANA zone of local hours (default: the GTFS agency's, else America/Sao_Paulo)");
  sub->add_option("--lang", flags->lang, "Language the page opens in: pt-BR or en")
      ->capture_default_str();
  sub->add_option(
      "--report", flags->reports,
      "A JSON stage report to show on the Quality page (e.g. replay --report); repeatable");
  AddWindowOptions(*sub, flags->window);
  auto* days = sub->add_option("--days", flags->days,
                               "Show the last N local days of data (the newest date included)")
                   ->check(CLI::Range(1, 100'000));
  days->excludes("--from")->excludes("--to");
  sub->add_flag("--sizes", flags->sizes, "Print the size of each section of the embedded data");
  sub->add_option("--every", flags->every_s,
                  "Write the page again every S seconds (atomically) until SIGINT or SIGTERM")
      ->check(CLI::Range(1.0, 86400.0));
  sub->callback([flags, &run] {
    if (flags->db.empty() && flags->postgres.empty()) {
      throw CLI::RequiredError("--db or --postgres");
    }
    run = [flags] { return RunDashboard(*flags); };
  });
}

}  // namespace frota::cli
