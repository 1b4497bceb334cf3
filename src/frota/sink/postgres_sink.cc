#include "frota/sink/postgres_sink.h"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <numeric>
#include <set>
#include <thread>

#include "frota/sink/catalog_sql.h"
#include "frota/sink/pg_copy.h"
#include "frota/version.h"

namespace frota::sink::sql {
extern const std::string_view kPostgresSchemaV1Sql;
extern const std::string_view kPostgresSchemaV2Sql;
extern const std::string_view kPostgresSchemaV3Sql;
extern const std::string_view kPostgresSchemaV4Sql;
extern const std::string_view kPostgresSchemaV5Sql;
extern const std::string_view kPostgresSchemaV6Sql;
extern const std::string_view kPostgresSchemaV7Sql;
extern const std::string_view kPostgresSchemaV8Sql;
extern const std::string_view kPostgresSchemaV9Sql;
extern const std::string_view kPostgresSchemaV10Sql;
extern const std::string_view kPostgresViewsV1Sql;
}  // namespace frota::sink::sql

namespace frota::sink {

namespace {

using model::Mode;

constexpr std::string_view kUniqueViolation = "23505";

// Any constant: serialises schema creation and migration between processes.
constexpr std::int64_t kSchemaLock = 0x66726f7461;  // "frota"

struct Migration {
  int to_version;
  std::string_view sql;
};

base::Result<int> SchemaVersion(PgConnection& db, bool& exists) {
  FROTA_ASSIGN_OR_RETURN(
      auto found, db.Query("SELECT to_regclass('frota_schema') IS NOT NULL, (SELECT count(*) FROM "
                           "pg_tables WHERE schemaname = current_schema())"));
  exists = found.Value(0, 0) == "t";
  if (!exists) {
    if (found.Int(0, 1) > 0) {
      return base::InvalidInput(
          "PostgreSQL ({}): this database has tables but is not a frota database (no "
          "frota_schema table); use a new database",
          db.description());
    }
    return 0;
  }
  FROTA_ASSIGN_OR_RETURN(auto version,
                         db.Query("SELECT coalesce(max(version), 0) FROM frota_schema"));
  const int v = static_cast<int>(version.Int(0, 0));
  if (v > kPostgresSchemaVersion) {
    return base::InvalidInput(
        "PostgreSQL ({}): the database has schema version {}, newer than this frota "
        "understands ({}); refusing to touch it: use a newer frota",
        db.description(), v, kPostgresSchemaVersion);
  }
  return v;
}

std::string_view Name(Mode mode) { return model::ModeName(mode); }

// A text[] literal: every element quoted, backslashes and quotes escaped.
std::string TextArray(const std::vector<std::string>& values) {
  std::string out = "{";
  for (std::size_t i = 0; i < values.size(); ++i) {
    out += i == 0 ? "\"" : ",\"";
    for (const char c : values[i]) {
      if (c == '"' || c == '\\') {
        out += '\\';
      }
      out += c;
    }
    out += '"';
  }
  return out + "}";
}

PgParam TimestampParam(base::Timestamp t) {
  // NULL at the watermark's extremes (before any record, after the end of input).
  if (t == base::Timestamp::min() || t == base::Timestamp::max()) {
    return PgParam::Null();
  }
  return PgParam::Text(base::FormatIso8601(t));
}

// bytea in text result format: "\x" then hex digits.
base::Result<std::string> DecodeBytea(std::string_view text) {
  if (!text.starts_with("\\x") || text.size() % 2 != 0) {
    return base::Internal("unexpected bytea text form");
  }
  const auto nibble = [](char c) -> int {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
  };
  std::string out;
  out.reserve(text.size() / 2 - 1);
  for (std::size_t i = 2; i < text.size(); i += 2) {
    const int hi = nibble(text[i]);
    const int lo = nibble(text[i + 1]);
    if (hi < 0 || lo < 0) {
      return base::Internal("unexpected bytea text form");
    }
    out.push_back(static_cast<char>(hi * 16 + lo));
  }
  return out;
}

// How each temp table is merged into its table (step 3 of the commit).
struct Upsert {
  std::string_view table;
  std::vector<std::string_view> keys;
  std::vector<std::string_view> values;
  bool add;  // aggregates: partial sums add up; others: the row is rewritten as is
};

// A catalog table's upsert: its stored key, and every other stored column rewritten, or
// added (`kSum` columns), or none when the first row stands.
Upsert CatalogUpsert(const model::TableSpec& table) {
  Upsert u{table.name, {}, {}, false};
  for (const model::Column& column : model::StoredColumns(table)) {
    if (column.stored_key()) {
      u.keys.push_back(column.name);
    } else if (table.on_conflict == model::OnConflict::kReplace ||
               column.role == model::Role::kSum) {
      u.values.push_back(column.name);
      u.add = u.add || column.role == model::Role::kSum;
    }
  }
  return u;
}

// A catalog table's rows (model/tables.h) into its temp table.
template <typename Row>
base::Status CopyCatalogRows(PgConnection& db, const std::vector<Row>& rows) {
  if (rows.empty()) {
    return base::Status::Ok();
  }
  return db.CopyIn(
      fmt::format("COPY tmp_{} FROM STDIN (FORMAT binary)", model::Table<Row>::kSpec.name),
      CopyPayload(rows));
}

// positions, then every table of the catalog (model/tables.h), in its order.
const std::vector<Upsert>& Upserts() {
  static const std::vector<Upsert> kUpserts = [] {
    std::vector<Upsert> upserts = {
        {"positions",
         {"feed_id", "vehicle_id", "event_time"},
         {"mode", "route_id", "trip_id", "trip_start_date", "trip_start_time", "direction_id",
          "lat", "lon", "reported_speed_kmh", "bearing_deg", "altitude_m", "on_ground",
          "ingest_time", "event_time_from_header", "source", "source_offset"},
         false},
    };
    for (const model::TableSpec* table : model::CatalogTables()) {
      upserts.push_back(CatalogUpsert(*table));
    }
    return upserts;
  }();
  return kUpserts;
}

std::string UpsertSql(const Upsert& u) {
  std::vector<std::string> sets;
  for (const auto v : u.values) {
    sets.push_back(u.add ? fmt::format("{0} = {1}.{0} + EXCLUDED.{0}", v, u.table)
                         : fmt::format("{0} = EXCLUDED.{0}", v));
  }
  const std::string keys = fmt::format("{}", fmt::join(u.keys, ", "));
  if (u.values.empty()) {
    // A row that is its key's only fact (a poll): the first copy stands, and a second one
    // in the same epoch cannot fail the statement.
    return fmt::format("INSERT INTO {0} SELECT * FROM tmp_{0} ON CONFLICT ({1}) DO NOTHING",
                       u.table, keys);
  }
  if (!u.add) {
    return fmt::format("INSERT INTO {0} SELECT * FROM tmp_{0} ON CONFLICT ({1}) DO UPDATE SET {2}",
                       u.table, keys, fmt::join(sets, ", "));
  }
  // Grouped first: a key may come twice in one epoch (a quality hour emitted, then a late
  // refusal adding a second partial row), and one INSERT may not touch a row twice.
  std::vector<std::string> sums;
  for (const auto v : u.values) {
    sums.push_back(fmt::format("sum({})", v));
  }
  return fmt::format(
      "INSERT INTO {0} ({1}, {2}) SELECT {1}, {3} FROM tmp_{0} GROUP BY {1} "
      "ON CONFLICT ({1}) DO UPDATE SET {4}",
      u.table, keys, fmt::join(u.values, ", "), fmt::join(sums, ", "), fmt::join(sets, ", "));
}

}  // namespace

// ---- schema -----------------------------------------------------------------------------

base::Status EnsurePostgresSchema(PgConnection& db) {
  FROTA_RETURN_IF_ERROR(db.Execute("BEGIN"));
  auto run = [&]() -> base::Status {
    FROTA_RETURN_IF_ERROR(db.Query(fmt::format("SELECT pg_advisory_xact_lock({})", kSchemaLock)));
    bool exists = false;
    FROTA_ASSIGN_OR_RETURN(const int version, SchemaVersion(db, exists));
    const Migration migrations[] = {
        {1, sql::kPostgresSchemaV1Sql}, {2, sql::kPostgresSchemaV2Sql},
        {3, sql::kPostgresSchemaV3Sql}, {4, sql::kPostgresSchemaV4Sql},
        {5, sql::kPostgresSchemaV5Sql}, {6, sql::kPostgresSchemaV6Sql},
        {7, sql::kPostgresSchemaV7Sql}, {8, sql::kPostgresSchemaV8Sql},
        {9, sql::kPostgresSchemaV9Sql}, {10, sql::kPostgresSchemaV10Sql}};
    bool migrated = false;
    for (const auto& migration : migrations) {
      if (migration.to_version <= version) {
        continue;
      }
      FROTA_RETURN_IF_ERROR(db.Execute(
          "CREATE TABLE IF NOT EXISTS frota_schema (version integer NOT NULL, applied_at "
          "timestamp NOT NULL, frota_version text NOT NULL)"));
      const auto status = db.Execute(migration.sql);
      if (!status.ok()) {
        return status.error().WithContext(
            fmt::format("migrating to schema version {}", migration.to_version));
      }
      FROTA_RETURN_IF_ERROR(
          db.Query("INSERT INTO frota_schema VALUES ($1, now()::timestamp, $2)",
                   {PgParam::Int(migration.to_version), PgParam::Text(std::string(kVersion))}));
      migrated = true;
    }
    FROTA_ASSIGN_OR_RETURN(auto views, db.Query("SELECT to_regclass('duplicate_slots') IS NULL"));
    if (migrated || views.Value(0, 0) == "t") {
      FROTA_RETURN_IF_ERROR(db.Execute(sql::kPostgresViewsV1Sql));
    }
    return base::Status::Ok();
  };
  const auto status = run();
  if (!status.ok()) {
    if (!db.broken()) {
      (void)db.Execute("ROLLBACK");
    }
    return status;
  }
  return db.Execute("COMMIT");
}

base::Status CheckPostgresSchema(PgConnection& db) {
  bool exists = false;
  FROTA_ASSIGN_OR_RETURN(const int version, SchemaVersion(db, exists));
  if (!exists || version == 0) {
    return base::NotFound(
        "PostgreSQL ({}): no frota tables in this database (nothing was "
        "written to it yet)",
        db.description());
  }
  if (version < kPostgresSchemaVersion) {
    return EnsurePostgresSchema(db);  // migrate, as a writer would
  }
  return base::Status::Ok();
}

// ---- sink -------------------------------------------------------------------------------

struct PostgresSink::Transaction {
  std::int64_t epoch = 0;
  base::Timestamp watermark;
  std::int64_t records = 0;
  std::string stream;
  std::vector<engine::SourceProgress> progress;
  std::vector<engine::PartitionState> states;
  std::optional<std::string> runner_state;
  std::set<std::int32_t> finished;
};

PostgresSink::PostgresSink(PostgresSinkOptions options, const model::SourceCatalog* catalog)
    : options_(std::move(options)),
      catalog_(catalog),
      description_(PgConnection::Describe(options_.dsn)) {}

base::Result<std::unique_ptr<PostgresSink>> PostgresSink::Open(
    PostgresSinkOptions options, const model::SourceCatalog* catalog) {
  std::unique_ptr<PostgresSink> sink(new PostgresSink(std::move(options), catalog));
  FROTA_ASSIGN_OR_RETURN(const bool connected,
                         sink->WithRetry<bool>("open", [&](bool) -> base::Result<bool> {
                           return true;  // WithRetry connected (and checked the schema)
                         }));
  (void)connected;
  if (!sink->options_.rules.empty()) {
    FROTA_ASSIGN_OR_RETURN(const bool recorded,
                           sink->WithRetry<bool>("rules", [&](bool) -> base::Result<bool> {
                             FROTA_RETURN_IF_ERROR(sink->RecordRules());
                             return true;
                           }));
    (void)recorded;
  }
  return sink;
}

base::Status PostgresSink::RecordRules() {
  // Concurrent writers (a consumer group's members) may both find the table empty: the
  // first insert wins, the others insert nothing and compare with it.
  std::string values;
  std::vector<PgParam> params;
  for (const auto& [key, value] : options_.rules) {
    values += fmt::format("{}(${}, ${}::double precision)", values.empty() ? "" : ", ",
                          params.size() + 1, params.size() + 2);
    params.push_back(PgParam::Text(key));
    params.push_back(PgParam::Text(fmt::format("{}", value)));
  }
  FROTA_RETURN_IF_ERROR(db_->Query(
      fmt::format("INSERT INTO rules SELECT * FROM (VALUES {}) AS v(key, value) WHERE NOT "
                  "EXISTS (SELECT 1 FROM rules) ON CONFLICT (key) DO NOTHING",
                  values),
      params));
  FROTA_ASSIGN_OR_RETURN(auto rows, db_->Query("SELECT key, value FROM rules"));
  RuleRecord stored;
  for (int i = 0; i < rows.rows(); ++i) {
    stored.emplace_back(std::string(rows.Value(i, 0)), std::stod(std::string(rows.Value(i, 1))));
  }
  return CheckRecordedRules(stored, options_.rules, fmt::format("PostgreSQL ({})", description_));
}

base::Status PostgresSink::Connect() {
  FROTA_ASSIGN_OR_RETURN(auto db, PgConnection::Open(options_.dsn));
  FROTA_RETURN_IF_ERROR(EnsurePostgresSchema(*db));
  // Session temp tables for step 2; emptied by every COMMIT.
  std::string create;
  for (const auto& u : Upserts()) {
    create += fmt::format(
        "CREATE TEMP TABLE IF NOT EXISTS tmp_{0} (LIKE {0}) ON COMMIT DELETE ROWS;", u.table);
  }
  FROTA_RETURN_IF_ERROR(db->Execute(create));
  if (db_ == nullptr) {
    spdlog::info("postgres connected {}", db->description());
  } else {
    spdlog::info("postgres reconnected {}", db->description());
  }
  db_ = std::move(db);
  return base::Status::Ok();
}

template <typename T, typename F>
base::Result<T> PostgresSink::WithRetry(std::string_view what, F&& attempt) {
  const auto started = std::chrono::steady_clock::now();
  const auto deadline = started + options_.unavailable_wait;
  auto backoff = std::chrono::milliseconds(250);
  bool retrying = false;
  for (int n = 1;; ++n) {
    std::optional<base::Error> error;
    if (db_ == nullptr || db_->broken()) {
      db_.reset();
      const auto connected = Connect();
      if (!connected.ok()) {
        if (connected.error().kind() != base::Error::Kind::kUnavailable) {
          return connected.error();
        }
        error = connected.error();
      }
    }
    if (db_ != nullptr) {
      base::Result<T> result = attempt(retrying);
      if (result.ok() || result.error().kind() != base::Error::Kind::kUnavailable) {
        if (n > 1 && result.ok()) {
          spdlog::info(
              "postgres available again what={} attempts={} waited_s={:.1f}", what, n,
              std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count());
        }
        return result;
      }
      error = result.error();
      if (db_->broken()) {
        db_.reset();
      }
    }
    retrying = true;
    if (std::chrono::steady_clock::now() + backoff > deadline) {
      return base::Unavailable("{}: PostgreSQL unavailable for {} s, giving up: {}", what,
                               options_.unavailable_wait.count(), error->message());
    }
    spdlog::warn("postgres unavailable, waiting what={} attempt={} retry_in_ms={} error=\"{}\"",
                 what, n, backoff.count(), error->message());
    std::this_thread::sleep_for(backoff);
    backoff = std::min<std::chrono::milliseconds>(backoff * 2, std::chrono::seconds(5));
  }
}

std::string PostgresSink::PartitionSource(std::string_view stream, base::PartitionId partition) {
  return fmt::format("{}/{}", stream, partition.value());
}

base::Result<engine::RecoveredCheckpoint> PostgresSink::Recover() {
  return WithRetry<engine::RecoveredCheckpoint>(
      "recover", [&](bool) -> base::Result<engine::RecoveredCheckpoint> {
        engine::RecoveredCheckpoint out;
        FROTA_ASSIGN_OR_RETURN(
            auto kafka, db_->Query("SELECT min(stream) FROM source_progress WHERE stream <> ''"));
        if (!kafka.IsNull(0, 0)) {
          return base::InvalidInput(
              "PostgreSQL ({}): this database holds the state of a Kafka run (topic {}); an "
              "embedded replay cannot add to it: use another database",
              description_, kafka.Value(0, 0));
        }
        FROTA_ASSIGN_OR_RETURN(
            auto epoch,
            db_->Query("SELECT coalesce(max(epoch), 0) FROM batches WHERE stream = ''"));
        out.last_epoch = base::EpochId(epoch.Int(0, 0));
        FROTA_ASSIGN_OR_RETURN(
            auto progress,
            db_->Query("SELECT source, partition_id, next_offset, generation FROM "
                       "source_progress WHERE stream = '' ORDER BY partition_id, source"));
        generations_.clear();
        for (int i = 0; i < progress.rows(); ++i) {
          std::string source(progress.Value(i, 0));
          out.progress.push_back({source,
                                  base::PartitionId(static_cast<std::int32_t>(progress.Int(i, 1))),
                                  base::Offset(progress.Int(i, 2))});
          generations_[source] = progress.Int(i, 3);
        }
        FROTA_ASSIGN_OR_RETURN(
            auto states, db_->Query("SELECT partition_id, state FROM engine_state WHERE stream = "
                                    "'' ORDER BY partition_id"));
        for (int i = 0; i < states.rows(); ++i) {
          FROTA_ASSIGN_OR_RETURN(auto bytes, DecodeBytea(states.Value(i, 1)));
          out.states.push_back(
              {base::PartitionId(static_cast<std::int32_t>(states.Int(i, 0))), std::move(bytes)});
        }
        FROTA_ASSIGN_OR_RETURN(auto runner,
                               db_->Query("SELECT state FROM runner_state WHERE id = 0"));
        if (runner.rows() > 0) {
          FROTA_ASSIGN_OR_RETURN(out.runner_state, DecodeBytea(runner.Value(0, 0)));
        }
        return out;
      });
}

base::Status PostgresSink::Commit(const model::EpochRows& rows,
                                  const engine::EpochCheckpoint& checkpoint) {
  Transaction tx;
  tx.epoch = checkpoint.epoch.value();
  tx.watermark = checkpoint.watermark;
  tx.records = checkpoint.records;
  tx.progress = checkpoint.progress;
  tx.states = checkpoint.states;
  tx.runner_state = checkpoint.runner_state;
  FROTA_ASSIGN_OR_RETURN(const auto outcome, CommitWithRetry(rows, tx));
  if (outcome == engine::CommitOutcome::kFenced) {
    return base::FailedCheck(
        "committing epoch {}: another frota process committed to this database since this "
        "replay started; only one replay may write to a database at a time",
        tx.epoch);
  }
  return RemoveBefore(checkpoint.retention);
}

base::Result<std::vector<engine::PartitionCheckpoint>> PostgresSink::Acquire(
    std::string_view stream, const std::vector<base::PartitionId>& partitions) {
  stream_ = std::string(stream);
  return WithRetry<std::vector<engine::PartitionCheckpoint>>(
      "acquire partitions", [&](bool) -> base::Result<std::vector<engine::PartitionCheckpoint>> {
        FROTA_ASSIGN_OR_RETURN(
            auto embedded,
            db_->Query("SELECT (SELECT count(*) FROM source_progress WHERE stream = '') + "
                       "(SELECT count(*) FROM runner_state)"));
        if (embedded.Int(0, 0) > 0) {
          return base::InvalidInput(
              "PostgreSQL ({}): this database holds the state of an embedded replay; a Kafka "
              "run cannot add to it: use another database",
              description_);
        }
        std::vector<std::string> sources;
        for (const auto p : partitions) {
          sources.push_back(PartitionSource(stream_, p));
        }
        // One statement: progress and state from the same snapshot.
        FROTA_ASSIGN_OR_RETURN(
            auto found,
            db_->Query("SELECT p.source, p.next_offset, p.generation, p.finished, s.state "
                       "FROM source_progress p LEFT JOIN engine_state s ON s.stream = p.stream "
                       "AND s.partition_id = p.partition_id WHERE p.source = ANY($1::text[])",
                       {PgParam::Text(TextArray(sources))}));
        std::map<std::string, int> row_of;
        for (int i = 0; i < found.rows(); ++i) {
          row_of[std::string(found.Value(i, 0))] = i;
        }
        std::vector<engine::PartitionCheckpoint> out;
        for (std::size_t k = 0; k < partitions.size(); ++k) {
          engine::PartitionCheckpoint cp;
          cp.partition = partitions[k];
          const auto it = row_of.find(sources[k]);
          if (it == row_of.end()) {
            generations_[sources[k]] = 0;
          } else {
            const int i = it->second;
            cp.next_offset = base::Offset(found.Int(i, 1));
            generations_[sources[k]] = found.Int(i, 2);
            cp.finished = found.Value(i, 3) == "t";
            if (!found.IsNull(i, 4)) {
              FROTA_ASSIGN_OR_RETURN(cp.state, DecodeBytea(found.Value(i, 4)));
            }
          }
          out.push_back(std::move(cp));
        }
        return out;
      });
}

void PostgresSink::Release(const std::vector<base::PartitionId>& partitions) {
  for (const auto p : partitions) {
    generations_.erase(PartitionSource(stream_, p));
  }
}

base::Result<engine::CommitOutcome> PostgresSink::CommitPartitions(
    const model::EpochRows& rows, const engine::PartitionedEpoch& epoch) {
  Transaction tx;
  tx.epoch = epoch.epoch.value();
  tx.watermark = epoch.watermark;
  tx.records = epoch.records;
  tx.stream = stream_;
  tx.progress = epoch.progress;
  tx.states = epoch.states;
  for (const auto p : epoch.finished) {
    tx.finished.insert(p.value());
  }
  FROTA_ASSIGN_OR_RETURN(const auto outcome, CommitWithRetry(rows, tx));
  if (outcome == engine::CommitOutcome::kCommitted) {
    FROTA_RETURN_IF_ERROR(RemoveBefore(epoch.retention));
  }
  return outcome;
}

base::Result<std::int64_t> PostgresSink::FinishedPartitions(std::string_view stream) {
  return WithRetry<std::int64_t>(
      "count finished partitions", [&](bool) -> base::Result<std::int64_t> {
        FROTA_ASSIGN_OR_RETURN(auto count,
                               db_->Query("SELECT count(*) FROM source_progress WHERE stream = $1 "
                                          "AND finished",
                                          {PgParam::Text(std::string(stream))}));
        return count.Int(0, 0);
      });
}

base::Result<engine::CommitOutcome> PostgresSink::CommitWithRetry(const model::EpochRows& rows,
                                                                  const Transaction& tx) {
  return WithRetry<engine::CommitOutcome>(
      fmt::format("commit epoch={}", tx.epoch),
      [&](bool retrying) -> base::Result<engine::CommitOutcome> {
        if (retrying) {
          // The previous attempt may have failed after the server committed (the
          // connection broke while COMMIT was in flight): the ledger row says.
          FROTA_ASSIGN_OR_RETURN(
              auto done, db_->Query("SELECT count(*) FROM batches WHERE run_id = $1 AND epoch = $2",
                                    {PgParam::Text(options_.run_id), PgParam::Int(tx.epoch)}));
          if (done.Int(0, 0) > 0) {
            spdlog::info("epoch committed before the connection broke epoch={}", tx.epoch);
            for (const auto& p : tx.progress) {
              ++generations_[p.source];
            }
            return engine::CommitOutcome::kCommitted;
          }
        }
        FROTA_RETURN_IF_ERROR(EnsureDayPartitions(rows));
        return CommitOnce(rows, tx);
      });
}

namespace {

// The UTC day of an instant, as a date (the day partitions of timestamp-keyed tables).
base::LocalDate UtcDay(base::Timestamp t) {
  return base::LocalDate(std::chrono::floor<std::chrono::days>(t).time_since_epoch());
}

// The advisory lock under which partitions are made and dropped ("frota-partitions").
constexpr std::int64_t kPartitionLock = 0x66726f7461706172;

}  // namespace

base::Status PostgresSink::EnsureDayPartitions(const model::EpochRows& rows) {
  std::set<std::pair<std::string, std::int32_t>> needed;
  const auto need = [&](std::string_view table, base::LocalDate day) {
    const std::pair<std::string, std::int32_t> key{std::string(table), base::DaysSinceEpoch(day)};
    if (!day_partitions_.contains(key)) {
      needed.insert(key);
    }
  };
  std::optional<base::LocalDate> last;
  for (const auto& p : rows.positions) {
    const auto day = UtcDay(p.event_time);
    if (day != last) {  // an epoch's positions are mostly of one day
      need("positions", day);
      last = day;
    }
  }
  for (const auto& r : rows.rejected) {
    const auto at = r.event_time    ? *r.event_time
                    : r.ingest_time ? *r.ingest_time
                                    : base::Timestamp{};
    need("rejected", UtcDay(at));
  }
  for (const auto& poll : rows.of<model::PollRow>()) {
    need("collector_polls", UtcDay(poll.polled_at));
  }
  for (const auto& d : rows.of<model::DuplicateCountRow>()) {
    need("duplicate_counts", d.local_date);
  }
  if (needed.empty()) {
    return base::Status::Ok();
  }
  std::vector<std::pair<std::string, std::vector<PgParam>>> statements;
  statements.emplace_back(fmt::format("SELECT pg_advisory_xact_lock({})", kPartitionLock),
                          std::vector<PgParam>{});
  for (const auto& [table, days] : needed) {
    statements.emplace_back(
        "SELECT frota_day_partition($1::regclass, $2::date)",
        std::vector<PgParam>{PgParam::Text(table),
                             PgParam::Text(base::FormatDate(base::LocalDateFromDays(days)))});
  }
  FROTA_RETURN_IF_ERROR(db_->Execute("BEGIN"));
  auto made = db_->Pipeline(statements);
  if (made.ok()) {
    made = db_->Execute("COMMIT");
  }
  if (!made.ok()) {
    if (!db_->broken()) {
      (void)db_->Execute("ROLLBACK");
    }
    return made;
  }
  day_partitions_.insert(needed.begin(), needed.end());
  return base::Status::Ok();
}

base::Status PostgresSink::RemoveBefore(const engine::Retention& retention) {
  if (retention.empty()) {
    return base::Status::Ok();
  }
  const auto cut_of = [&](model::Layer layer) {
    return layer == model::Layer::kSilver ? retention.raw : retention.results;
  };
  FROTA_ASSIGN_OR_RETURN(
      const std::int64_t removed,
      WithRetry<std::int64_t>("retention", [&](bool) -> base::Result<std::int64_t> {
        std::int64_t rows = 0;
        FROTA_RETURN_IF_ERROR(db_->Execute("BEGIN"));
        auto run = [&]() -> base::Status {
          // Members of a group may cut at once: one at a time, never waiting long for the
          // tables' locks (the next epoch's cut tries again).
          FROTA_RETURN_IF_ERROR(db_->Execute(fmt::format(
              "SET LOCAL lock_timeout = '10s'; SELECT pg_advisory_xact_lock({})", kPartitionLock)));
          // Day partitions wholly before the cut, dropped.
          if (retention.raw) {
            const auto& cut = *retention.raw;
            FROTA_ASSIGN_OR_RETURN(
                auto parts, db_->Query("SELECT p.relname::text, c.relname::text FROM pg_inherits i "
                                       "JOIN pg_class c ON c.oid = i.inhrelid "
                                       "JOIN pg_class p ON p.oid = i.inhparent "
                                       "WHERE p.relname = ANY('{positions,rejected,collector_polls,"
                                       "duplicate_counts}'::text[]) ORDER BY 2"));
            for (int i = 0; i < parts.rows(); ++i) {
              const std::string parent(parts.Value(i, 0));
              const std::string name(parts.Value(i, 1));
              const auto day =
                  base::ParseDate(name.size() >= 8 ? name.substr(name.size() - 8, 4) + "-" +
                                                         name.substr(name.size() - 4, 2) + "-" +
                                                         name.substr(name.size() - 2)
                                                   : std::string());
              if (!day) {
                continue;  // not one of frota's day partitions
              }
              const bool by_date = parent == "duplicate_counts";
              const auto next_day = *day + std::chrono::days(1);
              const bool wholly_before =
                  by_date ? next_day <= cut.before
                          : base::Timestamp(next_day.time_since_epoch()) <= cut.before_instant;
              if (!wholly_before) {
                continue;
              }
              FROTA_ASSIGN_OR_RETURN(auto counted,
                                     db_->Query(fmt::format("SELECT count(*) FROM {}", name)));
              FROTA_RETURN_IF_ERROR(db_->Execute(fmt::format("DROP TABLE {}", name)));
              day_partitions_.erase({parent, base::DaysSinceEpoch(*day)});
              rows += counted.Int(0, 0);
              spdlog::info("retention dropped partition={} rows={} before={} reason=retain-days",
                           name, counted.Int(0, 0), base::FormatDate(cut.before));
            }
          }
          // What is left before the cuts: rows of the partition that straddles it, and the
          // tables that are not partitioned.
          const auto remove = [&](std::string_view table, std::string_view key, bool by_date,
                                  const engine::RetentionCut& cut) -> base::Status {
            FROTA_ASSIGN_OR_RETURN(
                auto deleted,
                db_->Query(fmt::format("WITH d AS (DELETE FROM {} WHERE {} < $1::{} RETURNING 1) "
                                       "SELECT count(*) FROM d",
                                       table, key, by_date ? "date" : "timestamp"),
                           {by_date ? PgParam::Text(base::FormatDate(cut.before))
                                    : TimestampParam(cut.before_instant)}));
            if (deleted.Int(0, 0) > 0) {
              spdlog::info("retention removed table={} rows={} before={}", table, deleted.Int(0, 0),
                           base::FormatDate(cut.before));
            }
            rows += deleted.Int(0, 0);
            return base::Status::Ok();
          };
          if (retention.raw) {
            FROTA_RETURN_IF_ERROR(remove("positions", "event_time", false, *retention.raw));
            FROTA_RETURN_IF_ERROR(
                remove("rejected", "coalesce(event_time, ingest_time, timestamp '1970-01-01')",
                       false, *retention.raw));
          }
          for (const model::TableSpec* table : model::CatalogTables()) {
            const auto cut = cut_of(table->layer);
            if (!cut) {
              continue;
            }
            for (const model::Column& column : table->columns) {
              if (column.name == table->date_column) {
                FROTA_RETURN_IF_ERROR(remove(table->name, column.name,
                                             column.type == model::ColumnType::kDate, *cut));
              }
            }
          }
          return base::Status::Ok();
        };
        auto status = run();
        if (status.ok()) {
          status = db_->Execute("COMMIT");
        }
        if (!status.ok()) {
          if (!db_->broken()) {
            (void)db_->Execute("ROLLBACK");
          }
          return status.error();
        }
        return rows;
      }));
  if (removed > 0) {
    spdlog::info("retention done rows={}", removed);
  }
  return base::Status::Ok();
}

base::Result<engine::CommitOutcome> PostgresSink::CommitOnce(const model::EpochRows& rows,
                                                             const Transaction& tx) {
  FROTA_RETURN_IF_ERROR(db_->Execute("BEGIN"));
  auto run = [&]() -> base::Result<engine::CommitOutcome> {
    // Step 1: the fence, rows locked in one (sorted) order so that two committers of
    // overlapping partitions cannot deadlock.
    std::vector<std::string> sources;
    for (const auto& p : tx.progress) {
      sources.push_back(p.source);
    }
    std::sort(sources.begin(), sources.end());
    if (!sources.empty()) {
      FROTA_ASSIGN_OR_RETURN(
          auto locked, db_->Query("SELECT source, generation FROM source_progress WHERE source = "
                                  "ANY($1::text[]) ORDER BY source FOR UPDATE",
                                  {PgParam::Text(TextArray(sources))}));
      std::map<std::string, std::int64_t> committed;
      for (int i = 0; i < locked.rows(); ++i) {
        committed[std::string(locked.Value(i, 0))] = locked.Int(i, 1);
      }
      for (const auto& source : sources) {
        const auto expected_it = generations_.find(source);
        const std::int64_t expected = expected_it == generations_.end() ? 0 : expected_it->second;
        const auto committed_it = committed.find(source);
        const std::int64_t actual = committed_it == committed.end() ? 0 : committed_it->second;
        if (actual != expected) {
          spdlog::warn(
              "commit fenced epoch={} source={} generation_expected={} generation_found={}: "
              "another process committed this partition",
              tx.epoch, source, expected, actual);
          return engine::CommitOutcome::kFenced;
        }
      }
    }
    // Step 2.
    bool merge_positions = false;
    std::vector<bool> copied;  // per catalog table: whether its temp table got rows
    FROTA_RETURN_IF_ERROR(CopyRows(rows, merge_positions, copied));
    // Step 3: the upsert of each table that got rows (Upserts(): positions, then the
    // catalog's tables in its order).
    std::vector<std::pair<std::string, std::vector<PgParam>>> statements;
    if (merge_positions) {
      statements.emplace_back(UpsertSql(Upserts().front()), std::vector<PgParam>{});
    }
    for (std::size_t i = 0; i < copied.size(); ++i) {
      if (copied[i]) {
        statements.emplace_back(UpsertSql(Upserts().at(i + 1)), std::vector<PgParam>{});
      }
    }
    std::vector<std::string> partitions;
    for (const auto& p : tx.progress) {
      const std::int64_t generation = generations_.contains(p.source) ? generations_[p.source] : 0;
      statements.emplace_back(
          "INSERT INTO source_progress VALUES ($1, $2, $3, $4, $5, $6, $7, $8) ON CONFLICT "
          "(source) DO UPDATE SET stream = EXCLUDED.stream, partition_id = "
          "EXCLUDED.partition_id, next_offset = EXCLUDED.next_offset, generation = "
          "EXCLUDED.generation, finished = EXCLUDED.finished, epoch = EXCLUDED.epoch, run_id = "
          "EXCLUDED.run_id",
          std::vector<PgParam>{PgParam::Text(p.source), PgParam::Text(tx.stream),
                               PgParam::Int(p.partition.value()),
                               PgParam::Int(p.next_offset.value()), PgParam::Int(generation + 1),
                               PgParam::Bool(tx.finished.contains(p.partition.value())),
                               PgParam::Int(tx.epoch), PgParam::Text(options_.run_id)});
      partitions.push_back(std::to_string(p.partition.value()));
    }
    for (const auto& s : tx.states) {
      statements.emplace_back(
          "INSERT INTO engine_state VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT (stream, "
          "partition_id) DO UPDATE SET epoch = EXCLUDED.epoch, run_id = EXCLUDED.run_id, state "
          "= EXCLUDED.state, watermark = EXCLUDED.watermark",
          std::vector<PgParam>{PgParam::Text(tx.stream), PgParam::Int(s.partition.value()),
                               PgParam::Int(tx.epoch), PgParam::Text(options_.run_id),
                               PgParam::Bytes(s.bytes), TimestampParam(s.watermark)});
    }
    if (tx.runner_state) {
      statements.emplace_back(
          "INSERT INTO runner_state VALUES (0, $1, $2, $3) ON CONFLICT (id) DO UPDATE SET "
          "epoch = EXCLUDED.epoch, run_id = EXCLUDED.run_id, state = EXCLUDED.state",
          std::vector<PgParam>{PgParam::Int(tx.epoch), PgParam::Text(options_.run_id),
                               PgParam::Bytes(*tx.runner_state)});
    }
    statements.emplace_back(
        "INSERT INTO batches VALUES ($1, $2, now()::timestamp, $3, $4, $5, $6, $7, $8, $9)",
        std::vector<PgParam>{PgParam::Text(options_.run_id), PgParam::Int(tx.epoch),
                             TimestampParam(tx.watermark), PgParam::Int(tx.records),
                             PgParam::Int(static_cast<std::int64_t>(rows.positions.size())),
                             PgParam::Int(static_cast<std::int64_t>(rows.rejected.size())),
                             PgParam::Int(static_cast<std::int64_t>(rows.RowCount())),
                             PgParam::Text(tx.stream),
                             PgParam::Text(fmt::format("{{{}}}", fmt::join(partitions, ",")))});
    FROTA_RETURN_IF_ERROR(db_->Pipeline(statements));
    if (options_.pause_before_commit.count() > 0) {
      std::fprintf(stderr, "test hook: rows copied, pausing before COMMIT epoch=%lld\n",
                   static_cast<long long>(tx.epoch));
      std::fflush(stderr);
      std::this_thread::sleep_for(options_.pause_before_commit);
    }
    // Step 4.
    FROTA_RETURN_IF_ERROR(db_->Execute("COMMIT"));
    return engine::CommitOutcome::kCommitted;
  };
  auto outcome = run();
  const bool committed = outcome.ok() && *outcome == engine::CommitOutcome::kCommitted;
  if (!committed && !db_->broken()) {
    (void)db_->Execute("ROLLBACK");
  }
  if (committed) {
    for (const auto& p : tx.progress) {
      ++generations_[p.source];
    }
  }
  return outcome;
}

base::Status PostgresSink::CopyPositions(
    const model::EpochRows& rows,
    const std::function<std::string_view(model::SourceId)>& source_name, bool& merge_positions) {
  if (rows.positions.empty()) {
    return base::Status::Ok();
  }
  const auto optional_float = [](PgCopyWriter& w, float v) {
    std::isnan(v) ? w.Null() : w.Float32(v);
  };
  if (!rows.strings) {
    return base::Internal("epoch rows carry positions without their string dictionary");
  }
  const model::StringDictionary& strings = *rows.strings;
  // In key order: consecutive rows land on the same primary-key leaf, so the index
  // descents of the COPY find their pages in cache. Bytewise string order, the order
  // of the key under the C collation; any order is correct, this one is faster.
  std::vector<std::uint32_t> order(rows.positions.size());
  std::iota(order.begin(), order.end(), 0U);
  std::sort(order.begin(), order.end(), [&](std::uint32_t a, std::uint32_t b) {
    const auto& x = rows.positions[a];
    const auto& y = rows.positions[b];
    if (x.feed_id != y.feed_id) {
      return strings.View(x.feed_id) < strings.View(y.feed_id);
    }
    if (x.vehicle_id != y.vehicle_id) {
      return strings.View(x.vehicle_id) < strings.View(y.vehicle_id);
    }
    return x.event_time < y.event_time;
  });
  PgCopyWriter w;
  for (const std::uint32_t i : order) {
    const auto& p = rows.positions[i];
    w.Row(19);
    w.Text(strings.View(p.feed_id));
    w.Text(strings.View(p.vehicle_id));
    w.Text(Name(p.mode));
    w.Text(strings.View(p.route_id));
    w.Text(strings.View(p.trip_id));
    w.Text(strings.View(p.trip_start_date));
    w.Text(strings.View(p.trip_start_time));
    p.direction_id >= 0 ? w.Int16(p.direction_id) : w.Null();
    w.Float64(p.lat);
    w.Float64(p.lon);
    optional_float(w, p.reported_speed_kmh);
    optional_float(w, p.bearing_deg);
    optional_float(w, p.altitude_m);
    p.on_ground >= 0 ? w.Bool(p.on_ground == 1) : w.Null();
    w.TimestampMicros(base::ToUnixMicros(p.event_time));
    w.TimestampMicros(base::ToUnixMicros(p.ingest_time));
    w.Bool(p.event_time_from_header);
    w.Text(source_name(p.source.source));
    w.Int64(p.source.offset);
  }
  const std::string data = w.Finish();
  // Straight into the table: no temp table, no INSERT ... SELECT, and no per-row probe
  // for a conflict (ON CONFLICT searches the index before inserting, then inserts; the
  // plain insert's uniqueness check is part of its one descent). A key already present
  // is a unique violation; the savepoint takes back what the COPY wrote, and the rows
  // take the upsert path.
  FROTA_RETURN_IF_ERROR(db_->Execute("SAVEPOINT copy_positions"));
  const auto direct = db_->CopyIn("COPY positions FROM STDIN (FORMAT binary)", data);
  if (direct.ok()) {
    FROTA_RETURN_IF_ERROR(db_->Execute("RELEASE SAVEPOINT copy_positions"));
  } else if (db_->last_sqlstate() == kUniqueViolation) {
    spdlog::debug("positions already present, upserting rows={}", rows.positions.size());
    FROTA_RETURN_IF_ERROR(db_->Execute("ROLLBACK TO SAVEPOINT copy_positions"));
    FROTA_RETURN_IF_ERROR(db_->CopyIn("COPY tmp_positions FROM STDIN (FORMAT binary)", data));
    merge_positions = true;
  } else {
    return direct;
  }
  return base::Status::Ok();
}

base::Status PostgresSink::CopyRejected(
    const model::EpochRows& rows,
    const std::function<std::string_view(model::SourceId)>& source_name) {
  if (rows.rejected.empty()) {
    return base::Status::Ok();
  }
  if (!rows.strings) {
    return base::Internal("epoch rows carry rejections without their string dictionary");
  }
  const model::StringDictionary& strings = *rows.strings;
  PgCopyWriter w;
  std::string derived;
  for (const auto& r : rows.rejected) {
    w.Row(8);
    w.Text(strings.View(r.feed_id));
    w.Text(strings.View(r.vehicle_id));
    w.Text(model::RejectReasonName(r.reason));
    r.event_time ? w.TimestampMicros(base::ToUnixMicros(*r.event_time)) : w.Null();
    r.ingest_time ? w.TimestampMicros(base::ToUnixMicros(*r.ingest_time)) : w.Null();
    w.Text(source_name(r.source.source));
    w.Int64(r.source.offset);
    if (model::HasDerivedDetail(r)) {
      derived = model::DuplicateDetail(*r.event_time);
      w.Text(derived);
    } else {
      w.Text(r.detail);
    }
  }
  return db_->CopyIn("COPY rejected FROM STDIN (FORMAT binary)", w.Finish());
}

base::Status PostgresSink::CopyRows(const model::EpochRows& rows, bool& merge_positions,
                                    std::vector<bool>& copied) {
  // Source names, looked up once per id per commit (the catalog locks on every lookup).
  std::vector<std::string_view> names;
  const auto source_name = [&](model::SourceId id) -> std::string_view {
    if (catalog_ == nullptr) {
      return {};
    }
    if (id >= names.size()) {
      const std::size_t old = names.size();
      names.resize(id + 1);
      for (std::size_t i = old; i <= id; ++i) {
        names[i] = catalog_->Name(static_cast<model::SourceId>(i));
      }
    }
    return names[id];
  };
  FROTA_RETURN_IF_ERROR(CopyPositions(rows, source_name, merge_positions));
  FROTA_RETURN_IF_ERROR(CopyRejected(rows, source_name));
  // Every catalog table (aircraft_positions upserted on the positions' key).
  copied.clear();
  return model::ForEachTableRows(
      rows, [&]<typename Row>(const std::vector<Row>& table_rows) -> base::Status {
        copied.push_back(!table_rows.empty());
        if constexpr (model::UpsertedTable<Row>) {
          // One INSERT may not touch a row twice: the epoch's last row of each key.
          return CopyCatalogRows(*db_, LastRowOfEachKey(table_rows));
        } else {
          return CopyCatalogRows(*db_, table_rows);
        }
      });
}

}  // namespace frota::sink
