// What `frota serve` reads from a frota database (DuckDB or PostgreSQL): latest positions,
// the lines' current regularity, alerts. One set of queries; each backend supplies its
// connection and the few expressions the two dialects spell differently.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "frota/base/status.h"
#include "frota/base/time.h"
#include "frota/model/position.h"
#include "frota/model/tables.h"

namespace frota::sink {
class DuckDbConnection;
}

namespace frota::serve {

/// A vehicle's latest accepted position (model::Position with its mode's name).
struct Vehicle {
  model::Position position;
  std::string mode;
};

/// A departure of the `departures` table (regularity::DepartureDetector's, written by the
/// streaming jobs or `frota headways`): a vehicle leaving its route's origin terminal.
struct Departure {
  std::string feed_id;
  std::string vehicle_id;
  std::string feed_route_id;  // the route as the position feed names it
  std::string route_id;       // the GTFS route it resolved to
  int direction_id = -1;      // -1: unknown
  std::string trip_id;        // the trip tag that chose the pattern ('' when none)
  std::string shape_id;       // the pattern
  base::LocalDate service_date;
  base::Timestamp departure_time;
};

/// One route and direction of the `headways` table (`frota headways`, or the streaming
/// jobs) as of a moment.
struct LineStatus {
  std::string route_id;
  std::optional<std::string> route_short_name;  // from headway_routes; nullopt when absent
  int direction_id = -1;                        // -1: unknown
  base::Timestamp last_departure;
  std::optional<double> last_headway_s;     // the last departure's headway, when measured
  std::optional<double> planned_headway_s;  // planned at the last departure
  std::int64_t departures_last_hour = 0;
  std::int64_t headways_last_hour = 0;  // measured (no exclusion)
  std::optional<double> median_headway_last_hour_s;
  std::int64_t bunching_last_hour = 0;  // measured headways under 0.25 x planned
  std::int64_t gaps_last_hour = 0;      // measured headways over 2 x planned
  /// "gap_in_progress" (no departure for more than 2 x planned), else by the last
  /// measured headway: "bunching", "gap" or "regular"; "unplanned" without a planned
  /// headway; "unknown" when the last headway was not measured.
  std::string status;
};

/// Reads a frota database. Thread-safe: queries take turns on one connection.
class Store {
 public:
  virtual ~Store() = default;

  /// The as-of time of every answer: the last event time of an accepted position
  /// (nullopt when the database holds none). Computed again only when the epoch ledger
  /// (`batches`) changed: every commit of the engine adds a row to it.
  base::Result<std::optional<base::Timestamp>> AsOf();
  /// Per vehicle (feed and vehicle id) its latest accepted position with an event time
  /// in (as_of - window, as_of], sorted by feed and vehicle id.
  base::Result<std::vector<Vehicle>> LatestPositions(base::Timestamp as_of,
                                                     std::chrono::seconds window);
  /// Every accepted position with an event time in (from, to], sorted by event time, feed
  /// and vehicle id (`frota export --gtfs-rt` replays a day through it).
  base::Result<std::vector<Vehicle>> Positions(base::Timestamp from, base::Timestamp to);
  /// The first event time of an accepted position; nullopt when there is none.
  base::Result<std::optional<base::Timestamp>> FirstEventTime();
  /// Per vehicle its last departure in (as_of - lookback, as_of], sorted by feed and
  /// vehicle; empty when the database has no `departures` table.
  base::Result<std::vector<Departure>> LastDepartures(base::Timestamp as_of,
                                                      std::chrono::seconds lookback);
  /// Every departure in (from, to], sorted by feed, vehicle and departure time; empty
  /// when the database has no `departures` table.
  base::Result<std::vector<Departure>> Departures(base::Timestamp from, base::Timestamp to);
  /// The lines with a departure in the 24 hours up to as_of, sorted by route and
  /// direction; nullopt when the database has no `headways` table.
  base::Result<std::optional<std::vector<LineStatus>>> Lines(base::Timestamp as_of);
  /// The `alerts` rows (the contract of the streaming jobs) raised or closed at or after
  /// `since` (all without it), by raise time and id; nullopt when the database has no
  /// `alerts` table.
  base::Result<std::optional<std::vector<model::AlertRow>>> Alerts(
      std::optional<base::Timestamp> since);
  /// "DuckDB PATH" or "PostgreSQL host=... dbname=..." (no password).
  [[nodiscard]] virtual std::string Describe() const = 0;

 protected:
  using Row = std::vector<std::optional<std::string>>;
  /// Runs a query; every value as text (NULL as nullopt).
  virtual base::Result<std::vector<Row>> Rows(const std::string& sql) = 0;
  /// SQL for a TIMESTAMP expression as microseconds since the epoch (BIGINT).
  [[nodiscard]] virtual std::string EpochMicros(const std::string& expr) const = 0;
  /// SQL for the TIMESTAMP of microseconds since the epoch.
  [[nodiscard]] virtual std::string Instant(std::int64_t micros) const = 0;
  /// A query of one value: the last event time of an accepted position, as
  /// EpochMicros, NULL when there is none.
  [[nodiscard]] virtual std::string LastEventTimeSql() const = 0;

 private:
  base::Result<bool> HasTable(const std::string& table);
  base::Result<std::vector<Vehicle>> ReadVehicles(const std::string& select,
                                                  const std::string& from_where);
  base::Result<std::vector<Departure>> ReadDepartures(const std::string& select,
                                                      const std::string& from_where);
  std::mutex mutex_;
  std::string as_of_ledger_;  // the ledger's state when as_of_ was computed
  std::optional<base::Timestamp> as_of_;
};

/// A store over a DuckDB connection (its own, or another connection to the database a
/// sink writes in this process: sink::DuckDbConnection::Connect).
std::unique_ptr<Store> DuckDbStore(std::unique_ptr<sink::DuckDbConnection> connection);

/// A store over a PostgreSQL database; reconnects when the server went away.
base::Result<std::unique_ptr<Store>> OpenPostgresStore(const std::string& dsn);

/// What `--postgres DSN` or a DuckDB database gives: the PostgreSQL store when `postgres`
/// is not empty, else a DuckDbStore over the connection `duckdb` opens.
base::Result<std::unique_ptr<Store>> OpenStore(
    const std::string& postgres,
    const std::function<base::Result<std::unique_ptr<sink::DuckDbConnection>>()>& duckdb);

}  // namespace frota::serve
