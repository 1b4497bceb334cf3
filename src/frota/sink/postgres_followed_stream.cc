#include "frota/sink/postgres_followed_stream.h"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <bit>
#include <vector>

#include "frota/sink/pg_copy.h"
#include "frota/sink/postgres_sink.h"

namespace frota::sink {

namespace {

// The advisory lock's class (the two-key form): "fol" + 'w'; its key is hashtext(name).
constexpr int kFollowerLockClass = 0x666f6c77;

// Event times cross as microseconds since the epoch, both ways exact.
constexpr std::string_view kMicros = "(extract(epoch FROM {}) * 1000000)::bigint";

std::string Micros(std::string_view column) { return fmt::format(fmt::runtime(kMicros), column); }

// `event_time > after AND event_time <= through`, a bound at the watermark's extremes left
// out; its parameters appended to `params`.
std::string TimeRange(base::Timestamp after, base::Timestamp through,
                      std::vector<PgParam>& params) {
  std::string where = "TRUE";
  if (after != base::Timestamp::min()) {
    params.push_back(PgParam::Text(base::FormatIso8601(after)));
    where += fmt::format(" AND event_time > ${}::timestamp", params.size());
  }
  if (through != base::Timestamp::max()) {
    params.push_back(PgParam::Text(base::FormatIso8601(through)));
    where += fmt::format(" AND event_time <= ${}::timestamp", params.size());
  }
  return where;
}

base::Timestamp FromMicros(std::int64_t us) {
  return base::Timestamp(std::chrono::microseconds(us));
}

// Binary COPY fields of the follower's columns.
base::Result<std::string_view> TextField(PgCopyReader& row, std::string_view column) {
  FROTA_ASSIGN_OR_RETURN(const auto field, row.Field());
  if (!field) {
    return base::Internal("positions: {} is NULL", column);
  }
  return *field;
}

base::Result<std::uint64_t> EightBytes(PgCopyReader& row, std::string_view column) {
  FROTA_ASSIGN_OR_RETURN(const auto field, row.Field());
  if (!field || field->size() != 8) {
    return base::Internal("positions: {} is not 8 bytes", column);
  }
  return PgCopyReader::BigEndian(*field);
}

}  // namespace

PostgresFollowedStream::PostgresFollowedStream(std::string dsn) : dsn_(std::move(dsn)) {}

PostgresFollowedStream::~PostgresFollowedStream() = default;

base::Status PostgresFollowedStream::Connect() {
  if (db_ && !db_->broken()) {
    return base::Status::Ok();
  }
  held_.clear();  // a new session holds no lock
  db_.reset();
  FROTA_ASSIGN_OR_RETURN(db_, PgConnection::Open(dsn_));
  const auto schema = CheckPostgresSchema(*db_);
  if (!schema.ok()) {
    db_.reset();
    return schema;
  }
  // Read() sorts an epoch's positions (some 10 MB): in memory, not in temporary files
  // (the default work_mem is 4 MB); and its queries are too short to gain from JIT
  // compilation, which cost a fifth of the server's time for them. Nor from parallel
  // workers: the members' COPYs keep the server's cores busy, and the workers a read
  // started cost 11.7 of the server's 53 CPU seconds in the Kafka -> PostgreSQL day, the
  // one backend that reads alone 12 s against 7.7 s plus theirs (docs/performance.md).
  // Nor from a sequential scan: a read is a stretch of event time, which the BRIN index
  // finds (SummarizeNew), but a table the members fill faster than autovacuum analyses
  // it has no statistics, and without them the planner prices the index as useless and
  // scans the whole table for every read.
  const auto session = db_->Execute(
      "SET work_mem = '64MB'; SET jit = off; SET max_parallel_workers_per_gather = 0; "
      "SET enable_seqscan = off");
  if (!session.ok()) {
    db_.reset();
    return session;
  }
  return base::Status::Ok();
}

base::Result<bool> PostgresFollowedStream::Lead(std::string_view name) {
  FROTA_RETURN_IF_ERROR(Connect());
  if (held_.contains(name)) {
    // Still the same session, so still the holder; a broken one was replaced above.
    FROTA_ASSIGN_OR_RETURN(const auto alive, db_->Query("SELECT 1"));
    (void)alive;
    return true;
  }
  FROTA_ASSIGN_OR_RETURN(
      const auto got,
      db_->Query(fmt::format("SELECT pg_try_advisory_lock({}, hashtext($1))", kFollowerLockClass),
                 {PgParam::Text(std::string(name))}));
  if (got.Value(0, 0) != "t") {
    return false;
  }
  held_.emplace(name);
  return true;
}

void PostgresFollowedStream::Release() {
  held_.clear();
  db_.reset();  // the session's locks go with it
}

base::Result<base::Timestamp> PostgresFollowedStream::Frontier(std::string_view stream,
                                                               std::int32_t partitions) {
  FROTA_RETURN_IF_ERROR(Connect());
  // One statement, one snapshot: progress, end markers and watermarks together.
  FROTA_ASSIGN_OR_RETURN(
      const auto found,
      db_->Query(fmt::format("SELECT count(*), count(*) FILTER (WHERE p.finished), "
                             "count(s.watermark) FILTER (WHERE NOT p.finished), "
                             "{} FROM source_progress p LEFT JOIN engine_state s "
                             "ON s.stream = p.stream AND s.partition_id = p.partition_id "
                             "WHERE p.stream = $1 AND p.partition_id >= 0 AND p.partition_id < $2",
                             Micros("min(s.watermark) FILTER (WHERE NOT p.finished)")),
                 {PgParam::Text(std::string(stream)), PgParam::Int(partitions)}));
  const std::int64_t committed = found.Int(0, 0);
  const std::int64_t finished = found.Int(0, 1);
  const std::int64_t with_watermark = found.Int(0, 2);
  if (partitions <= 0 || committed < partitions) {
    return base::Timestamp::min();  // a partition has committed nothing yet
  }
  if (finished == partitions) {
    return base::Timestamp::max();
  }
  if (with_watermark < committed - finished || found.IsNull(0, 3)) {
    return base::Timestamp::min();  // one without a watermark (no record yet, or older frota)
  }
  return FromMicros(found.Int(0, 3));
}

base::Status PostgresFollowedStream::SummarizeNew() {
  FROTA_RETURN_IF_ERROR(Connect());
  // A BRIN index summarizes a range of pages only when VACUUM (or this) does, and an
  // unsummarized range matches every query: the members fill pages far faster than
  // autovacuum comes by, so without this every read scans the whole table. Summarizing
  // reads just the pages added since the last time. It waits for no one: should VACUUM
  // hold the table (it summarizes too), the read goes on with what is summarized.
  // positions is partitioned by day (postgres_schema_v9.sql): each day's partition has its
  // own BRIN index, attached to the parent's; retention keeps them few.
  const auto summarized = db_->Execute(
      "BEGIN; SET LOCAL lock_timeout = '200ms'; "
      "SELECT brin_summarize_new_values(i.inhrelid::regclass) FROM pg_inherits i "
      "WHERE i.inhparent = 'positions_event_time_brin'::regclass; COMMIT");
  if (summarized.ok()) {
    return base::Status::Ok();
  }
  if (db_->broken()) {
    return summarized;
  }
  spdlog::debug("positions' BRIN index not summarized: {}", summarized.error().message());
  return db_->Execute("ROLLBACK");
}

base::Result<std::optional<base::Timestamp>> PostgresFollowedStream::NextEventTime(
    base::Timestamp after) {
  FROTA_RETURN_IF_ERROR(SummarizeNew());
  std::vector<PgParam> params;
  const std::string where = TimeRange(after, base::Timestamp::max(), params);
  FROTA_ASSIGN_OR_RETURN(
      const auto found,
      db_->Query(fmt::format("SELECT {} FROM positions WHERE {}", Micros("min(event_time)"), where),
                 params));
  if (found.IsNull(0, 0)) {
    return std::optional<base::Timestamp>();
  }
  return std::optional<base::Timestamp>(FromMicros(found.Int(0, 0)));
}

base::Status PostgresFollowedStream::Read(base::Timestamp after, base::Timestamp through,
                                          const std::function<void(const model::Position&)>& each) {
  FROTA_RETURN_IF_ERROR(SummarizeNew());
  // Binary COPY, streamed: no text to format on the server nor to parse here, and no
  // result set held whole (an epoch reads about 100,000 rows). COPY takes no parameters,
  // so the bounds are literals (ISO 8601 texts: digits, '-', ':', '.', 'T' and 'Z').
  std::string where = "TRUE";
  if (after != base::Timestamp::min()) {
    where += fmt::format(" AND event_time > '{}'::timestamp", base::FormatIso8601(after));
  }
  if (through != base::Timestamp::max()) {
    where += fmt::format(" AND event_time <= '{}'::timestamp", base::FormatIso8601(through));
  }
  const std::string copy = fmt::format(
      "COPY (SELECT feed_id, vehicle_id, route_id, trip_id, trip_start_date, event_time, lat, lon "
      "FROM positions WHERE {} ORDER BY event_time, feed_id, vehicle_id) TO STDOUT (FORMAT binary)",
      where);
  model::Position p;
  const auto on_row = [&](PgCopyReader& row) -> base::Status {
    FROTA_ASSIGN_OR_RETURN(const auto fields, row.NextRow());
    if (!fields || *fields != 8) {
      return base::Internal("positions: a row of {} columns, 8 expected", fields ? *fields : -1);
    }
    FROTA_ASSIGN_OR_RETURN(const auto feed, TextField(row, "feed_id"));
    FROTA_ASSIGN_OR_RETURN(const auto vehicle, TextField(row, "vehicle_id"));
    FROTA_ASSIGN_OR_RETURN(const auto route, TextField(row, "route_id"));
    FROTA_ASSIGN_OR_RETURN(const auto trip, TextField(row, "trip_id"));
    FROTA_ASSIGN_OR_RETURN(const auto start_date, TextField(row, "trip_start_date"));
    FROTA_ASSIGN_OR_RETURN(const auto time, EightBytes(row, "event_time"));
    FROTA_ASSIGN_OR_RETURN(const auto lat, EightBytes(row, "lat"));
    FROTA_ASSIGN_OR_RETURN(const auto lon, EightBytes(row, "lon"));
    p.feed_id.assign(feed);
    p.vehicle_id.assign(vehicle);
    p.route_id.assign(route);
    p.trip_id.assign(trip);
    p.trip_start_date.assign(start_date);
    p.event_time = FromMicros(static_cast<std::int64_t>(time) + kPgEpochMicros);
    p.lat = std::bit_cast<double>(lat);
    p.lon = std::bit_cast<double>(lon);
    each(p);
    return base::Status::Ok();
  };
  PgCopyRows rows;
  FROTA_RETURN_IF_ERROR(
      db_->CopyOut(copy, [&](std::string_view piece) { return rows.Feed(piece, on_row); }));
  if (!rows.ended()) {
    return base::Internal("positions: the COPY stream ended without its trailer");
  }
  return base::Status::Ok();
}

}  // namespace frota::sink
