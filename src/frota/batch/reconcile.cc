#include "frota/batch/reconcile.h"

#include <fmt/format.h>
#include <spdlog/spdlog.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <variant>

#include "frota/batch/headways.h"
#include "frota/batch/sql_files.h"
#include "frota/geo/area.h"
#include "frota/geo/grid.h"
#include "frota/job/rules.h"
#include "frota/model/mode.h"
#include "frota/model/rejection.h"
#include "frota/model/tables.h"
#include "frota/sink/catalog_sql.h"
#include "frota/sink/duckdb_sink.h"

namespace frota::batch {

namespace {

using sink::ColumnType;
using Clock = std::chrono::steady_clock;

// A late set that has not settled after this many rounds means the fixed point is not
// being approached one arrival at a time as it should: stop rather than loop.
constexpr int kMaxLateRounds = 64;
// A walk of 2^62 breaks is impossible; more rounds would mean a bug in walk_round.sql.
constexpr int kMaxWalkRounds = 62;

double SecondsSince(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

std::string Quoted(std::string_view text) { return sink::SqlStringLiteral(text); }

std::string DoubleLiteral(double value) { return fmt::format("{}::DOUBLE", value); }

std::int64_t Micros(std::chrono::microseconds d) { return d.count(); }

// A third of the physical memory, at most 8 GB (BatchRecomputation::Options).
std::string DefaultMemoryLimit() {
  constexpr std::int64_t kMaxMb = 8 * 1024;
  const long pages = ::sysconf(_SC_PHYS_PAGES);
  const long page_size = ::sysconf(_SC_PAGE_SIZE);
  std::int64_t mb = kMaxMb;
  if (pages > 0 && page_size > 0) {
    mb = std::min(kMaxMb, static_cast<std::int64_t>(pages) * page_size / 3 / (1024 * 1024));
  }
  return fmt::format("{}MiB", std::max<std::int64_t>(mb, 512));
}

}  // namespace

BatchRecomputation::BatchRecomputation(const runner::ReplayContext& context,
                                       const model::SourceCatalog& catalog, Options options)
    : context_(context), catalog_(catalog), options_(options) {}

BatchRecomputation::~BatchRecomputation() {
  positions_.reset();
  rejections_.reset();
  db_.reset();
  if (!temp_dir_.empty()) {
    std::error_code ec;
    std::filesystem::remove_all(temp_dir_, ec);
  }
}

base::Result<std::unique_ptr<BatchRecomputation>> BatchRecomputation::Create(
    const runner::ReplayContext& context, const model::SourceCatalog& catalog, Options options) {
  std::unique_ptr<BatchRecomputation> batch(new BatchRecomputation(context, catalog, options));
  FROTA_ASSIGN_OR_RETURN(batch->db_, sink::DuckDbConnection::Open(""));
  // An in-memory database spills to disk when a sort outgrows memory; give it a private
  // folder, removed with the object.
  batch->temp_dir_ = std::filesystem::temp_directory_path() /
                     fmt::format("frota-reconcile-{}-{}", ::getpid(),
                                 reinterpret_cast<std::uintptr_t>(batch.get()));
  auto& db = *batch->db_;
  FROTA_RETURN_IF_ERROR(db.Execute(fmt::format(
      "SET temp_directory = {}; SET preserve_insertion_order = false; SET TimeZone = 'UTC'; "
      "SET memory_limit = {}",
      Quoted(batch->temp_dir_.string()),
      Quoted(options.memory_limit.empty() ? DefaultMemoryLimit() : options.memory_limit))));
  FROTA_RETURN_IF_ERROR(db.Execute(sql::kStagingSql));
  FROTA_ASSIGN_OR_RETURN(
      batch->positions_,
      sink::ChunkAppender::Create(
          db, "input_positions",
          {ColumnType::kBigint,  ColumnType::kInteger, ColumnType::kInteger, ColumnType::kBigint,
           ColumnType::kInteger, ColumnType::kVarchar, ColumnType::kVarchar, ColumnType::kVarchar,
           ColumnType::kVarchar, ColumnType::kVarchar, ColumnType::kVarchar, ColumnType::kVarchar,
           ColumnType::kTinyint, ColumnType::kDouble,  ColumnType::kDouble,  ColumnType::kFloat,
           ColumnType::kFloat,   ColumnType::kFloat,   ColumnType::kBoolean, ColumnType::kBigint,
           ColumnType::kBigint,  ColumnType::kBoolean, ColumnType::kBoolean, ColumnType::kVarchar,
           ColumnType::kBigint}));
  FROTA_ASSIGN_OR_RETURN(
      batch->rejections_,
      sink::ChunkAppender::Create(
          db, "input_rejections",
          {ColumnType::kBigint, ColumnType::kInteger, ColumnType::kInteger, ColumnType::kBigint,
           ColumnType::kVarchar, ColumnType::kVarchar, ColumnType::kVarchar, ColumnType::kBigint,
           ColumnType::kBigint, ColumnType::kVarchar}));
  return batch;
}

base::Status BatchRecomputation::Add(const source::SourceRecord& record) {
  const auto started = Clock::now();
  const std::int64_t seq = seq_++;
  if (const auto* p = std::get_if<model::Position>(&record.record)) {
    key_buffer_.assign(p->feed_id);
    key_buffer_.push_back('\x1f');
    key_buffer_.append(p->vehicle_id);
    const auto [key, inserted] =
        vehicle_keys_.try_emplace(key_buffer_, static_cast<std::int32_t>(vehicle_keys_.size()));
    if (!p->route_id.empty() && !route_ids_.contains(p->route_id)) {
      route_ids_.insert(p->route_id);
    }
    auto& a = *positions_;
    a.SetInt64(0, seq);
    a.SetInt32(1, record.partition.value());
    a.SetInt32(2, static_cast<std::int32_t>(p->source.source));
    a.SetInt64(3, p->source.offset);
    a.SetInt32(4, key->second);
    a.SetString(5, p->feed_id);
    a.SetString(6, p->vehicle_id);
    a.SetString(7, model::ModeName(p->mode));
    a.SetString(8, p->route_id);
    a.SetString(9, p->trip_id);
    a.SetString(10, p->trip_start_date);
    a.SetString(11, p->trip_start_time);
    p->direction_id >= 0 ? a.SetInt8(12, p->direction_id) : a.SetNull(12);
    a.SetDouble(13, p->lat);
    a.SetDouble(14, p->lon);
    std::isnan(p->reported_speed_kmh) ? a.SetNull(15) : a.SetFloat(15, p->reported_speed_kmh);
    std::isnan(p->bearing_deg) ? a.SetNull(16) : a.SetFloat(16, p->bearing_deg);
    std::isnan(p->altitude_m) ? a.SetNull(17) : a.SetFloat(17, p->altitude_m);
    p->on_ground >= 0 ? a.SetBool(18, p->on_ground == 1) : a.SetNull(18);
    a.SetInt64(19, base::ToUnixMicros(p->event_time));
    a.SetInt64(20, base::ToUnixMicros(p->ingest_time));
    a.SetBool(21, p->event_time_from_header);
    // Rule 4's point-in-polygon: the one test not redone in SQL (see the class comment).
    context_.job.area != nullptr ? a.SetBool(22, context_.job.area->Contains(p->lat, p->lon))
                                 : a.SetNull(22);
    p->has_origin_country ? a.SetString(23, p->origin_country) : a.SetNull(23);
    p->last_contact != model::kNoLastContact ? a.SetInt64(24, p->last_contact) : a.SetNull(24);
    FROTA_RETURN_IF_ERROR(a.EndRow());
  } else {
    const auto& r = std::get<model::Rejection>(record.record);
    auto& a = *rejections_;
    a.SetInt64(0, seq);
    a.SetInt32(1, record.partition.value());
    a.SetInt32(2, static_cast<std::int32_t>(r.source.source));
    a.SetInt64(3, r.source.offset);
    a.SetString(4, r.feed_id);
    a.SetString(5, r.vehicle_id);
    a.SetString(6, model::RejectReasonName(r.reason));
    r.event_time ? a.SetInt64(7, base::ToUnixMicros(*r.event_time)) : a.SetNull(7);
    r.ingest_time ? a.SetInt64(8, base::ToUnixMicros(*r.ingest_time)) : a.SetNull(8);
    a.SetString(9, r.detail);
    FROTA_RETURN_IF_ERROR(a.EndRow());
  }
  load_seconds_ += SecondsSince(started);
  return base::Status::Ok();
}

base::Status BatchRecomputation::Flush() {
  if (positions_) {
    FROTA_RETURN_IF_ERROR(positions_->Close());
    positions_.reset();
  }
  if (rejections_) {
    FROTA_RETURN_IF_ERROR(rejections_->Close());
    rejections_.reset();
  }
  return base::Status::Ok();
}

base::Status BatchRecomputation::LoadSourcesAndTerminals() {
  auto& db = *db_;
  {
    FROTA_ASSIGN_OR_RETURN(
        auto a,
        sink::ChunkAppender::Create(db, "sources", {ColumnType::kInteger, ColumnType::kVarchar}));
    for (std::size_t id = 0; id < catalog_.size(); ++id) {
      a->SetInt32(0, static_cast<std::int32_t>(id));
      a->SetString(1, catalog_.Name(static_cast<model::SourceId>(id)));
      FROTA_RETURN_IF_ERROR(a->EndRow());
    }
    FROTA_RETURN_IF_ERROR(a->Close());
  }
  if (!context_.routes || !context_.terminals) {
    return base::Status::Ok();  // no GTFS: near_terminal is NULL everywhere
  }
  FROTA_ASSIGN_OR_RETURN(auto a,
                         sink::ChunkAppender::Create(db, "route_terminals",
                                                     {ColumnType::kVarchar, ColumnType::kBoolean,
                                                      ColumnType::kDouble, ColumnType::kDouble}));
  // Every non-empty route id seen, plus "" (a stop's anchor may have none).
  route_ids_.insert("");
  for (const auto& route_id : route_ids_) {
    const gtfs::Route* route = context_.routes->Find(route_id);
    const auto& points = context_.terminals->TerminalsOf(route);
    if (route == nullptr || points.empty()) {
      a->SetString(0, route_id);
      a->SetBool(1, route != nullptr);
      a->SetNull(2);
      a->SetNull(3);
      FROTA_RETURN_IF_ERROR(a->EndRow());
      continue;
    }
    for (const auto& point : points) {
      a->SetString(0, route_id);
      a->SetBool(1, true);
      a->SetDouble(2, point.lat);
      a->SetDouble(3, point.lon);
      FROTA_RETURN_IF_ERROR(a->EndRow());
    }
  }
  return a->Close();
}

base::Status BatchRecomputation::SetVariables(ReconcileReport& report) {
  // The rules the stream's results were made with (its table `rules`; none recorded: the
  // defaults, which every frota before the table had compiled in).
  job::JobConfig c = context_.job;
  FROTA_ASSIGN_OR_RETURN(auto recorded, db_->Query("SELECT key, value FROM stream.rules"));
  for (std::size_t i = 0; i < recorded.rows(); ++i) {
    const std::string key = recorded.String(i, 0);
    if (const auto set = job::SetRule(c, key, recorded.Double(i, 1)); !set.ok()) {
      return set.error().WithContext("the database's table rules");
    }
  }
  report.rules = job::RuleValues(c);
  std::vector<std::pair<std::string, std::string>> variables = {
      {"future_tolerance_us", std::to_string(Micros(c.future_tolerance))},
      {"stale_limit_us", std::to_string(Micros(c.stale_limit))},
      {"max_lateness_us", std::to_string(Micros(c.max_lateness()))},
      {"idle_timeout_us", std::to_string(Micros(c.idle_timeout))},
      {"segment_max_gap_us", std::to_string(Micros(c.segment_max_gap))},
      {"cell_degrees", DoubleLiteral(geo::kCellDegrees)},
      {"stop_radius_m", DoubleLiteral(c.stop_radius_m)},
      {"stop_min_duration_us", std::to_string(Micros(c.stop_min_duration))},
      {"stop_max_gap_us", std::to_string(Micros(c.stop_max_gap))},
      {"trip_max_gap_us", std::to_string(Micros(c.trip_max_gap))},
      {"terminal_radius_m", DoubleLiteral(c.terminal_radius_m)},
      {"time_zone", Quoted(c.time_zone->name())},
      {"exact_watermark", options_.exact_watermark ? "true" : "false"},
      {"examples", std::to_string(options_.examples)},
  };
  for (const model::Mode mode : model::kAllModes) {
    variables.emplace_back(fmt::format("max_speed_kmh_{}", model::ModeName(mode)),
                           DoubleLiteral(c.MaxSpeedKmh(mode)));
    variables.emplace_back(fmt::format("max_segment_speed_kmh_{}", model::ModeName(mode)),
                           DoubleLiteral(c.MaxSegmentSpeedKmh(mode)));
  }
  variables.emplace_back("has_plan", context_.feed ? "true" : "false");
  std::string statements;
  for (const auto& [name, value] : variables) {
    statements += fmt::format("SET VARIABLE {} = {};\n", name, value);
  }
  // The plan's trips, for the trips job's plan_slot: which are frequency trips.
  statements += "CREATE OR REPLACE TABLE plan_trips (trip_id VARCHAR, frequency BOOLEAN);\n";
  if (context_.feed) {
    std::set<std::string> frequency_trips;
    for (const auto& f : context_.feed->frequencies()) {
      frequency_trips.insert(f.trip_id);
    }
    std::string values;
    for (const auto& trip : context_.feed->trips()) {
      values += fmt::format("{}({}, {})", values.empty() ? "" : ", ", Quoted(trip.id),
                            frequency_trips.contains(trip.id) ? "true" : "false");
    }
    if (!values.empty()) {
      statements += "INSERT INTO plan_trips VALUES " + values + ";\n";
    }
  }
  return db_->Execute(statements);
}

base::Status BatchRecomputation::RunSqlFile(std::string_view name, std::string_view sql,
                                            ReconcileReport& report) {
  const auto started = Clock::now();
  // Statement by statement, so that a debug log shows where the time goes.
  duckdb_extracted_statements statements = nullptr;
  const std::string text(sql);
  const idx_t count = duckdb_extract_statements(db_->raw(), text.c_str(), &statements);
  if (count == 0) {
    std::string message = duckdb_extract_statements_error(statements);
    duckdb_destroy_extracted(&statements);
    return base::Internal("batch SQL sql/{} does not parse: {}", name, message);
  }
  for (idx_t i = 0; i < count; ++i) {
    const auto statement_started = Clock::now();
    duckdb_prepared_statement prepared = nullptr;
    duckdb_result result;
    std::string error;
    if (duckdb_prepare_extracted_statement(db_->raw(), statements, i, &prepared) == DuckDBError) {
      error = duckdb_prepare_error(prepared);
    } else if (duckdb_execute_prepared(prepared, &result) == DuckDBError) {
      error = duckdb_result_error(&result);
      duckdb_destroy_result(&result);
    } else {
      duckdb_destroy_result(&result);
    }
    duckdb_destroy_prepare(&prepared);
    if (!error.empty()) {
      duckdb_destroy_extracted(&statements);
      return base::Internal("batch SQL sql/{} statement {} failed: {}", name, i + 1, error);
    }
    spdlog::debug("reconcile statement done file={} statement={} seconds={:.3f}", name, i + 1,
                  SecondsSince(statement_started));
  }
  duckdb_destroy_extracted(&statements);
  const double seconds = SecondsSince(started);
  spdlog::debug("reconcile phase done phase={} seconds={:.3f}", name, seconds);
  for (auto& [phase, total] : report.phase_seconds) {
    if (phase == name) {
      total += seconds;
      return base::Status::Ok();
    }
  }
  report.phase_seconds.emplace_back(std::string(name), seconds);
  return base::Status::Ok();
}

base::Result<ReconcileReport> BatchRecomputation::CompareWith(
    const std::filesystem::path& stream_db) {
  ReconcileReport report;
  report.records = seq_;
  report.phase_seconds.emplace_back("load", load_seconds_);
  if (!std::filesystem::exists(stream_db)) {
    return base::NotFound("{}: no such database", stream_db.string());
  }
  FROTA_RETURN_IF_ERROR(Flush());
  FROTA_RETURN_IF_ERROR(LoadSourcesAndTerminals());
  auto& db = *db_;
  const auto attached =
      db.Execute(fmt::format("ATTACH {} AS stream (READ_ONLY)", Quoted(stream_db.string())));
  if (!attached.ok()) {
    return base::InvalidInput("{}: cannot open as a DuckDB database: {}", stream_db.string(),
                              attached.error().message());
  }
  {
    FROTA_ASSIGN_OR_RETURN(auto schema,
                           db.Query("SELECT count(*) FROM duckdb_tables() WHERE database_name = "
                                    "'stream' AND table_name = 'frota_schema'"));
    if (schema.Int64(0, 0) == 0) {
      return base::InvalidInput("{}: not a frota database (no frota_schema table)",
                                stream_db.string());
    }
    FROTA_ASSIGN_OR_RETURN(auto version, db.Query("SELECT max(version) FROM stream.frota_schema"));
    if (version.IsNull(0, 0) || version.Int64(0, 0) != sink::kDuckDbSchemaVersion) {
      return base::InvalidInput("{}: schema version {} is not the version {} this frota reads",
                                stream_db.string(), version.IsNull(0, 0) ? 0 : version.Int64(0, 0),
                                sink::kDuckDbSchemaVersion);
    }
  }
  FROTA_RETURN_IF_ERROR(SetVariables(report));

  FROTA_RETURN_IF_ERROR(RunSqlFile("functions.sql", sql::kFunctionsSql, report));
  FROTA_RETURN_IF_ERROR(RunSqlFile("local_time.sql", sql::kLocalTimeSql, report));
  FROTA_RETURN_IF_ERROR(RunSqlFile("admission.sql", sql::kAdmissionSql, report));
  FROTA_ASSIGN_OR_RETURN(auto suspects, db.Query("SELECT count(*) FROM late_suspects"));
  if (suspects.Int64(0, 0) > 0) {
    // Rule 7 exactly: rounds until the late set is a fixed point (late_round.sql).
    while (true) {
      if (report.late_rounds == kMaxLateRounds) {
        return base::Internal("rule 7: the late set did not settle after {} rounds",
                              kMaxLateRounds);
      }
      ++report.late_rounds;
      FROTA_RETURN_IF_ERROR(RunSqlFile("late_round.sql", sql::kLateRoundSql, report));
      FROTA_ASSIGN_OR_RETURN(auto changes, db.Query("SELECT changes FROM late_round_changes"));
      if (changes.Int64(0, 0) == 0) {
        break;
      }
    }
  }
  FROTA_RETURN_IF_ERROR(RunSqlFile("key_rules.sql", sql::kKeyRulesSql, report));
  // Rule 6's walk by pointer doubling: about log2(longest walk) rounds.
  for (int round = 0;; ++round) {
    if (round == kMaxWalkRounds) {
      return base::Internal("rule 6: the jump walk did not end after {} doubling rounds",
                            kMaxWalkRounds);
    }
    FROTA_RETURN_IF_ERROR(RunSqlFile("walk_round.sql", sql::kWalkRoundSql, report));
    FROTA_ASSIGN_OR_RETURN(auto added, db.Query("SELECT added FROM walk_round_added"));
    if (added.Int64(0, 0) == 0) {
      break;
    }
  }
  FROTA_RETURN_IF_ERROR(RunSqlFile("key_results.sql", sql::kKeyResultsSql, report));
  FROTA_RETURN_IF_ERROR(RunSqlFile("jobs.sql", sql::kJobsSql, report));
  FROTA_RETURN_IF_ERROR(CutBatchToWindow());
  {
    // The catalog's tables' comparison views first (compare.sql uses them), timed with it.
    std::string compare;
    for (const model::TableSpec* table : model::CatalogTables()) {
      if (table->reconcile != model::Reconcile::kByKey) {
        continue;
      }
      compare += sink::CompareViewSql(*table, fmt::format("cmp_{}_stream", table->name),
                                      fmt::format("stream.{}", table->view), false);
      compare +=
          sink::CompareViewSql(*table, fmt::format("cmp_{}_batch", table->name),
                               fmt::format("(SELECT * FROM batch_{} WHERE {})", table->name,
                                           InWindow(*sink::TableDateColumn(table->name, {}))),
                               true);
    }
    compare += sql::kCompareSql;
    FROTA_RETURN_IF_ERROR(RunSqlFile("compare.sql", compare, report));
  }
  FROTA_ASSIGN_OR_RETURN(const bool aircraft, CompareAircraft());
  {
    // A stream table that repeats a key is compared again with its rows grouped by key
    // (compare.sql, repeated_key_tables): one copy compared, the others extra.
    FROTA_ASSIGN_OR_RETURN(auto repeated, db.Query("SELECT table_name FROM repeated_key_tables "
                                                   "ORDER BY table_name"));
    std::string statements;
    for (std::size_t i = 0; i < repeated.rows(); ++i) {
      const std::string table = repeated.String(i, 0);
      statements += fmt::format(
          "DELETE FROM differences WHERE table_name = {0};\n"
          "INSERT INTO differences SELECT {0}, * FROM table_differences_grouped("
          "'cmp_{1}_stream', 'cmp_{1}_batch');\n",
          Quoted(table), table);
    }
    if (!statements.empty()) {
      FROTA_RETURN_IF_ERROR(RunSqlFile("compare.sql (repeated keys)", statements, report));
    }
  }

  FROTA_ASSIGN_OR_RETURN(auto summary,
                         db.Query("SELECT table_name, stream_rows, batch_rows, missing, extra, "
                                  "different FROM table_summary"));
  std::map<std::string, TableComparison> by_name;
  for (std::size_t i = 0; i < summary.rows(); ++i) {
    TableComparison t;
    t.table = summary.String(i, 0);
    t.stream_rows = summary.Int64(i, 1);
    t.batch_rows = summary.Int64(i, 2);
    t.missing = summary.Int64(i, 3);
    t.extra = summary.Int64(i, 4);
    t.different = summary.Int64(i, 5);
    by_name.emplace(t.table, std::move(t));
  }
  FROTA_ASSIGN_OR_RETURN(auto examples,
                         db.Query("SELECT table_name, kind, key, stream_row, batch_row "
                                  "FROM difference_examples ORDER BY table_name, key, kind"));
  for (std::size_t i = 0; i < examples.rows(); ++i) {
    auto& t = by_name[examples.String(i, 0)];
    t.examples.push_back({examples.String(i, 1), examples.String(i, 2), examples.String(i, 3),
                          examples.String(i, 4)});
  }
  for (const std::string_view name :
       {"positions", "rejected", "speed_cells", "speed_lines", "fleet_hours", "stops", "trips",
        "quality", "quality_latency", "duplicate_counts", "duplicate_slots"}) {
    auto it = by_name.find(std::string(name));
    if (it == by_name.end()) {
      return base::Internal("compare.sql gave no summary for table {}", name);
    }
    report.equal = report.equal && it->second.equal();
    report.tables.push_back(std::move(it->second));
  }
  if (aircraft) {
    auto it = by_name.find("aircraft_positions");
    if (it == by_name.end()) {
      return base::Internal("compare.sql gave no summary for table aircraft_positions");
    }
    report.equal = report.equal && it->second.equal();
    report.tables.push_back(std::move(it->second));
  }
  if (context_.feed && context_.routes) {
    FROTA_RETURN_IF_ERROR(CompareRegularity(report));
  }
  return report;
}

std::string BatchRecomputation::InWindow(const sink::DateColumn& column) const {
  return sink::WindowCondition(column, options_.window, *context_.job.time_zone);
}

base::Status BatchRecomputation::CutBatchToWindow() {
  const auto instant = [](std::string_view micros) {
    return sink::DateColumn{fmt::format("make_timestamp({})", micros),
                            model::ColumnType::kTimestamp};
  };
  std::string sql = fmt::format(
      "CREATE OR REPLACE VIEW compared_accepted AS SELECT * FROM accepted WHERE {};\n"
      "CREATE OR REPLACE VIEW compared_rejected AS SELECT * FROM batch_rejected WHERE {};\n",
      InWindow(instant("event_us")), InWindow(instant("coalesce(event_us, ingest_us)")));
  if (options_.window.bounded()) {
    // batch_duplicate_slots is a view over batch_trips.
    sql += fmt::format("DELETE FROM batch_trips WHERE NOT {};\n",
                       InWindow(*sink::TableDateColumn("trips", {})));
  }
  return db_->Execute(sql);
}

base::Result<bool> BatchRecomputation::CompareAircraft() {
  // aircraft_positions (origin country, last contact; its views are at the end of
  // compare.sql) is compared only where either side has a row, so the report of a day
  // without aircraft lists the tables it always did.
  FROTA_ASSIGN_OR_RETURN(auto rows,
                         db_->Query("SELECT stream_rows + batch_rows FROM aircraft_table_rows"));
  if (rows.Int64(0, 0) == 0) {
    return false;
  }
  FROTA_RETURN_IF_ERROR(
      db_->Execute("INSERT INTO differences SELECT 'aircraft_positions', * FROM table_differences("
                   "'cmp_aircraft_positions_stream', 'cmp_aircraft_positions_batch'); "
                   "INSERT INTO table_rows SELECT * FROM aircraft_table_rows"));
  return true;
}

// The streaming jobs of a replay given a GTFS (semantics §7): `frota headways` computes
// the departures, headways and alerts in one step over the recomputed positions (the
// batch side of `positions` above), and each table is compared row by row with the
// stream's. Their rows have no key of their own, so a difference is a missing or an extra
// row, never a different one.
base::Status BatchRecomputation::CompareRegularity(ReconcileReport& report) {
  const auto started = Clock::now();
  auto& db = *db_;
  if (options_.window.bounded()) {
    // Over every recomputed position: a departure of the window's first service date
    // may need the positions before it, as the stream had them.
    FROTA_RETURN_IF_ERROR(
        db.Execute("CREATE OR REPLACE VIEW compared_accepted AS SELECT * FROM accepted"));
  }
  // The alerts are recomputed when `alerts` exists: empty copies of the stream's tables.
  FROTA_RETURN_IF_ERROR(db.Execute(
      "CREATE OR REPLACE TABLE positions AS SELECT v.feed_id AS feed_id, v.vehicle_id AS "
      "vehicle_id, v.route_id AS route_id, v.trip_id AS trip_id, v.trip_start_date AS "
      "trip_start_date, v.event_time AS event_time, v.lat AS lat, v.lon AS lon "
      "FROM cmp_positions_batch;\n"
      "CREATE OR REPLACE TABLE departures AS SELECT * FROM stream.departures LIMIT 0;\n"
      "CREATE OR REPLACE TABLE alerts AS SELECT * FROM stream.alerts LIMIT 0;"));
  HeadwayOptions options;
  options.time_zone = context_.job.time_zone->name();
  if (auto computed = ComputeHeadways(db, *context_.feed, options); !computed.ok()) {
    return computed.error().WithContext("recomputing departures, headways and alerts");
  }
  for (const std::string table : {"departures", "headways", "alerts"}) {
    if (options_.window.bounded()) {
      FROTA_RETURN_IF_ERROR(db.Execute(fmt::format("DELETE FROM main.{} WHERE NOT {}", table,
                                                   InWindow(*sink::TableDateColumn(table, {})))));
    }
    FROTA_ASSIGN_OR_RETURN(const auto check, CheckStreamTable(db, table, "stream." + table,
                                                              "main." + table, options_.examples));
    TableComparison t;
    t.table = table;
    t.stream_rows = check.stream_rows;
    t.batch_rows = check.batch_rows;
    t.missing = check.missing;
    t.extra = check.extra;
    for (const std::string& e : check.examples) {
      // "missing: (row)" (the recomputation's) or "extra: (row)" (the stream's).
      const bool missing = e.starts_with("missing: ");
      const std::string row = e.substr(e.find(": ") + 2);
      t.examples.push_back(
          {missing ? "missing" : "extra", "", missing ? "" : row, missing ? row : ""});
    }
    report.equal = report.equal && t.equal();
    report.tables.push_back(std::move(t));
  }
  report.phase_seconds.emplace_back("regularity", SecondsSince(started));
  return base::Status::Ok();
}

base::Result<ReconcileReport> Reconcile(const ReconcileConfig& config) {
  const auto started = Clock::now();
  FROTA_ASSIGN_OR_RETURN(const auto context, runner::LoadReplayContext(config.replay));
  FROTA_ASSIGN_OR_RETURN(auto partitions, runner::ReplayPartitions(config.replay));
  model::SourceCatalog catalog;
  FROTA_ASSIGN_OR_RETURN(
      auto replay,
      source::ReplaySource::Open(std::move(partitions), &catalog,
                                 runner::ReplaySourceOptions(config.replay, *context), {}));
  source::PrefetchingSource source(std::move(replay), config.replay.batch_records);
  FROTA_ASSIGN_OR_RETURN(auto batch, BatchRecomputation::Create(*context, catalog, config.options));
  std::vector<source::SourceRecord> records;
  while (true) {
    FROTA_ASSIGN_OR_RETURN(const bool more, source.Next(records));
    if (!more) {
      break;
    }
    for (const auto& record : records) {
      FROTA_RETURN_IF_ERROR(batch->Add(record));
    }
  }
  const double read_seconds = SecondsSince(started);
  FROTA_ASSIGN_OR_RETURN(auto report, batch->CompareWith(config.db));
  // "load" counted only the appends; report reading and decoding with it.
  report.phase_seconds.front().second = read_seconds;
  return report;
}

std::string ReconcileJson(const ReconcileReport& report) {
  nlohmann::ordered_json tables = nlohmann::ordered_json::object();
  for (const auto& t : report.tables) {
    nlohmann::ordered_json examples = nlohmann::ordered_json::array();
    for (const auto& e : t.examples) {
      examples.push_back({{"kind", e.kind},
                          {"key", e.key},
                          {"stream", e.stream_row.empty() ? nlohmann::ordered_json()
                                                          : nlohmann::ordered_json(e.stream_row)},
                          {"batch", e.batch_row.empty() ? nlohmann::ordered_json()
                                                        : nlohmann::ordered_json(e.batch_row)}});
    }
    tables[t.table] = {{"stream_rows", t.stream_rows}, {"batch_rows", t.batch_rows},
                       {"missing", t.missing},         {"extra", t.extra},
                       {"different", t.different},     {"examples", examples}};
  }
  nlohmann::ordered_json phases = nlohmann::ordered_json::object();
  for (const auto& [phase, seconds] : report.phase_seconds) {
    phases[phase] = std::round(seconds * 1000) / 1000;
  }
  nlohmann::ordered_json j;
  j["tables"] = tables;
  j["equal"] = report.equal;
  j["records"] = report.records;
  j["late_rounds"] = report.late_rounds;
  j["rules"] = runner::RulesJson(report.rules);
  j["phase_seconds"] = phases;
  return j.dump(2);
}

std::string ReconcileText(const ReconcileReport& report) {
  std::string out = fmt::format("{:<16} {:>12} {:>12} {:>9} {:>9} {:>9}\n", "table", "stream_rows",
                                "batch_rows", "missing", "extra", "different");
  for (const auto& t : report.tables) {
    out += fmt::format("{:<16} {:>12} {:>12} {:>9} {:>9} {:>9}\n", t.table, t.stream_rows,
                       t.batch_rows, t.missing, t.extra, t.different);
  }
  for (const auto& t : report.tables) {
    for (const auto& e : t.examples) {
      out += fmt::format("\n{} {} {}\n", t.table, e.kind, e.key);
      if (!e.stream_row.empty()) {
        out += fmt::format("  stream: {}\n", e.stream_row);
      }
      if (!e.batch_row.empty()) {
        out += fmt::format("  batch:  {}\n", e.batch_row);
      }
    }
  }
  out += report.equal ? "\nequal: the stream's tables match the batch recomputation\n"
                      : "\nNOT equal: the stream's tables differ from the batch recomputation\n";
  return out;
}

}  // namespace frota::batch
