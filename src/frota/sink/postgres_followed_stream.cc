#include "frota/sink/postgres_followed_stream.h"

#include <fmt/format.h>

#include <charconv>
#include <vector>

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

base::Result<double> Number(std::string_view text) {
  double value = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc() || end != text.data() + text.size()) {
    return base::Internal("positions: unexpected number text \"{}\"", text);
  }
  return value;
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

base::Result<std::optional<base::Timestamp>> PostgresFollowedStream::NextEventTime(
    base::Timestamp after) {
  FROTA_RETURN_IF_ERROR(Connect());
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
  FROTA_RETURN_IF_ERROR(Connect());
  std::vector<PgParam> params;
  const std::string where = TimeRange(after, through, params);
  FROTA_ASSIGN_OR_RETURN(
      const auto found,
      db_->Query(fmt::format("SELECT feed_id, vehicle_id, route_id, trip_id, trip_start_date, "
                             "{}, lat, lon FROM positions WHERE {} "
                             "ORDER BY event_time, feed_id, vehicle_id",
                             Micros("event_time"), where),
                 params));
  model::Position p;
  for (int i = 0; i < found.rows(); ++i) {
    p.feed_id = found.Value(i, 0);
    p.vehicle_id = found.Value(i, 1);
    p.route_id = found.Value(i, 2);
    p.trip_id = found.Value(i, 3);
    p.trip_start_date = found.Value(i, 4);
    p.event_time = FromMicros(found.Int(i, 5));
    FROTA_ASSIGN_OR_RETURN(p.lat, Number(found.Value(i, 6)));
    FROTA_ASSIGN_OR_RETURN(p.lon, Number(found.Value(i, 7)));
    each(p);
  }
  return base::Status::Ok();
}

}  // namespace frota::sink
