// `frota status`: recent runs of collect and run, and the health of their feeds.
#include <fmt/core.h>

#include <algorithm>
#include <functional>
#include <nlohmann/json.hpp>
#include <optional>
#include <tuple>

#include "frota/cli/commands.h"
#include "frota/collect/config.h"
#include "frota/collect/report.h"
#include "frota/sink/duckdb_connection.h"
#include "frota/sink/pg_connection.h"
#include "frota/sink/postgres_sink.h"

namespace frota::cli {

namespace {

struct StatusFlags {
  std::string config;
  std::string reports;
  std::string db;
  std::string postgres;
  std::size_t runs = 10;
  std::string time_zone;
  WindowFlags window;
  bool json = false;
};

// ---- the status of a results database (--db or --postgres) ------------------------------
//
// The same SQL on both engines, every value cast to text (times truncated to the second),
// so a DuckDB file and a PostgreSQL database holding the same rows print the same status.

using TextRows = std::vector<std::vector<std::optional<std::string>>>;
using TextQuery = std::function<base::Result<TextRows>(const std::string&)>;

// Only the epochs whose watermark, and the polls whose time, are in the window (`where`).
struct StatusWindow {
  std::string batches = "TRUE";
  std::string polls = "TRUE";
};

std::string RunsSql(std::size_t limit, const StatusWindow& where) {
  return fmt::format(
      "SELECT run_id, CAST(count(*) AS VARCHAR), "
      "CAST(date_trunc('second', min(committed_at)) AS VARCHAR), "
      "CAST(date_trunc('second', max(committed_at)) AS VARCHAR), "
      "CAST(date_trunc('second', max(watermark)) AS VARCHAR), CAST(sum(positions) AS VARCHAR), "
      "CAST(sum(rejected) AS VARCHAR) FROM batches WHERE {} GROUP BY run_id "
      "ORDER BY max(committed_at) DESC, run_id LIMIT {}",
      where.batches, limit);
}

constexpr const char* kFeedsSql =
    "SELECT feed_id, CAST(count(*) AS VARCHAR), "
    "CAST(sum(CASE WHEN body IS NOT NULL THEN 1 ELSE 0 END) AS VARCHAR), "
    "CAST(sum(CASE WHEN failure IS NOT NULL THEN 1 ELSE 0 END) AS VARCHAR), "
    "CAST(sum(CASE WHEN \"repeat\" THEN 1 ELSE 0 END) AS VARCHAR), "
    "CAST(date_trunc('second', max(CASE WHEN failure IS NULL THEN polled_at END)) AS VARCHAR), "
    "CAST(date_trunc('second', max(CASE WHEN failure IS NOT NULL THEN polled_at END)) "
    "AS VARCHAR) FROM collector_polls WHERE {} GROUP BY feed_id ORDER BY feed_id";

// The input's partitions: not the regularity follower's (runner/regularity_follower.h),
// whose "offset" counts the positions it has read.
constexpr const char* kSourcesSql =
    "SELECT CAST(count(*) AS VARCHAR), CAST(coalesce(sum(next_offset), 0) AS VARCHAR) "
    "FROM source_progress WHERE strpos(source, '#regularity/') = 0";

constexpr const char* kHasPollsSql =
    "SELECT CAST(count(*) AS VARCHAR) FROM information_schema.tables "
    "WHERE table_name = 'collector_polls' AND table_schema = current_schema()";

std::string Text(const std::optional<std::string>& v) { return v ? *v : std::string("-"); }

base::Result<nlohmann::ordered_json> DatabaseStatus(const TextQuery& query, std::size_t runs,
                                                    const std::string& name,
                                                    const StatusWindow& where) {
  nlohmann::ordered_json j;
  j["database"] = name;
  nlohmann::ordered_json run_list = nlohmann::ordered_json::array();
  // Sorted here, bytewise: PostgreSQL's ORDER BY follows the database's collation.
  const auto bytewise = [](TextRows rows, auto less) {
    std::sort(rows.begin(), rows.end(), less);
    return rows;
  };
  FROTA_ASSIGN_OR_RETURN(auto run_rows_unsorted, query(RunsSql(runs, where)));
  const auto run_rows = bytewise(std::move(run_rows_unsorted), [](const auto& a, const auto& b) {
    return std::tie(b[3], a[0]) < std::tie(a[3], b[0]);  // newest last commit first
  });
  for (const auto& r : run_rows) {
    run_list.push_back({{"run_id", Text(r[0])},
                        {"epochs", Text(r[1])},
                        {"first_commit", Text(r[2])},
                        {"last_commit", Text(r[3])},
                        {"watermark", Text(r[4])},
                        {"positions", Text(r[5])},
                        {"rejected", Text(r[6])}});
  }
  j["runs"] = run_list;
  FROTA_ASSIGN_OR_RETURN(const auto sources, query(kSourcesSql));
  j["source_partitions"] = Text(sources.at(0)[0]);
  j["offsets_read"] = Text(sources.at(0)[1]);
  nlohmann::ordered_json feeds = nlohmann::ordered_json::array();
  FROTA_ASSIGN_OR_RETURN(const auto has_polls, query(kHasPollsSql));
  if (Text(has_polls.at(0)[0]) != "0") {
    FROTA_ASSIGN_OR_RETURN(auto feed_rows_unsorted,
                           query(fmt::format(fmt::runtime(kFeedsSql), where.polls)));
    const auto feed_rows = bytewise(std::move(feed_rows_unsorted),
                                    [](const auto& a, const auto& b) { return a[0] < b[0]; });
    for (const auto& r : feed_rows) {
      feeds.push_back({{"feed", Text(r[0])},
                       {"requests", Text(r[1])},
                       {"archived", Text(r[2])},
                       {"failures", Text(r[3])},
                       {"repeats", Text(r[4])},
                       {"last_success", Text(r[5])},
                       {"last_failure", Text(r[6])}});
    }
  }
  j["feeds"] = feeds;
  return j;
}

std::string DatabaseStatusText(const nlohmann::ordered_json& j) {
  std::string out = fmt::format(
      "database {}: {} source partitions, {} offsets read (records, polls, Kafka offsets)\n",
      j["database"].get<std::string>(), j["source_partitions"].get<std::string>(),
      j["offsets_read"].get<std::string>());
  out += fmt::format("{:<36} {:>7} {:<19} {:<19} {:<19} {:>12} {:>12}\n", "run", "epochs",
                     "first commit", "last commit", "watermark", "positions", "rejected");
  for (const auto& r : j["runs"]) {
    out += fmt::format("{:<36} {:>7} {:<19} {:<19} {:<19} {:>12} {:>12}\n",
                       r["run_id"].get<std::string>(), r["epochs"].get<std::string>(),
                       r["first_commit"].get<std::string>(), r["last_commit"].get<std::string>(),
                       r["watermark"].get<std::string>(), r["positions"].get<std::string>(),
                       r["rejected"].get<std::string>());
  }
  if (j["feeds"].empty()) {
    out += "collector_polls: no polls (only a live run or a collector's topic writes them)\n";
    return out;
  }
  out += fmt::format("{:<20} {:>9} {:>9} {:>9} {:>9} {:<19} {:<19}\n", "feed", "requests",
                     "archived", "failures", "repeats", "last success", "last failure");
  for (const auto& f : j["feeds"]) {
    out +=
        fmt::format("{:<20} {:>9} {:>9} {:>9} {:>9} {:<19} {:<19}\n", f["feed"].get<std::string>(),
                    f["requests"].get<std::string>(), f["archived"].get<std::string>(),
                    f["failures"].get<std::string>(), f["repeats"].get<std::string>(),
                    f["last_success"].get<std::string>(), f["last_failure"].get<std::string>());
  }
  return out;
}

// The window's conditions: an epoch by the local date of its watermark, a poll by its
// time's (the catalog's date column of collector_polls).
base::Result<StatusWindow> StatusWindowOf(const StatusFlags& flags) {
  FROTA_ASSIGN_OR_RETURN(const auto window, flags.window.Parse());
  FROTA_ASSIGN_OR_RETURN(const auto zone, ReaderTimeZone(flags.time_zone, {}));
  StatusWindow where;
  where.batches = sink::WindowCondition({"watermark", model::ColumnType::kTimestamp}, window, zone);
  where.polls = sink::WindowCondition(*sink::TableDateColumn("collector_polls", {}), window, zone);
  return where;
}

int RunDatabaseStatus(const StatusFlags& flags) {
  const auto where = StatusWindowOf(flags);
  if (!where.ok()) {
    return ReportError(where.error());
  }
  std::unique_ptr<sink::DuckDbConnection> duck;
  std::unique_ptr<sink::PgConnection> pg;
  TextQuery query;
  std::string name;
  if (!flags.postgres.empty()) {
    auto opened = sink::PgConnection::Open(flags.postgres);
    if (!opened.ok()) {
      return ReportError(opened.error());
    }
    pg = std::move(*opened);
    if (const auto iso = pg->Execute("SET DateStyle = ISO"); !iso.ok()) {  // times as DuckDB's
      return ReportError(iso.error());
    }
    if (const auto checked = sink::CheckPostgresSchema(*pg); !checked.ok()) {
      return ReportError(checked.error());
    }
    name = sink::PgConnection::Describe(flags.postgres);
    query = [&pg](const std::string& sql) -> base::Result<TextRows> {
      FROTA_ASSIGN_OR_RETURN(const auto r, pg->Query(sql));
      TextRows rows;
      for (int i = 0; i < r.rows(); ++i) {
        auto& row = rows.emplace_back();
        for (int c = 0; c < r.columns(); ++c) {
          row.push_back(r.IsNull(i, c) ? std::nullopt
                                       : std::optional<std::string>(std::string(r.Value(i, c))));
        }
      }
      return rows;
    };
  } else {
    if (!std::filesystem::exists(flags.db)) {
      return ReportError(base::NotFound("{}: no such database", flags.db));
    }
    auto opened = sink::DuckDbConnection::Open(flags.db, /*read_only=*/true);
    if (!opened.ok()) {
      return ReportError(opened.error());
    }
    duck = std::move(*opened);
    name = flags.db;
    query = [&duck](const std::string& sql) -> base::Result<TextRows> {
      FROTA_ASSIGN_OR_RETURN(auto r, duck->Query(sql));
      TextRows rows;
      for (std::size_t i = 0; i < r.rows(); ++i) {
        auto& row = rows.emplace_back();
        for (std::size_t c = 0; c < r.columns(); ++c) {
          row.push_back(r.IsNull(i, c) ? std::nullopt : std::optional<std::string>(r.String(i, c)));
        }
      }
      return rows;
    };
  }
  const auto status = DatabaseStatus(query, flags.runs, name, *where);
  if (!status.ok()) {
    return ReportError(status.error().WithContext(fmt::format("status of {}", name)));
  }
  fmt::print("{}", flags.json ? status->dump(2) + "\n" : DatabaseStatusText(*status));
  return kExitOk;
}

int RunStatus(const StatusFlags& flags) {
  if (!flags.db.empty() || !flags.postgres.empty()) {
    if (!flags.db.empty() && !flags.postgres.empty()) {
      return ReportError(base::InvalidInput("give --db or --postgres, not both"));
    }
    return RunDatabaseStatus(flags);
  }
  std::filesystem::path reports = flags.reports;
  if (reports.empty() && !flags.config.empty()) {
    const auto config = collect::LoadConfig(flags.config);
    if (!config.ok()) {
      return ReportError(config.error());
    }
    reports = config->reports;
  }
  if (reports.empty()) {
    reports = "reports";
  }
  const auto runs = collect::ListRuns(reports, flags.runs);
  if (!runs.ok()) {
    return ReportError(runs.error());
  }
  fmt::print("{}", flags.json ? collect::StatusJson(*runs) + "\n" : collect::StatusText(*runs));
  return kExitOk;
}

}  // namespace

void AddStatusCommand(CLI::App& app, CommandMain& run) {
  auto flags = std::make_shared<StatusFlags>();
  auto* sub = app.add_subcommand("status", "Summarise recent collect/run runs and feed health");
  sub->add_option("--config", flags->config,
                  "The collector's configuration (for its reports folder)");
  sub->add_option("--reports", flags->reports, "Reports folder (default: reports)");
  sub->add_option("--db", flags->db,
                  "A results database instead: its runs (epoch ledger), sources and feeds");
  sub->add_option("--postgres", flags->postgres, "The same for a PostgreSQL database (DSN)");
  sub->add_option("--runs", flags->runs, "How many recent runs")->capture_default_str();
  AddWindowOptions(*sub, flags->window);
  sub->add_option("--time-zone", flags->time_zone,
                  "With --db or --postgres and a window: the zone of its local dates (default: "
                  "America/Sao_Paulo); epochs count by their watermark's date, polls by theirs");
  sub->add_flag("--json", flags->json, "One JSON document on stdout");
  sub->callback([flags, &run] { run = [flags] { return RunStatus(*flags); }; });
}

}  // namespace frota::cli
