#include "frota/serve/store.h"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <cstdlib>
#include <tuple>

#include "frota/sink/duckdb_connection.h"
#include "frota/sink/pg_connection.h"

namespace frota::serve {

namespace {

constexpr std::int64_t kMicrosPerSecond = 1'000'000;

std::string Text(const std::optional<std::string>& value) { return value.value_or(""); }

base::Result<std::int64_t> Integer(const std::optional<std::string>& value, const char* what) {
  std::int64_t out = 0;
  if (!value) {
    return base::Internal("serve: {} is NULL", what);
  }
  const auto [end, ec] = std::from_chars(value->data(), value->data() + value->size(), out);
  if (ec != std::errc() || end != value->data() + value->size()) {
    return base::Internal("serve: {} '{}' is not an integer", what, *value);
  }
  return out;
}

std::optional<double> Number(const std::optional<std::string>& value) {
  if (!value || value->empty()) {
    return std::nullopt;
  }
  char* end = nullptr;
  const double out = std::strtod(value->c_str(), &end);
  if (end != value->c_str() + value->size()) {
    return std::nullopt;
  }
  return out;
}

base::Result<base::Timestamp> Time(const std::optional<std::string>& value, const char* what) {
  FROTA_ASSIGN_OR_RETURN(const std::int64_t micros, Integer(value, what));
  return base::FromUnixMicros(micros);
}

base::Result<std::optional<base::Timestamp>> OptionalTime(const std::optional<std::string>& value,
                                                          const char* what) {
  if (!value) {
    return std::optional<base::Timestamp>();
  }
  FROTA_ASSIGN_OR_RETURN(const base::Timestamp t, Time(value, what));
  return std::optional<base::Timestamp>(t);
}

base::Result<std::optional<base::LocalDate>> OptionalDate(const std::optional<std::string>& value,
                                                          const char* what) {
  if (!value) {
    return std::optional<base::LocalDate>();
  }
  auto date = base::ParseDate(*value);
  if (!date) {
    return base::Internal("serve: {} '{}' is not a date", what, *value);
  }
  return date;
}

int Direction(const std::optional<std::string>& value) {
  const auto number = Number(value);
  return number ? static_cast<int>(*number) : -1;
}

std::string StatusOf(const LineStatus& line, base::Timestamp as_of) {
  if (!line.planned_headway_s) {
    return "unplanned";
  }
  const double planned = *line.planned_headway_s;
  const double since_last =
      static_cast<double>(base::ToUnixMicros(as_of) - base::ToUnixMicros(line.last_departure)) /
      kMicrosPerSecond;
  if (since_last > 2 * planned) {
    return "gap_in_progress";
  }
  if (!line.last_headway_s) {
    return "unknown";
  }
  if (*line.last_headway_s < 0.25 * planned) {
    return "bunching";
  }
  if (*line.last_headway_s > 2 * planned) {
    return "gap";
  }
  return "regular";
}

}  // namespace

base::Result<bool> Store::HasTable(const std::string& table) {
  FROTA_ASSIGN_OR_RETURN(
      const auto rows,
      Rows(fmt::format("SELECT count(*) FROM information_schema.tables WHERE table_name = '{}' "
                       "AND table_schema = current_schema()",
                       table)));
  FROTA_ASSIGN_OR_RETURN(const std::int64_t count, Integer(rows.at(0).at(0), "table count"));
  return count > 0;
}

base::Result<std::optional<base::Timestamp>> Store::AsOf() {
  const std::lock_guard lock(mutex_);
  FROTA_ASSIGN_OR_RETURN(const auto ledger,
                         Rows(fmt::format("SELECT count(*), {}, max(epoch) FROM batches",
                                          EpochMicros("max(committed_at)"))));
  const std::string state = fmt::format("{}/{}/{}", Text(ledger.at(0).at(0)),
                                        Text(ledger.at(0).at(1)), Text(ledger.at(0).at(2)));
  if (!as_of_ledger_.empty() && state == as_of_ledger_) {
    return as_of_;
  }
  FROTA_ASSIGN_OR_RETURN(const auto rows, Rows(LastEventTimeSql()));
  FROTA_ASSIGN_OR_RETURN(as_of_, OptionalTime(rows.at(0).at(0), "last event time"));
  as_of_ledger_ = state;
  return as_of_;
}

base::Result<std::vector<Vehicle>> Store::ReadVehicles(const std::string& select,
                                                       const std::string& from_where) {
  FROTA_ASSIGN_OR_RETURN(
      const auto rows,
      Rows(fmt::format("{} feed_id, vehicle_id, mode, route_id, trip_id, trip_start_date, "
                       "trip_start_time, direction_id, lat, lon, reported_speed_kmh, "
                       "bearing_deg, {} {}",
                       select, EpochMicros("event_time"), from_where)));
  std::vector<Vehicle> out;
  out.reserve(rows.size());
  for (const Row& row : rows) {
    Vehicle v;
    model::Position& p = v.position;
    p.feed_id = Text(row[0]);
    p.vehicle_id = Text(row[1]);
    v.mode = Text(row[2]);
    p.route_id = Text(row[3]);
    p.trip_id = Text(row[4]);
    p.trip_start_date = Text(row[5]);
    p.trip_start_time = Text(row[6]);
    p.direction_id = static_cast<std::int8_t>(Direction(row[7]));
    p.lat = Number(row[8]).value_or(0);
    p.lon = Number(row[9]).value_or(0);
    if (const auto speed = Number(row[10])) {
      p.reported_speed_kmh = static_cast<float>(*speed);
    }
    if (const auto bearing = Number(row[11])) {
      p.bearing_deg = static_cast<float>(*bearing);
    }
    FROTA_ASSIGN_OR_RETURN(p.event_time, Time(row[12], "event_time"));
    out.push_back(std::move(v));
  }
  return out;
}

base::Result<std::vector<Vehicle>> Store::LatestPositions(base::Timestamp as_of,
                                                          std::chrono::seconds window) {
  const std::lock_guard lock(mutex_);
  const std::int64_t to = base::ToUnixMicros(as_of);
  const std::int64_t from = to - window.count() * kMicrosPerSecond;
  FROTA_ASSIGN_OR_RETURN(
      auto out,
      ReadVehicles("SELECT DISTINCT ON (feed_id, vehicle_id)",
                   fmt::format("FROM positions WHERE event_time > {} AND event_time <= {} "
                               "ORDER BY feed_id, vehicle_id, event_time DESC",
                               Instant(from), Instant(to))));
  // Sorted here, not in SQL: PostgreSQL's collation may order text differently.
  std::sort(out.begin(), out.end(), [](const Vehicle& a, const Vehicle& b) {
    return std::tie(a.position.feed_id, a.position.vehicle_id) <
           std::tie(b.position.feed_id, b.position.vehicle_id);
  });
  return out;
}

base::Result<std::vector<Vehicle>> Store::Positions(base::Timestamp from, base::Timestamp to) {
  const std::lock_guard lock(mutex_);
  FROTA_ASSIGN_OR_RETURN(
      auto out, ReadVehicles("SELECT", fmt::format("FROM positions WHERE event_time > {} AND "
                                                   "event_time <= {}",
                                                   Instant(base::ToUnixMicros(from)),
                                                   Instant(base::ToUnixMicros(to)))));
  std::sort(out.begin(), out.end(), [](const Vehicle& a, const Vehicle& b) {
    return std::tie(a.position.event_time, a.position.feed_id, a.position.vehicle_id) <
           std::tie(b.position.event_time, b.position.feed_id, b.position.vehicle_id);
  });
  return out;
}

base::Result<std::optional<base::Timestamp>> Store::FirstEventTime() {
  const std::lock_guard lock(mutex_);
  FROTA_ASSIGN_OR_RETURN(const auto rows, Rows(fmt::format("SELECT {} FROM positions",
                                                           EpochMicros("min(event_time)"))));
  return OptionalTime(rows.at(0).at(0), "first event time");
}

base::Result<std::vector<Departure>> Store::ReadDepartures(const std::string& select,
                                                           const std::string& from_where) {
  FROTA_ASSIGN_OR_RETURN(const bool has_departures, HasTable("departures"));
  if (!has_departures) {
    return std::vector<Departure>();
  }
  FROTA_ASSIGN_OR_RETURN(
      const auto rows,
      Rows(fmt::format("{} feed_id, vehicle_id, feed_route_id, route_id, direction_id, trip_id, "
                       "shape_id, CAST(service_date AS VARCHAR), {} {}",
                       select, EpochMicros("departure_time"), from_where)));
  std::vector<Departure> out;
  out.reserve(rows.size());
  for (const Row& row : rows) {
    Departure d;
    d.feed_id = Text(row[0]);
    d.vehicle_id = Text(row[1]);
    d.feed_route_id = Text(row[2]);
    d.route_id = Text(row[3]);
    d.direction_id = Direction(row[4]);
    d.trip_id = Text(row[5]);
    d.shape_id = Text(row[6]);
    FROTA_ASSIGN_OR_RETURN(const auto date, OptionalDate(row[7], "service_date"));
    if (!date) {
      return base::Internal("serve: a departure without a service date");
    }
    d.service_date = *date;
    FROTA_ASSIGN_OR_RETURN(d.departure_time, Time(row[8], "departure_time"));
    out.push_back(std::move(d));
  }
  // Sorted here, not in SQL: PostgreSQL's collation may order text differently.
  std::sort(out.begin(), out.end(), [](const Departure& a, const Departure& b) {
    return std::tie(a.feed_id, a.vehicle_id, a.departure_time) <
           std::tie(b.feed_id, b.vehicle_id, b.departure_time);
  });
  return out;
}

base::Result<std::vector<Departure>> Store::LastDepartures(base::Timestamp as_of,
                                                           std::chrono::seconds lookback) {
  const std::lock_guard lock(mutex_);
  const std::int64_t to = base::ToUnixMicros(as_of);
  return ReadDepartures(
      "SELECT DISTINCT ON (feed_id, vehicle_id)",
      fmt::format("FROM departures WHERE departure_time > {} AND departure_time <= {} "
                  "ORDER BY feed_id, vehicle_id, departure_time DESC",
                  Instant(to - lookback.count() * kMicrosPerSecond), Instant(to)));
}

base::Result<std::vector<Departure>> Store::Departures(base::Timestamp from, base::Timestamp to) {
  const std::lock_guard lock(mutex_);
  return ReadDepartures(
      "SELECT", fmt::format("FROM departures WHERE departure_time > {} AND "
                            "departure_time <= {}",
                            Instant(base::ToUnixMicros(from)), Instant(base::ToUnixMicros(to))));
}

base::Result<std::optional<std::vector<LineStatus>>> Store::Lines(base::Timestamp as_of) {
  const std::lock_guard lock(mutex_);
  FROTA_ASSIGN_OR_RETURN(const bool has_headways, HasTable("headways"));
  if (!has_headways) {
    return std::optional<std::vector<LineStatus>>();
  }
  FROTA_ASSIGN_OR_RETURN(const bool has_names, HasTable("headway_routes"));
  const std::int64_t to = base::ToUnixMicros(as_of);
  const std::string hour = Instant(to - 3600 * kMicrosPerSecond);
  const std::string in_hour = fmt::format("h.departure_time > {} AND h.exclusion IS NULL", hour);
  const std::string names =
      has_names ? "(SELECT route_id, min(route_short_name) AS name FROM headway_routes "
                  "GROUP BY route_id)"
                : "(SELECT NULL AS route_id, NULL AS name WHERE false)";
  FROTA_ASSIGN_OR_RETURN(
      const auto rows,
      Rows(fmt::format(
          "WITH h AS ("
          " SELECT route_id, direction_id, departure_time, headway_s, planned_headway_s, exclusion,"
          "  row_number() OVER (PARTITION BY route_id, direction_id"
          "   ORDER BY departure_time DESC, vehicle_id DESC) AS rn"
          " FROM headways WHERE departure_time > {from} AND departure_time <= {to}) "
          "SELECT h.route_id, max(n.name), h.direction_id, {last},"
          " max(CASE WHEN rn = 1 AND exclusion IS NULL THEN headway_s END),"
          " max(CASE WHEN rn = 1 THEN planned_headway_s END),"
          " count(CASE WHEN h.departure_time > {hour} THEN 1 END),"
          " count(CASE WHEN {in_hour} THEN headway_s END),"
          " percentile_cont(0.5) WITHIN GROUP (ORDER BY CASE WHEN {in_hour} THEN headway_s END),"
          " count(CASE WHEN {in_hour} AND headway_s < 0.25 * planned_headway_s THEN 1 END),"
          " count(CASE WHEN {in_hour} AND headway_s > 2 * planned_headway_s THEN 1 END) "
          "FROM h LEFT JOIN {names} n ON n.route_id = h.route_id "
          "GROUP BY h.route_id, h.direction_id",
          fmt::arg("from", Instant(to - 24 * 3600 * kMicrosPerSecond)), fmt::arg("to", Instant(to)),
          fmt::arg("last", EpochMicros("max(h.departure_time)")), fmt::arg("hour", hour),
          fmt::arg("in_hour", in_hour), fmt::arg("names", names))));
  std::vector<LineStatus> out;
  out.reserve(rows.size());
  for (const Row& row : rows) {
    LineStatus line;
    line.route_id = Text(row[0]);
    line.route_short_name = row[1];
    line.direction_id = Direction(row[2]);
    FROTA_ASSIGN_OR_RETURN(line.last_departure, Time(row[3], "last departure"));
    line.last_headway_s = Number(row[4]);
    line.planned_headway_s = Number(row[5]);
    FROTA_ASSIGN_OR_RETURN(line.departures_last_hour, Integer(row[6], "departures"));
    FROTA_ASSIGN_OR_RETURN(line.headways_last_hour, Integer(row[7], "headways"));
    line.median_headway_last_hour_s = Number(row[8]);
    FROTA_ASSIGN_OR_RETURN(line.bunching_last_hour, Integer(row[9], "bunching"));
    FROTA_ASSIGN_OR_RETURN(line.gaps_last_hour, Integer(row[10], "gaps"));
    line.status = StatusOf(line, as_of);
    out.push_back(std::move(line));
  }
  std::sort(out.begin(), out.end(), [](const LineStatus& a, const LineStatus& b) {
    return std::tie(a.route_id, a.direction_id) < std::tie(b.route_id, b.direction_id);
  });
  return std::optional<std::vector<LineStatus>>(std::move(out));
}

base::Result<std::optional<std::vector<model::AlertRow>>> Store::Alerts(
    std::optional<base::Timestamp> since) {
  const std::lock_guard lock(mutex_);
  FROTA_ASSIGN_OR_RETURN(const bool has_alerts, HasTable("alerts"));
  if (!has_alerts) {
    return std::optional<std::vector<model::AlertRow>>();
  }
  std::string where;
  if (since) {
    const std::string at = Instant(base::ToUnixMicros(*since));
    where = fmt::format(" WHERE raised_at >= {0} OR closed_at >= {0}", at);
  }
  FROTA_ASSIGN_OR_RETURN(
      const auto rows,
      Rows(fmt::format("SELECT alert_id, kind, feed_id, route_id, direction_id, "
                       "CAST(service_date AS VARCHAR), {}, {}, {}, {}, planned_headway_s, "
                       "actual_headway_s, vehicles FROM alerts{}",
                       EpochMicros("start_time"), EpochMicros("end_time"), EpochMicros("raised_at"),
                       EpochMicros("closed_at"), where)));
  std::vector<model::AlertRow> out;
  out.reserve(rows.size());
  for (const Row& row : rows) {
    model::AlertRow a;
    a.alert_id = Text(row[0]);
    a.kind = Text(row[1]);
    a.feed_id = Text(row[2]);
    a.route_id = Text(row[3]);
    a.direction_id = static_cast<std::int8_t>(Direction(row[4]));
    FROTA_ASSIGN_OR_RETURN(a.service_date, OptionalDate(row[5], "service_date"));
    FROTA_ASSIGN_OR_RETURN(a.start_time, Time(row[6], "start_time"));
    FROTA_ASSIGN_OR_RETURN(a.end_time, OptionalTime(row[7], "end_time"));
    FROTA_ASSIGN_OR_RETURN(a.raised_at, Time(row[8], "raised_at"));
    FROTA_ASSIGN_OR_RETURN(a.closed_at, OptionalTime(row[9], "closed_at"));
    a.planned_headway_s = Number(row[10]);
    a.actual_headway_s = Number(row[11]);
    a.vehicles = Text(row[12]);
    out.push_back(std::move(a));
  }
  std::sort(out.begin(), out.end(), [](const model::AlertRow& a, const model::AlertRow& b) {
    return std::tie(a.raised_at, a.alert_id) < std::tie(b.raised_at, b.alert_id);
  });
  return std::optional<std::vector<model::AlertRow>>(std::move(out));
}

namespace {

class DuckDb final : public Store {
 public:
  explicit DuckDb(std::unique_ptr<sink::DuckDbConnection> connection)
      : connection_(std::move(connection)) {}
  [[nodiscard]] std::string Describe() const override { return "DuckDB " + connection_->path(); }

 protected:
  base::Result<std::vector<Row>> Rows(const std::string& sql) override {
    FROTA_ASSIGN_OR_RETURN(auto result, connection_->Query(sql));
    std::vector<Row> rows(result.rows());
    const std::size_t columns = result.columns();
    for (std::size_t r = 0; r < rows.size(); ++r) {
      rows[r].resize(columns);
      for (std::size_t c = 0; c < columns; ++c) {
        if (!result.IsNull(r, c)) {
          rows[r][c] = result.String(r, c);
        }
      }
    }
    return rows;
  }
  [[nodiscard]] std::string EpochMicros(const std::string& expr) const override {
    return "epoch_us(" + expr + ")";
  }
  [[nodiscard]] std::string Instant(std::int64_t micros) const override {
    return fmt::format("make_timestamp({}::BIGINT)", micros);
  }
  // positions_data: the view's joins are not needed for a time.
  [[nodiscard]] std::string LastEventTimeSql() const override {
    return "SELECT epoch_us(max(event_time)) FROM positions_data";
  }

 private:
  std::unique_ptr<sink::DuckDbConnection> connection_;
};

class Postgres final : public Store {
 public:
  Postgres(std::string dsn, std::unique_ptr<sink::PgConnection> connection)
      : dsn_(std::move(dsn)), connection_(std::move(connection)) {}
  [[nodiscard]] std::string Describe() const override {
    return "PostgreSQL " + sink::PgConnection::Describe(dsn_);
  }

 protected:
  base::Result<std::vector<Row>> Rows(const std::string& sql) override {
    if (!connection_) {
      FROTA_ASSIGN_OR_RETURN(connection_, sink::PgConnection::Open(dsn_));
    }
    auto result = connection_->Query(sql);
    if (!result.ok()) {
      if (result.error().kind() == base::Error::Kind::kUnavailable) {
        connection_.reset();  // broken: the next query connects anew
      }
      return result.error();
    }
    std::vector<Row> rows(static_cast<std::size_t>(result->rows()));
    const int columns = result->columns();
    for (int r = 0; r < result->rows(); ++r) {
      auto& row = rows[static_cast<std::size_t>(r)];
      row.resize(static_cast<std::size_t>(columns));
      for (int c = 0; c < columns; ++c) {
        if (!result->IsNull(r, c)) {
          row[static_cast<std::size_t>(c)] = std::string(result->Value(r, c));
        }
      }
    }
    return rows;
  }
  [[nodiscard]] std::string EpochMicros(const std::string& expr) const override {
    return "(extract(epoch FROM " + expr + ") * 1000000)::bigint";
  }
  [[nodiscard]] std::string Instant(std::int64_t micros) const override {
    return fmt::format("(TIMESTAMP 'epoch' + {} * INTERVAL '1 microsecond')", micros);
  }
  // A live table is large: the last hour before the last watermark is read through the
  // event-time BRIN index; the whole table only when that hour holds nothing (the same
  // answer either way: the maximum of a non-empty tail is the maximum).
  [[nodiscard]] std::string LastEventTimeSql() const override {
    return "SELECT (extract(epoch FROM coalesce("
           "(SELECT max(event_time) FROM positions WHERE event_time >= "
           "(SELECT max(watermark) FROM batches WHERE watermark < 'infinity') - INTERVAL '1 "
           "hour'), "
           "(SELECT max(event_time) FROM positions))) * 1000000)::bigint";
  }

 private:
  std::string dsn_;
  std::unique_ptr<sink::PgConnection> connection_;
};

}  // namespace

std::unique_ptr<Store> DuckDbStore(std::unique_ptr<sink::DuckDbConnection> connection) {
  return std::make_unique<DuckDb>(std::move(connection));
}

base::Result<std::unique_ptr<Store>> OpenPostgresStore(const std::string& dsn) {
  FROTA_ASSIGN_OR_RETURN(auto connection, sink::PgConnection::Open(dsn));
  return std::unique_ptr<Store>(std::make_unique<Postgres>(dsn, std::move(connection)));
}

base::Result<std::unique_ptr<Store>> OpenStore(
    const std::string& postgres,
    const std::function<base::Result<std::unique_ptr<sink::DuckDbConnection>>()>& duckdb) {
  if (!postgres.empty()) {
    return OpenPostgresStore(postgres);
  }
  FROTA_ASSIGN_OR_RETURN(auto connection, duckdb());
  return DuckDbStore(std::move(connection));
}

}  // namespace frota::serve
