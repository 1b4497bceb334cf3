#include <fmt/core.h>
#include <spdlog/spdlog.h>

#include <optional>

#include "frota/base/file.h"
#include "frota/cli/commands.h"
#include "frota/dashboard/data_model.h"
#include "frota/dashboard/render.h"
#include "frota/geo/area.h"
#include "frota/gtfs/static_feed.h"
#include "frota/sink/duckdb_sink.h"

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
  bool sizes = false;
};

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

int RunDashboard(const DashboardFlags& flags) {
  if (!flags.postgres.empty()) {
    return ReportError(base::InvalidInput(
        "--postgres: the dashboard reads DuckDB only for now; PostgreSQL is not available yet "
        "(export the tables or use --db)"));
  }
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
  auto db = sink::OpenFrotaDuckDb(flags.db, /*must_exist=*/true);
  if (!db.ok()) {
    return ReportError(db.error());
  }
  dashboard::DataModelOptions options;
  options.feed = feed ? &*feed : nullptr;
  options.area = area ? &*area : nullptr;
  options.time_zone = *zone;
  options.db_name = DisplayName(flags.db);
  options.gtfs_name = DisplayName(flags.gtfs);
  options.area_name = DisplayName(flags.area);
  options.reports.assign(flags.reports.begin(), flags.reports.end());
  auto model = dashboard::BuildDataModel(**db, options);
  if (!model.ok()) {
    return ReportError(model.error());
  }
  const std::string html = dashboard::RenderHtml(model->json, {flags.lang});
  const auto written = base::WriteFileAtomic(flags.out, html);
  if (!written.ok()) {
    return ReportError(written.error());
  }
  if (flags.sizes) {
    for (const auto& [section, bytes] : model->section_bytes) {
      fmt::print(stderr, "{:>16} {:>10} bytes\n", section, bytes);
    }
  }
  spdlog::info("dashboard written out={} bytes={} data_bytes={}", flags.out, html.size(),
               model->json.size());
  return kExitOk;
}

}  // namespace

void AddDashboardCommand(CLI::App& app, CommandMain& run) {
  auto flags = std::make_shared<DashboardFlags>();
  auto* sub = app.add_subcommand(
      "dashboard", "Write one self-contained HTML dashboard (works offline) from the database");
  auto* db = sub->add_option("--db", flags->db, "DuckDB database file");
  auto* pg = sub->add_option("--postgres", flags->postgres, "PostgreSQL DSN (not available yet)");
  db->excludes(pg);
  sub->add_option("--gtfs", flags->gtfs, "Static GTFS (zip or folder): route names and shapes");
  sub->add_option("--area", flags->area, "GeoJSON area drawn as the outline (PATH or PATH#PROPERTY=VALUE)");
  sub->add_option("--out", flags->out, "The HTML file to write")->required();
  sub->add_option("--time-zone", flags->time_zone,
                  "IANA zone of local hours (default: the GTFS agency's, else America/Sao_Paulo)");
  sub->add_option("--lang", flags->lang, "Language the page opens in: pt-BR or en")
      ->capture_default_str();
  sub->add_option("--report", flags->reports,
                  "A JSON stage report to show on the Quality page (e.g. replay --report); repeatable");
  sub->add_flag("--sizes", flags->sizes, "Print the size of each section of the embedded data");
  sub->callback([flags, &run] {
    if (flags->db.empty() && flags->postgres.empty()) {
      throw CLI::RequiredError("--db or --postgres");
    }
    run = [flags] { return RunDashboard(*flags); };
  });
}

}  // namespace frota::cli
