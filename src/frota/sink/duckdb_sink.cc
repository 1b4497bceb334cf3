#include "frota/sink/duckdb_sink.h"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <iterator>
#include <limits>
#include <map>
#include <optional>
#include <string_view>

#include "frota/base/file.h"
#include "frota/base/hash.h"
#include "frota/engine/watermark.h"
#include "frota/sink/catalog_sql.h"
#include "frota/version.h"

namespace frota::sink::sql {
extern const std::string_view kSchemaV1Sql;
extern const std::string_view kSchemaV2Sql;
extern const std::string_view kSchemaV3Sql;
extern const std::string_view kSchemaV4Sql;
extern const std::string_view kSchemaV5Sql;
extern const std::string_view kSchemaV6Sql;
extern const std::string_view kSchemaV7Sql;
extern const std::string_view kSchemaV8Sql;
extern const std::string_view kSchemaV9Sql;
extern const std::string_view kSchemaV10Sql;
extern const std::string_view kSchemaV11Sql;
extern const std::string_view kSilverFromTextV2Sql;
extern const std::string_view kSilverFromTextSql;
extern const std::string_view kViewsV1Sql;
}  // namespace frota::sink::sql

namespace frota::sink {

namespace {

// Migrations from version N-1 to N, applied in order; index 0 creates version 1.
struct Migration {
  int to_version;
  std::vector<std::string_view> sql;  // run in this order, in one transaction
};

// `table` (id UTINYINT, name) against the names this binary gives `values`: an id with
// another name, or a name under another id, is a database this frota cannot read; names
// a newer frota added to the enum are inserted.
template <typename Enum, std::size_t N, typename NameOf>
base::Status CheckNumbering(DuckDbConnection& db, std::string_view table, const Enum (&values)[N],
                            NameOf name_of) {
  FROTA_ASSIGN_OR_RETURN(auto stored,
                         db.Query(fmt::format("SELECT id, name FROM {} ORDER BY id", table)));
  std::map<std::int64_t, std::string> by_id;
  for (std::size_t i = 0; i < stored.rows(); ++i) {
    by_id.emplace(stored.Int64(i, 0), stored.String(i, 1));
  }
  std::string missing;
  for (const Enum value : values) {
    const auto id = static_cast<std::int64_t>(value);
    const std::string_view name = name_of(value);
    const auto it = by_id.find(id);
    if (it == by_id.end()) {
      for (const auto& [other_id, other_name] : by_id) {
        if (other_name == name) {
          return base::InvalidInput(
              "{}: table {} numbers '{}' {}, this frota {}: not a database it can read", db.path(),
              table, name, other_id, id);
        }
      }
      missing += fmt::format("{}({}, '{}')", missing.empty() ? "" : ", ", id, name);
    } else if (it->second != name) {
      return base::InvalidInput(
          "{}: table {} names number {} '{}', this frota '{}': not a database it can read",
          db.path(), table, id, it->second, name);
    }
  }
  if (missing.empty()) {
    return base::Status::Ok();
  }
  return db.Execute(fmt::format("INSERT INTO {} VALUES {}", table, missing));
}

// std::array/initializer views of the model enums for CheckNumbering.
constexpr model::RejectReason kReasons[] = {
    model::RejectReason::kMissingVehicleId,
    model::RejectReason::kMissingCoordinates,
    model::RejectReason::kLatitudeOutOfRange,
    model::RejectReason::kLongitudeOutOfRange,
    model::RejectReason::kNullIsland,
    model::RejectReason::kMissingTimestamp,
    model::RejectReason::kTimestampInMilliseconds,
    model::RejectReason::kStateVectorTooShort,
    model::RejectReason::kMalformedRecord,
    model::RejectReason::kBadPayload,
    model::RejectReason::kFuture,
    model::RejectReason::kStale,
    model::RejectReason::kOutOfArea,
    model::RejectReason::kDuplicate,
    model::RejectReason::kJump,
    model::RejectReason::kLate,
};
static_assert(std::size(kReasons) == model::kRejectReasonCount);

// The names of the views and macros `sql` creates ("CREATE OR REPLACE VIEW name AS").
std::vector<std::string_view> CreatedNames(std::string_view sql, std::string_view kind) {
  const std::string prefix = fmt::format("CREATE OR REPLACE {} ", kind);
  std::vector<std::string_view> names;
  for (std::size_t at = sql.find(prefix); at != std::string_view::npos;
       at = sql.find(prefix, at + 1)) {
    const std::size_t begin = at + prefix.size();
    const std::size_t end = sql.find_first_of(" (\n", begin);
    names.push_back(sql.substr(begin, end - begin));
  }
  return names;
}

// The views and macros of views_v1.sql as this binary defines them. Each view's comment
// names the text it was made from, by hash; all are re-created, in one transaction, only
// when one is missing or was made from another text. So an open that writes no rows (a
// run refused at its start, a resume with nothing new) leaves the file's bytes as they
// were, and a database written by another frota version gets this one's views.
base::Status EnsureViews(DuckDbConnection& db, bool migrated) {
  const std::string tag =
      fmt::format("frota views {:016x}", base::FastStableHash(sql::kViewsV1Sql));
  const auto views = CreatedNames(sql::kViewsV1Sql, "VIEW");
  const auto macros = CreatedNames(sql::kViewsV1Sql, "MACRO");
  if (!migrated) {
    FROTA_ASSIGN_OR_RETURN(
        auto tagged,
        db.Query(fmt::format("SELECT count(*) FROM duckdb_views() WHERE database_name = "
                             "current_database() AND schema_name = 'main' AND comment = '{}' AND "
                             "view_name IN ('{}')",
                             tag, fmt::join(views, "', '"))));
    FROTA_ASSIGN_OR_RETURN(
        auto defined,
        db.Query(fmt::format("SELECT count(DISTINCT function_name) FROM duckdb_functions() "
                             "WHERE database_name = current_database() AND schema_name = "
                             "'main' AND function_type = 'macro' AND function_name IN ('{}')",
                             fmt::join(macros, "', '"))));
    if (tagged.Int64(0, 0) == static_cast<std::int64_t>(views.size()) &&
        defined.Int64(0, 0) == static_cast<std::int64_t>(macros.size())) {
      return base::Status::Ok();
    }
  }
  FROTA_RETURN_IF_ERROR(db.Execute("BEGIN TRANSACTION"));
  auto status = db.Execute(sql::kViewsV1Sql);
  for (const auto view : views) {
    if (status.ok()) {
      status = db.Execute(fmt::format("COMMENT ON VIEW {} IS '{}'", view, tag));
    }
  }
  if (!status.ok()) {
    (void)db.Execute("ROLLBACK");
    return status.error().WithContext(fmt::format("{}: creating the views", db.path()));
  }
  return db.Execute("COMMIT");
}

base::Status EnsureSchema(DuckDbConnection& db) {
  FROTA_ASSIGN_OR_RETURN(
      auto tables, db.Query("SELECT count(*) FILTER (WHERE table_name = 'frota_schema'), count(*) "
                            "FROM duckdb_tables() WHERE database_name = current_database()"));
  const bool has_schema_table = tables.Int64(0, 0) > 0;
  const bool has_other_tables = tables.Int64(0, 1) > 0;
  int version = 0;
  if (has_schema_table) {
    FROTA_ASSIGN_OR_RETURN(auto found, db.Query("SELECT max(version) FROM frota_schema"));
    version = found.IsNull(0, 0) ? 0 : static_cast<int>(found.Int64(0, 0));
  } else if (has_other_tables) {
    return base::InvalidInput(
        "{}: this DuckDB database has tables but is not a frota database (no frota_schema "
        "table); use a new file",
        db.path());
  }
  if (version > kDuckDbSchemaVersion) {
    return base::InvalidInput(
        "{}: the database has schema version {}, newer than this frota understands ({}); "
        "refusing to touch it: use a newer frota",
        db.path(), version, kDuckDbSchemaVersion);
  }
  const Migration migrations[] = {
      {1, {sql::kSchemaV1Sql}},  {2, {sql::kSchemaV2Sql, sql::kSilverFromTextV2Sql}},
      {3, {sql::kSchemaV3Sql}},  {4, {sql::kSchemaV4Sql}},
      {5, {sql::kSchemaV5Sql}},  {6, {sql::kSchemaV6Sql}},
      {7, {sql::kSchemaV7Sql}},  {8, {sql::kSchemaV8Sql}},
      {9, {sql::kSchemaV9Sql}},  {10, {sql::kSchemaV10Sql}},
      {11, {sql::kSchemaV11Sql}}};
  bool migrated = false;
  for (const auto& migration : migrations) {
    if (migration.to_version <= version) {
      continue;
    }
    migrated = true;
    FROTA_RETURN_IF_ERROR(db.Execute("BEGIN TRANSACTION"));
    auto status = db.Execute(
        "CREATE TABLE IF NOT EXISTS frota_schema (version INTEGER NOT NULL, applied_at "
        "TIMESTAMP NOT NULL, frota_version VARCHAR NOT NULL)");
    for (const auto sql_text : migration.sql) {
      if (status.ok()) {
        status = db.Execute(sql_text);
      }
    }
    if (status.ok()) {
      status =
          db.Execute(fmt::format("INSERT INTO frota_schema VALUES ({}, now()::TIMESTAMP, '{}')",
                                 migration.to_version, kVersion));
    }
    if (!status.ok()) {
      (void)db.Execute("ROLLBACK");
      return status.error().WithContext(
          fmt::format("{}: migrating to schema version {}", db.path(), migration.to_version));
    }
    FROTA_RETURN_IF_ERROR(db.Execute("COMMIT"));
  }
  FROTA_RETURN_IF_ERROR(CheckNumbering(db, "modes", model::kAllModes, model::ModeName));
  FROTA_RETURN_IF_ERROR(CheckNumbering(db, "reject_reasons", kReasons, model::RejectReasonName));
  return EnsureViews(db, migrated);
}

// Table `rules`: `wanted` recorded if the database has none yet, else checked against
// what it has.
// A SQL string literal.
std::string SqlQuoted(std::string_view text) {
  std::string quoted = "'";
  for (const char c : text) {
    quoted += c == '\'' ? std::string("''") : std::string(1, c);
  }
  return quoted + "'";
}

base::Status RecordRules(DuckDbConnection& db, const RuleRecord& wanted) {
  FROTA_ASSIGN_OR_RETURN(auto rows, db.Query("SELECT key, value FROM rules"));
  RuleRecord stored;
  for (std::size_t i = 0; i < rows.rows(); ++i) {
    stored.emplace_back(rows.String(i, 0), rows.Double(i, 1));
  }
  if (!stored.empty()) {
    return CheckRecordedRules(stored, wanted, db.path());
  }
  std::string values;
  for (const auto& [key, value] : wanted) {
    values += fmt::format("{}({}, {}::DOUBLE)", values.empty() ? "" : ", ", SqlQuoted(key), value);
  }
  return db.Execute(fmt::format("INSERT INTO rules VALUES {}", values));
}

// Table `garage_edges`: `wanted` in place of what it holds, unless it holds exactly that
// (so reopening with the same garages leaves the file as it was).
base::Status RecordGarages(DuckDbConnection& db, const GarageRecord& wanted) {
  FROTA_ASSIGN_OR_RETURN(
      auto rows, db.Query("SELECT lat_a, lon_a, lat_b, lon_b FROM garage_edges ORDER BY edge"));
  GarageRecord stored;
  for (std::size_t i = 0; i < rows.rows(); ++i) {
    stored.push_back({rows.Double(i, 0), rows.Double(i, 1), rows.Double(i, 2), rows.Double(i, 3)});
  }
  if (stored == wanted) {
    return base::Status::Ok();
  }
  FROTA_RETURN_IF_ERROR(db.Execute("BEGIN TRANSACTION"));
  auto status = db.Execute("DELETE FROM garage_edges");
  if (status.ok()) {
    status = db.Execute(InsertGarageEdgesSql(wanted, "DOUBLE"));
  }
  if (!status.ok()) {
    (void)db.Execute("ROLLBACK");
    return status.error().WithContext(fmt::format("{}: recording the garages", db.path()));
  }
  return db.Execute("COMMIT");
}

// The watermark as a storable timestamp: NULL at its extremes (before any record, after
// the end of input), which no TIMESTAMP column can hold.
SqlParam WatermarkParam(base::Timestamp t) {
  if (t == base::Timestamp::min() || t == base::Timestamp::max()) {
    return SqlParam::Null();
  }
  return SqlParam::Int64(base::ToUnixMicros(t));
}

}  // namespace

base::Result<std::unique_ptr<DuckDbConnection>> OpenFrotaDuckDb(const std::filesystem::path& path,
                                                                bool must_exist) {
  if (must_exist && !std::filesystem::exists(path)) {
    return base::NotFound("{}: no such database", path.string());
  }
  FROTA_ASSIGN_OR_RETURN(auto db, DuckDbConnection::Open(path));
  FROTA_RETURN_IF_ERROR(EnsureSchema(*db));
  return db;
}

namespace {

// A DuckDB memory size ("512MB", "1.5 GiB", "100000"): DuckDB's units, KB = 1000 and
// KiB = 1024 bytes; nullopt for anything else (the caller then leaves the limit alone).
std::optional<double> MemorySizeBytes(std::string_view text) {
  std::size_t digits = 0;
  while (digits < text.size() &&
         (std::isdigit(static_cast<unsigned char>(text[digits])) != 0 || text[digits] == '.')) {
    ++digits;
  }
  double number = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + digits, number);
  if (digits == 0 || ec != std::errc() || end != text.data() + digits) {
    return std::nullopt;
  }
  std::string unit;
  for (const char c : text.substr(digits)) {
    if (c != ' ') {
      unit += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    }
  }
  static constexpr std::pair<std::string_view, double> kUnits[] = {{"", 1},
                                                                   {"b", 1},
                                                                   {"bytes", 1},
                                                                   {"kb", 1e3},
                                                                   {"mb", 1e6},
                                                                   {"gb", 1e9},
                                                                   {"tb", 1e12},
                                                                   {"kib", 1024.0},
                                                                   {"mib", 1 << 20},
                                                                   {"gib", 1 << 30},
                                                                   {"tib", 1099511627776.0}};
  for (const auto& [name, bytes] : kUnits) {
    if (unit == name) {
      return number * bytes;
    }
  }
  return std::nullopt;
}

}  // namespace

base::Result<std::unique_ptr<DuckDbSink>> DuckDbSink::Open(const std::filesystem::path& path,
                                                           const model::SourceCatalog* catalog,
                                                           std::string run_id,
                                                           DuckDbSinkOptions options) {
  FROTA_ASSIGN_OR_RETURN(auto db, OpenFrotaDuckDb(path, /*must_exist=*/false));
  // Epochs commit often; letting the write-ahead log grow before DuckDB checkpoints keeps
  // it from recompressing the same partly filled row groups at every commit. Closing the
  // database checkpoints; a crash replays the log on the next open.
  FROTA_RETURN_IF_ERROR(db->Execute("SET checkpoint_threshold = '1GB'"));
  // The sink only appends: DuckDB's cache of the blocks it wrote is never read back, and
  // by default it may grow to 80 % of the machine. Bounded here; what DuckDB must keep
  // until a checkpoint (row-group metadata, the indexes) is checkpointed away after
  // commits that leave too much of it (CheckpointIfHeld).
  if (!options.memory_limit.empty()) {
    FROTA_RETURN_IF_ERROR(
        db->Execute(fmt::format("SET memory_limit = '{}'", options.memory_limit)));
  }
  // One DuckDB thread: the commit runs on the runner's commit thread while the jobs and
  // the decoder use the other cores. With DuckDB's default (a thread per core) the
  // committing thread waits for its workers by polling the task queue, which burned most
  // of a core during a replay (perf: pthread_mutex_lock/unlock under
  // PendingQueryResult::ExecuteTask) and starved the pipeline.
  FROTA_RETURN_IF_ERROR(db->Execute("SET threads = 1"));
  // No FSST string compression: its analysis (symbol tables over every string column of
  // every row group) cost a sixth of a replay's CPU, and on the simulated Rio day the
  // file came out smaller without it (dictionary and plain storage: 449 vs 496-517 MB in
  // the same runs, on a loaded machine).
  FROTA_RETURN_IF_ERROR(db->Execute("SET disabled_compression_methods = 'fsst'"));
  std::unique_ptr<DuckDbSink> sink(
      new DuckDbSink(std::move(db), catalog, std::move(run_id), std::move(options)));
  FROTA_RETURN_IF_ERROR(sink->stored_.Load(*sink->connection_));
  FROTA_RETURN_IF_ERROR(sink->labels_.Load(*sink->connection_));
  if (!sink->options_.rules.empty()) {
    FROTA_RETURN_IF_ERROR(RecordRules(*sink->connection_, sink->options_.rules));
  }
  if (!sink->options_.garages.empty()) {
    FROTA_RETURN_IF_ERROR(RecordGarages(*sink->connection_, sink->options_.garages));
  }
  return sink;
}

base::Status StoredStrings::Load(DuckDbConnection& db) {
  ids_.clear();
  added_.clear();
  flushed_ = 0;
  FROTA_ASSIGN_OR_RETURN(auto rows, db.Query("SELECT id, text FROM strings"));
  std::int64_t largest = 0;
  for (std::size_t i = 0; i < rows.rows(); ++i) {
    const std::int64_t id = rows.Int64(i, 0);
    largest = std::max(largest, id);
    ids_.emplace(rows.String(i, 1), static_cast<std::int32_t>(id));
  }
  if (largest >= std::numeric_limits<std::int32_t>::max()) {
    return base::InvalidInput("{}: the strings table is full", db.path());
  }
  next_ = static_cast<std::int32_t>(largest + 1);
  return base::Status::Ok();
}

std::int32_t StoredStrings::IdOf(std::string_view text) {
  if (const auto it = ids_.find(text); it != ids_.end()) {
    return it->second;
  }
  const std::int32_t id = next_++;
  ids_.emplace(std::string(text), id);
  added_.emplace_back(text);
  return id;
}

base::Status StoredStrings::Flush(DuckDbConnection& db) {
  if (flushed_ == added_.size()) {
    return base::Status::Ok();
  }
  FROTA_ASSIGN_OR_RETURN(
      auto a, ChunkAppender::Create(db, "strings", {ColumnType::kInteger, ColumnType::kVarchar}));
  const auto first = next_ - static_cast<std::int32_t>(added_.size());
  for (std::size_t i = flushed_; i < added_.size(); ++i) {
    a->SetInt32(0, first + static_cast<std::int32_t>(i));
    a->SetString(1, added_[i]);
    FROTA_RETURN_IF_ERROR(a->EndRow());
  }
  FROTA_RETURN_IF_ERROR(a->Close());
  flushed_ = added_.size();
  return base::Status::Ok();
}

void StoredStrings::Rollback() {
  for (const auto& text : added_) {
    ids_.erase(ids_.find(text));
  }
  next_ -= static_cast<std::int32_t>(added_.size());
  added_.clear();
  flushed_ = 0;
}

std::size_t StoredLabels::Hash::operator()(const Label& l) const {
  std::uint64_t h = static_cast<std::uint32_t>(l.feed_id);
  for (const std::int64_t part :
       {std::int64_t{l.vehicle_id}, std::int64_t{l.route_id}, std::int64_t{l.trip_id},
        std::int64_t{l.trip_start_date}, std::int64_t{l.trip_start_time},
        std::int64_t{l.mode} << 8 | static_cast<std::uint8_t>(l.direction_id)}) {
    h = (h ^ static_cast<std::uint64_t>(part)) * 0x9E3779B97F4A7C15ULL;
    h ^= h >> 29;
  }
  return static_cast<std::size_t>(h);
}

base::Status StoredLabels::Load(DuckDbConnection& db) {
  ids_.clear();
  added_.clear();
  flushed_ = 0;
  FROTA_ASSIGN_OR_RETURN(auto rows,
                         db.Query("SELECT id, feed_id, vehicle_id, mode, route_id, trip_id, "
                                  "trip_start_date, trip_start_time, coalesce(direction_id, -1) "
                                  "FROM position_labels"));
  std::int64_t largest = 0;
  for (std::size_t i = 0; i < rows.rows(); ++i) {
    const std::int64_t id = rows.Int64(i, 0);
    largest = std::max(largest, id);
    Label label;
    label.feed_id = static_cast<std::int32_t>(rows.Int64(i, 1));
    label.vehicle_id = static_cast<std::int32_t>(rows.Int64(i, 2));
    label.mode = static_cast<std::uint8_t>(rows.Int64(i, 3));
    label.route_id = static_cast<std::int32_t>(rows.Int64(i, 4));
    label.trip_id = static_cast<std::int32_t>(rows.Int64(i, 5));
    label.trip_start_date = static_cast<std::int32_t>(rows.Int64(i, 6));
    label.trip_start_time = static_cast<std::int32_t>(rows.Int64(i, 7));
    label.direction_id = static_cast<std::int8_t>(rows.Int64(i, 8));
    ids_.emplace(label, static_cast<std::int32_t>(id));
  }
  if (largest >= std::numeric_limits<std::int32_t>::max()) {
    return base::InvalidInput("{}: the position_labels table is full", db.path());
  }
  next_ = static_cast<std::int32_t>(largest + 1);
  return base::Status::Ok();
}

std::int32_t StoredLabels::IdOf(const Label& label) {
  const auto [it, added] = ids_.try_emplace(label, next_);
  if (added) {
    ++next_;
    added_.push_back(label);
  }
  return it->second;
}

base::Status StoredLabels::Flush(DuckDbConnection& db) {
  if (flushed_ == added_.size()) {
    return base::Status::Ok();
  }
  using CT = ColumnType;
  FROTA_ASSIGN_OR_RETURN(auto a, ChunkAppender::Create(db, "position_labels",
                                                       {CT::kInteger, CT::kInteger, CT::kInteger,
                                                        CT::kUtinyint, CT::kInteger, CT::kInteger,
                                                        CT::kInteger, CT::kInteger, CT::kTinyint}));
  const auto first = next_ - static_cast<std::int32_t>(added_.size());
  for (std::size_t i = flushed_; i < added_.size(); ++i) {
    const Label& l = added_[i];
    a->SetInt32(0, first + static_cast<std::int32_t>(i));
    a->SetInt32(1, l.feed_id);
    a->SetInt32(2, l.vehicle_id);
    a->SetUInt8(3, l.mode);
    a->SetInt32(4, l.route_id);
    a->SetInt32(5, l.trip_id);
    a->SetInt32(6, l.trip_start_date);
    a->SetInt32(7, l.trip_start_time);
    l.direction_id >= 0 ? a->SetInt8(8, l.direction_id) : a->SetNull(8);
    FROTA_RETURN_IF_ERROR(a->EndRow());
  }
  FROTA_RETURN_IF_ERROR(a->Close());
  flushed_ = added_.size();
  return base::Status::Ok();
}

void StoredLabels::Rollback() {
  for (const auto& label : added_) {
    ids_.erase(label);
  }
  next_ -= static_cast<std::int32_t>(added_.size());
  added_.clear();
  flushed_ = 0;
}

base::Status AddSilverText(DuckDbConnection& db, const std::function<base::Status()>& fill) {
  FROTA_RETURN_IF_ERROR(
      db.Execute("CREATE TABLE positions_text AS SELECT * FROM positions LIMIT 0; "
                 "CREATE TABLE rejected_text AS SELECT * FROM rejected LIMIT 0"));
  auto status = fill();
  if (status.ok()) {
    status = db.Execute(sql::kSilverFromTextSql);
  }
  if (!status.ok()) {
    (void)db.Execute("DROP TABLE IF EXISTS positions_text; DROP TABLE IF EXISTS rejected_text");
  }
  return status;
}

base::Status DuckDbSink::CheckpointWithAllCores() {
  FROTA_RETURN_IF_ERROR(connection_->Execute(fmt::format("SET threads = {}", base::CoreCount())));
  const base::Status checkpointed = connection_->Execute("CHECKPOINT");
  // Back to one thread for epochs whether or not the checkpoint went through.
  FROTA_RETURN_IF_ERROR(connection_->Execute("SET threads = 1"));
  return checkpointed;
}

base::Result<engine::RecoveredCheckpoint> DuckDbSink::Recover() {
  engine::RecoveredCheckpoint out;
  FROTA_ASSIGN_OR_RETURN(auto epoch, connection_->Query("SELECT max(epoch) FROM batches"));
  out.last_epoch = base::EpochId(epoch.IsNull(0, 0) ? 0 : epoch.Int64(0, 0));
  FROTA_ASSIGN_OR_RETURN(auto progress,
                         connection_->Query("SELECT source, partition_id, next_offset FROM "
                                            "source_progress ORDER BY partition_id, source"));
  progress_in_db_.clear();
  for (std::size_t i = 0; i < progress.rows(); ++i) {
    out.progress.push_back({progress.String(i, 0),
                            base::PartitionId(static_cast<std::int32_t>(progress.Int64(i, 1))),
                            base::Offset(progress.Int64(i, 2))});
    const auto& p = out.progress.back();
    progress_in_db_[p.source] = {p.partition.value(), p.next_offset.value()};
  }
  FROTA_ASSIGN_OR_RETURN(
      auto states,
      connection_->Query("SELECT partition_id, state FROM engine_state ORDER BY partition_id"));
  for (std::size_t i = 0; i < states.rows(); ++i) {
    out.states.push_back(
        {base::PartitionId(static_cast<std::int32_t>(states.Int64(i, 0))), states.Blob(i, 1)});
  }
  FROTA_ASSIGN_OR_RETURN(auto runner,
                         connection_->Query("SELECT state FROM runner_state WHERE id = 0"));
  if (runner.rows() > 0) {
    out.runner_state = runner.Blob(0, 0);
  }
  return out;
}

base::Status DuckDbSink::BeginEpoch() {
  if (!in_epoch_) {
    FROTA_RETURN_IF_ERROR(connection_->Execute("BEGIN TRANSACTION"));
    in_epoch_ = true;
    epoch_counts_ = EpochCounts{};
  }
  return base::Status::Ok();
}

base::Status DuckDbSink::CloseAppenders() {
  base::Status status;
  for (auto& [table, appender] : appenders_) {
    if (const auto closed = appender->Close(); !closed.ok() && status.ok()) {
      status = closed;
    }
  }
  appenders_.clear();
  return status;
}

base::Result<ChunkAppender*> DuckDbSink::EpochAppender(std::string_view table,
                                                       std::vector<ColumnType> columns) {
  for (auto& [name, appender] : appenders_) {
    if (name == table) {
      return appender.get();
    }
  }
  FROTA_ASSIGN_OR_RETURN(auto appender,
                         ChunkAppender::Create(*connection_, table, std::move(columns)));
  appenders_.emplace_back(std::string(table), std::move(appender));
  return appenders_.back().second.get();
}

template <typename Row>
base::Status DuckDbSink::AppendCatalogRows(const std::vector<Row>& rows) {
  if (rows.empty()) {
    return base::Status::Ok();
  }
  const auto& spec = model::Table<Row>::kSpec;
  FROTA_ASSIGN_OR_RETURN(ChunkAppender * a, EpochAppender(spec.name, AppenderTypes(spec)));
  return AppendRows(*a, rows);
}

base::Error DuckDbSink::AbortEpoch(const base::Error& error) {
  (void)CloseAppenders();  // what they hold goes with the transaction
  std::apply([](auto&... upserts) { (upserts.clear(), ...); }, epoch_upserts_);
  if (in_epoch_) {
    (void)connection_->Execute("ROLLBACK");
    in_epoch_ = false;
  }
  // The strings and labels this epoch numbered are not in the tables: forget them, and
  // every id looked up with them.
  stored_.Rollback();
  labels_.Rollback();
  ForgetLookups();
  by_source_id_.clear();
  return error;
}

base::Status DuckDbSink::WriteInEpoch(const model::EpochRows& rows) {
  FROTA_RETURN_IF_ERROR(BeginEpoch());
  FROTA_RETURN_IF_ERROR(WriteRows(rows));
  epoch_counts_.positions += static_cast<std::int64_t>(rows.positions.size());
  epoch_counts_.rejected += static_cast<std::int64_t>(rows.rejected.size());
  epoch_counts_.rows += static_cast<std::int64_t>(rows.RowCount());
  return base::Status::Ok();
}

base::Status DuckDbSink::Write(const model::EpochRows& rows) {
  if (failed_epoch_) {
    return *failed_epoch_;
  }
  if (const auto status = WriteInEpoch(rows); !status.ok()) {
    failed_epoch_ = AbortEpoch(status.error().WithContext("writing rows of an open epoch"));
    return *failed_epoch_;
  }
  return base::Status::Ok();
}

base::Status DuckDbSink::Commit(const model::EpochRows& rows,
                                const engine::EpochCheckpoint& checkpoint) {
  if (failed_epoch_) {
    // The epoch was rolled back when one of its writes failed; a retry starts afresh.
    auto error = std::move(*failed_epoch_);
    failed_epoch_.reset();
    return error.WithContext(fmt::format("committing epoch {}", checkpoint.epoch.value()));
  }
  auto status = WriteInEpoch(rows);
  if (status.ok()) {
    status = CloseAppenders();
  }
  if (status.ok()) {
    status = WriteUpserts();
  }
  std::int64_t removed = 0;
  if (status.ok() && !checkpoint.retention.empty()) {
    auto removal = RemoveBefore(checkpoint.retention);
    status = removal.ok() ? base::Status::Ok() : base::Status(removal.error());
    removed = removal.ok() ? *removal : 0;
  }
  if (status.ok()) {
    status = stored_.Flush(*connection_);
  }
  if (status.ok()) {
    status = labels_.Flush(*connection_);
  }
  if (status.ok()) {
    status = WriteCheckpoint(checkpoint);
  }
  if (status.ok()) {
    status = connection_->Execute("COMMIT");
  }
  if (!status.ok()) {
    return AbortEpoch(status.error())
        .WithContext(fmt::format("committing epoch {}", checkpoint.epoch.value()));
  }
  in_epoch_ = false;
  stored_.Commit();
  labels_.Commit();
  for (const auto& progress : checkpoint.progress) {
    progress_in_db_[progress.source] = {progress.partition.value(), progress.next_offset.value()};
  }
  if (removed > 0) {
    // The blocks of the deleted rows are free for new ones once checkpointed: without it
    // the file would grow by what retention just removed until the next checkpoint.
    if (const auto reclaimed = connection_->Execute("CHECKPOINT"); !reclaimed.ok()) {
      spdlog::warn("duckdb checkpoint after retention failed: {}", reclaimed.error().message());
    }
  }
  if (checkpoint.watermark == engine::kWatermarkMax) {
    // The input ended with this epoch: no epoch follows that needs the memory, and what a
    // checkpoint would move into the file now, the end of the run moves (a replay with
    // every core, CheckpointWithAllCores; else closing the database).
    return base::Status::Ok();
  }
  return BetweenEpochs(checkpoint.epoch.value());
}

base::Result<std::int64_t> DuckDbSink::RemoveBefore(const engine::Retention& retention) {
  std::int64_t total = 0;
  const auto remove = [&](std::string_view table, const std::string& condition,
                          const engine::RetentionCut& cut, std::string_view why) -> base::Status {
    FROTA_ASSIGN_OR_RETURN(
        auto deleted, connection_->Query(fmt::format("DELETE FROM {} WHERE {}", table, condition)));
    const std::int64_t rows = deleted.rows() > 0 ? deleted.Int64(0, 0) : 0;
    if (rows > 0) {
      spdlog::info("retention removed table={} rows={} before={} reason={}", table, rows,
                   base::FormatDate(cut.before), why);
    }
    total += rows;
    return base::Status::Ok();
  };
  const auto before = [](std::string_view column, model::ColumnType type,
                         const engine::RetentionCut& cut) {
    return type == model::ColumnType::kDate
               ? fmt::format("{} < DATE '{}'", column, base::FormatDate(cut.before))
               : fmt::format("{} < make_timestamp({})", column,
                             base::ToUnixMicros(cut.before_instant));
  };
  if (retention.raw) {
    const auto& cut = *retention.raw;
    const auto instant = before("event_time", model::ColumnType::kTimestamp, cut);
    FROTA_RETURN_IF_ERROR(remove("positions_data", instant, cut, "retain-days"));
    FROTA_RETURN_IF_ERROR(remove("duplicates_data", instant, cut, "retain-days"));
    // A refusal without an event time is placed by its ingest time.
    FROTA_RETURN_IF_ERROR(
        remove("rejected_data",
               before("coalesce(event_time, ingest_time)", model::ColumnType::kTimestamp, cut), cut,
               "retain-days"));
  }
  for (const model::TableSpec* table : model::CatalogTables()) {
    const auto& cut = table->layer == model::Layer::kSilver ? retention.raw : retention.results;
    if (!cut) {
      continue;
    }
    for (const model::Column& column : table->columns) {
      if (column.name == table->date_column) {
        FROTA_RETURN_IF_ERROR(
            remove(table->name, before(column.name, column.type, *cut), *cut,
                   table->layer == model::Layer::kSilver ? "retain-days" : "retain-results-days"));
      }
    }
  }
  return total;
}

base::Status DuckDbSink::BetweenEpochs(std::int64_t epoch) {
  // The epoch is durable whatever the checkpoint does; a failed one is retried after the
  // next commit. It runs under the whole limit: a checkpoint that runs out of memory
  // invalidates the database (DuckDB 1.4: "FATAL Error: Failed to create checkpoint").
  if (const auto checkpointed = CheckpointIfHeld(epoch); !checkpointed.ok()) {
    spdlog::warn("duckdb checkpoint after epoch {} failed: {}", epoch,
                 checkpointed.error().message());
  }
  // Lowering the limit makes DuckDB evict its cache down to it, or refuse, keeping the
  // old limit, when it cannot; either way the epoch's limit comes back.
  const auto limit = MemorySizeBytes(options_.memory_limit);
  const auto idle = MemorySizeBytes(options_.idle_memory_limit);
  if (!limit || !idle || *idle <= 0 || *idle >= *limit) {
    return base::Status::Ok();
  }
  if (const auto lowered =
          connection_->Execute(fmt::format("SET memory_limit = '{}'", options_.idle_memory_limit));
      !lowered.ok()) {
    spdlog::debug("duckdb cache not brought down to {}: {}", options_.idle_memory_limit,
                  lowered.error().message());
  }
  return connection_->Execute(fmt::format("SET memory_limit = '{}'", options_.memory_limit));
}

base::Status DuckDbSink::CheckpointIfHeld(std::int64_t epoch) {
  if (options_.checkpoint_held_bytes <= 0) {
    return base::Status::Ok();
  }
  FROTA_ASSIGN_OR_RETURN(
      auto held, connection_->Query("SELECT coalesce(sum(memory_usage_bytes) FILTER (WHERE tag "
                                    "<> 'BASE_TABLE'), 0)::BIGINT FROM duckdb_memory()"));
  const std::int64_t bytes = held.Int64(0, 0);
  if (bytes <= options_.checkpoint_held_bytes) {
    return base::Status::Ok();
  }
  spdlog::debug("duckdb checkpoint after epoch={} held_mb={}", epoch, bytes >> 20);
  return connection_->Execute("CHECKPOINT");
}

void DuckDbSink::ForgetLookups() {
  by_dictionary_id_.clear();
  recent_labels_.clear();
}

std::int32_t DuckDbSink::StringId(const model::StringDictionary& strings, std::uint32_t id) {
  if (&strings != dictionary_) {
    dictionary_ = &strings;
    ForgetLookups();
  }
  if (id == model::StringDictionary::kEmpty) {
    return 0;  // '' is id 0 in every database (schema_v2.sql)
  }
  if (id >= by_dictionary_id_.size()) {
    by_dictionary_id_.resize(std::max<std::size_t>(id + 1, by_dictionary_id_.size() * 2), 0);
  }
  std::int32_t& slot = by_dictionary_id_[id];
  if (slot == 0) {
    slot = stored_.IdOf(strings.View(id)) + 1;
  }
  return slot - 1;
}

std::int32_t DuckDbSink::SourceStringId(model::SourceId id) {
  if (catalog_ == nullptr) {
    return 0;
  }
  if (id >= by_source_id_.size()) {
    by_source_id_.resize(std::max<std::size_t>(id + 1, by_source_id_.size() * 2), 0);
  }
  std::int32_t& slot = by_source_id_[id];
  if (slot == 0) {
    slot = stored_.IdOf(catalog_->Name(id)) + 1;
  }
  return slot - 1;
}

std::int32_t DuckDbSink::LabelId(const model::StringDictionary& strings,
                                 const model::PositionRecord& p) {
  const auto lookup = [&] {
    StoredLabels::Label label;
    label.feed_id = StringId(strings, p.feed_id);
    label.vehicle_id = StringId(strings, p.vehicle_id);
    label.route_id = StringId(strings, p.route_id);
    label.trip_id = StringId(strings, p.trip_id);
    label.trip_start_date = StringId(strings, p.trip_start_date);
    label.trip_start_time = StringId(strings, p.trip_start_time);
    label.mode = static_cast<std::uint8_t>(p.mode);
    label.direction_id = p.direction_id >= 0 ? p.direction_id : std::int8_t{-1};
    return labels_.IdOf(label);
  };
  StringId(strings, p.vehicle_id);  // forgets every lookup if `strings` is another dictionary
  const std::uint32_t ordinal = strings.KeyOrdinal(p.vehicle_id);
  if (ordinal == model::StringDictionary::kNoOrdinal) {
    return lookup();
  }
  if (ordinal >= recent_labels_.size()) {
    recent_labels_.resize(std::max<std::size_t>(ordinal + 1, recent_labels_.size() * 2));
  }
  RecentLabel& recent = recent_labels_[ordinal];
  const std::int8_t direction = p.direction_id >= 0 ? p.direction_id : std::int8_t{-1};
  if (recent.label == 0 || recent.feed_id != p.feed_id || recent.route_id != p.route_id ||
      recent.trip_id != p.trip_id || recent.trip_start_date != p.trip_start_date ||
      recent.trip_start_time != p.trip_start_time || recent.mode != p.mode ||
      recent.direction_id != direction) {
    recent = {p.feed_id,         p.route_id, p.trip_id, p.trip_start_date,
              p.trip_start_time, p.mode,     direction, lookup() + 1};
  }
  return recent.label - 1;
}

base::Status DuckDbSink::WriteSilver(const model::EpochRows& rows) {
  using CT = ColumnType;
  if ((!rows.positions.empty() || !rows.rejected.empty()) && !rows.strings) {
    return base::Internal("epoch rows carry records without their string dictionary");
  }
  if (!rows.positions.empty()) {
    FROTA_ASSIGN_OR_RETURN(
        ChunkAppender * a,
        EpochAppender("positions_data", {CT::kInteger, CT::kDouble, CT::kDouble, CT::kFloat,
                                         CT::kFloat, CT::kFloat, CT::kBoolean, CT::kTimestamp,
                                         CT::kTimestamp, CT::kBoolean, CT::kInteger, CT::kBigint}));
    const model::StringDictionary& strings = *rows.strings;
    for (const auto& p : rows.positions) {
      a->SetInt32(0, LabelId(strings, p));
      a->SetDouble(1, p.lat);
      a->SetDouble(2, p.lon);
      std::isnan(p.reported_speed_kmh) ? a->SetNull(3) : a->SetFloat(3, p.reported_speed_kmh);
      std::isnan(p.bearing_deg) ? a->SetNull(4) : a->SetFloat(4, p.bearing_deg);
      std::isnan(p.altitude_m) ? a->SetNull(5) : a->SetFloat(5, p.altitude_m);
      p.on_ground >= 0 ? a->SetBool(6, p.on_ground == 1) : a->SetNull(6);
      a->SetTimestampMicros(7, base::ToUnixMicros(p.event_time));
      a->SetTimestampMicros(8, base::ToUnixMicros(p.ingest_time));
      a->SetBool(9, p.event_time_from_header);
      a->SetInt32(10, SourceStringId(p.source.source));
      a->SetInt64(11, p.source.offset);
      FROTA_RETURN_IF_ERROR(a->EndRow());
    }
  }
  if (rows.rejected.empty()) {
    return base::Status::Ok();
  }
  const model::StringDictionary& strings = *rows.strings;
  // A duplicate's detail is derived from its event time: it goes to duplicates_data,
  // which has neither detail nor reason (schema_v3.sql); every other refusal to
  // rejected_data. Appenders are made for the tables an epoch writes, when it first does.
  ChunkAppender* duplicates = nullptr;
  ChunkAppender* rejected = nullptr;
  for (const auto& r : rows.rejected) {
    if (model::HasDerivedDetail(r)) {
      if (duplicates == nullptr) {
        FROTA_ASSIGN_OR_RETURN(
            duplicates,
            EpochAppender("duplicates_data", {CT::kInteger, CT::kInteger, CT::kTimestamp,
                                              CT::kTimestamp, CT::kInteger, CT::kBigint}));
      }
      ChunkAppender* a = duplicates;
      a->SetInt32(0, StringId(strings, r.feed_id));
      a->SetInt32(1, StringId(strings, r.vehicle_id));
      a->SetTimestampMicros(2, base::ToUnixMicros(*r.event_time));
      r.ingest_time ? a->SetTimestampMicros(3, base::ToUnixMicros(*r.ingest_time)) : a->SetNull(3);
      a->SetInt32(4, SourceStringId(r.source.source));
      a->SetInt64(5, r.source.offset);
      FROTA_RETURN_IF_ERROR(a->EndRow());
      continue;
    }
    if (rejected == nullptr) {
      FROTA_ASSIGN_OR_RETURN(
          rejected, EpochAppender("rejected_data",
                                  {CT::kInteger, CT::kInteger, CT::kUtinyint, CT::kTimestamp,
                                   CT::kTimestamp, CT::kInteger, CT::kBigint, CT::kVarchar}));
    }
    ChunkAppender* a = rejected;
    a->SetInt32(0, StringId(strings, r.feed_id));
    a->SetInt32(1, StringId(strings, r.vehicle_id));
    a->SetUInt8(2, static_cast<std::uint8_t>(r.reason));
    r.event_time ? a->SetTimestampMicros(3, base::ToUnixMicros(*r.event_time)) : a->SetNull(3);
    r.ingest_time ? a->SetTimestampMicros(4, base::ToUnixMicros(*r.ingest_time)) : a->SetNull(4);
    a->SetInt32(5, SourceStringId(r.source.source));
    a->SetInt64(6, r.source.offset);
    a->SetString(7, r.detail);
    FROTA_RETURN_IF_ERROR(a->EndRow());
  }
  return base::Status::Ok();
}

base::Status DuckDbSink::WriteRows(const model::EpochRows& rows) {
  FROTA_RETURN_IF_ERROR(WriteSilver(rows));
  return model::ForEachTableRows(
      rows, [&]<typename Row>(const std::vector<Row>& table_rows) -> base::Status {
        return WriteTableRows(table_rows);
      });
}

template <typename Row>
base::Status DuckDbSink::WriteTableRows(const std::vector<Row>& rows) {
  if constexpr (model::UpsertedTable<Row>) {
    // A later row of a key replaces the earlier (a closing alert repeats it whole): the
    // epoch's last row of each, written at commit (WriteUpserts).
    auto& last = std::get<LastRowByKey<Row>>(epoch_upserts_);
    for (const Row& row : rows) {
      last.insert_or_assign(std::string(model::Table<Row>::UpsertKey(row)), row);
    }
    return base::Status::Ok();
  } else {
    return AppendCatalogRows(rows);
  }
}

base::Status DuckDbSink::WriteUpserts() {
  base::Status status = base::Status::Ok();
  const auto write = [&]<typename Row>(LastRowByKey<Row>& last) -> base::Status {
    if (last.empty()) {
      return base::Status::Ok();
    }
    // One statement removes the rows these replace, one appender adds them: per-row
    // upserts inside an epoch's large transaction cost DuckDB a block each.
    const auto& spec = model::Table<Row>::kSpec;
    std::string keys;
    for (const auto& [key, row] : last) {
      keys += (keys.empty() ? "" : ", ") + SqlQuoted(key);
    }
    FROTA_RETURN_IF_ERROR(connection_->Execute(
        fmt::format("DELETE FROM {} WHERE {} IN ({})", spec.name, UpsertKeyColumn(spec), keys)));
    FROTA_ASSIGN_OR_RETURN(auto a,
                           ChunkAppender::Create(*connection_, spec.name, AppenderTypes(spec)));
    for (const auto& [key, row] : last) {
      FROTA_RETURN_IF_ERROR(AppendRow(*a, row));
    }
    last.clear();
    return a->Close();
  };
  std::apply([&](auto&... upserts) { ((status = status.ok() ? write(upserts) : status), ...); },
             epoch_upserts_);
  return status;
}

base::Status DuckDbSink::WriteCheckpoint(const engine::EpochCheckpoint& checkpoint) {
  const std::int64_t epoch = checkpoint.epoch.value();
  using P = SqlParam;
  std::vector<const engine::SourceProgress*> moved;
  for (const auto& progress : checkpoint.progress) {
    const auto held = progress_in_db_.find(progress.source);
    if (held == progress_in_db_.end() ||
        held->second != std::pair{progress.partition.value(), progress.next_offset.value()}) {
      moved.push_back(&progress);
    }
  }
  // At most kRowsPerStatement sources per statement (4 parameters each).
  constexpr std::size_t kRowsPerStatement = 512;
  for (std::size_t first = 0; first < moved.size(); first += kRowsPerStatement) {
    const std::size_t last = std::min(moved.size(), first + kRowsPerStatement);
    std::string sql = "INSERT OR REPLACE INTO source_progress VALUES ";
    std::vector<SqlParam> params;
    params.reserve((last - first) * 4);
    for (std::size_t i = first; i < last; ++i) {
      const std::size_t n = params.size();
      fmt::format_to(std::back_inserter(sql), "{}(${}, ${}, ${}, ${})", i == first ? "" : ", ",
                     n + 1, n + 2, n + 3, n + 4);
      params.push_back(P::Text(moved[i]->source));
      params.push_back(P::Int64(moved[i]->partition.value()));
      params.push_back(P::Int64(moved[i]->next_offset.value()));
      params.push_back(P::Int64(epoch));
    }
    FROTA_RETURN_IF_ERROR(connection_->ExecuteWith(sql, params));
  }
  for (const auto& state : checkpoint.states) {
    FROTA_RETURN_IF_ERROR(connection_->ExecuteWith(
        "INSERT OR REPLACE INTO engine_state VALUES ($1, $2, $3)",
        {P::Int64(state.partition.value()), P::Int64(epoch), P::Blob(state.bytes)}));
  }
  FROTA_RETURN_IF_ERROR(
      connection_->ExecuteWith("INSERT OR REPLACE INTO runner_state VALUES (0, $1, $2)",
                               {P::Int64(epoch), P::Blob(checkpoint.runner_state)}));
  return connection_->ExecuteWith(
      "INSERT INTO batches VALUES ($1, $2, now()::TIMESTAMP, make_timestamp($3), $4, $5, $6)",
      {P::Int64(epoch), P::Text(run_id_), WatermarkParam(checkpoint.watermark),
       P::Int64(epoch_counts_.positions), P::Int64(epoch_counts_.rejected),
       P::Int64(epoch_counts_.rows)});
}

}  // namespace frota::sink
