// The catalog of output tables: each table's name, read view, columns (name, type,
// nullability, role: key, partition, value, sum or derived), semantics.md section and what
// export, reconcile and PostgreSQL do with it, with its row type and how a row gives its
// values. The sinks, export and reconcile derive their SQL from it (sink/catalog_sql.h).
#pragma once

#include <array>
#include <concepts>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include "frota/base/time.h"
#include "frota/model/mode.h"
#include "frota/model/rejection.h"

namespace frota::model {

/// A column's type, as both databases have it (sink/catalog_sql.h spells it per dialect).
enum class ColumnType : std::uint8_t {
  kText,
  kBigint,
  kInteger,
  kSmallint,
  kTinyint,
  kDouble,
  kBoolean,
  kDate,
  kTimestamp,
};

/// What a column is to the table: how the sinks key and merge it and where readers see it.
enum class Role : std::uint8_t {
  kKey,        // part of the natural key (PostgreSQL's primary key), the order export
               // sorts by, reconcile's key
  kPartition,  // a key of the stored rows only: the partition a per-partition aggregate
               // came from, summed away by the read view
  kValue,      // a fact of the row: an upsert rewrites it
  kSum,        // a per-partition count or sum: an upsert adds it, the read view sums it
  kDerived,    // not stored: the read view computes it from the stored columns
};

/// How reconcile compares a column of the read view with the batch recomputation.
enum class Compare : std::uint8_t {
  kExact,        // must be equal
  kSkip,         // not compared (a function of compared columns)
  kMillimetres,  // a distance in mm, equal within the batch side's `mm_allowance`
  kMetres,       // a distance in m with three decimals, compared as millimetres
};

/// One column. Stored columns are in the table, in order; the read view (`TableSpec::view`)
/// has every column but the partition and the `hidden` ones.
struct Column {
  std::string_view name;
  ColumnType type;
  Role role = Role::kValue;
  bool nullable = false;
  bool exported = true;  // in `frota export`'s file (when in the read view)
  bool hidden = false;   // stored, but not in the read view
  Compare compare = Compare::kExact;

  [[nodiscard]] constexpr Column Nullable() const {
    Column c = *this;
    c.nullable = true;
    return c;
  }
  [[nodiscard]] constexpr Column NotExported() const {
    Column c = *this;
    c.exported = false;
    return c;
  }
  [[nodiscard]] constexpr Column Hidden() const {
    Column c = *this;
    c.hidden = true;
    c.exported = false;
    return c;
  }
  [[nodiscard]] constexpr Column Compared(Compare how) const {
    Column c = *this;
    c.compare = how;
    return c;
  }
  [[nodiscard]] constexpr bool stored() const { return role != Role::kDerived; }
  [[nodiscard]] constexpr bool in_view() const { return role != Role::kPartition && !hidden; }
  /// In the stored table's key (PostgreSQL's PRIMARY KEY): the partition, then the key.
  [[nodiscard]] constexpr bool stored_key() const {
    return role == Role::kKey || role == Role::kPartition;
  }
};

constexpr Column Key(std::string_view name, ColumnType type) { return {name, type, Role::kKey}; }
constexpr Column Partition(std::string_view name, ColumnType type) {
  return {name, type, Role::kPartition};
}
constexpr Column Value(std::string_view name, ColumnType type) {
  return {name, type, Role::kValue};
}
constexpr Column Sum(std::string_view name, ColumnType type) { return {name, type, Role::kSum}; }
constexpr Column Derived(std::string_view name, ColumnType type) {
  return {name, type, Role::kDerived};
}

/// What `frota export` does with a table.
enum class Export : std::uint8_t {
  kAlways,
  kWithRows,  // a file only when the table has rows (a feed without aircraft: none)
  kNo,
};

/// How reconcile compares a table with its batch recomputation.
enum class Reconcile : std::uint8_t {
  kByKey,  // row by row on the key: its views made from the catalog, the batch side read
           // from `batch_<name>` (which has the read view's compared columns)
  kRows,   // whole rows, by batch/reconcile.cc (the regularity tables)
  kNo,
};

/// What PostgreSQL does with a row whose key is already stored (tables of `kSum` columns
/// add them, whatever this says).
enum class OnConflict : std::uint8_t {
  kReplace,    // the row is rewritten as it comes
  kKeepFirst,  // the stored row stands
};

/// What a table holds, for retention: raw input (the silver layer: `positions`,
/// `rejected` and the tables beside them) or results (gold).
enum class Layer : std::uint8_t { kSilver, kGold };

/// A table of the catalog. `view` is what readers (export, reconcile, the dashboard) read:
/// the table itself, or a view over it (sink/sql/views_v1.sql) with its derived columns
/// and partitions summed away. Export sorts by the key.
struct TableSpec {
  std::string_view name;
  std::string_view view;
  std::string_view semantics;  // the section of ../shared/docs/semantics.md
  std::span<const Column> columns;
  Export exported = Export::kAlways;
  Reconcile reconcile = Reconcile::kByKey;
  OnConflict on_conflict = OnConflict::kReplace;
  bool duckdb_key = false;             // DuckDB keeps the PRIMARY KEY too
  std::string_view mm_allowance = {};  // reconcile: the batch side's allowance (SQL), in mm
  /// Empty: the jobs emit the table's rows into the epoch (model::EpochRows). Else the
  /// epoch table (or silver, `positions`) its rows are derived from when they are
  /// written (model::DeriveRows in rows.h): the epoch carries them once.
  std::string_view derived_from = {};
  /// The column that places a row on a local date (a reader's window, retention): a DATE
  /// column is the local date itself; a TIMESTAMP column's instant falls on a local date
  /// in the feed's time zone (docs/tables.md, "Dates").
  std::string_view date_column = {};
  /// Raw input kept `--retain-days` (silver), or a result kept `--retain-results-days`.
  Layer layer = Layer::kGold;
};

/// `Table<Row>` is the catalog entry of the table whose rows are `Row`: `kSpec`, and
/// `Write(row, out)`, which hands `out` the value of each stored column in order, through
/// `out.Text(std::string_view)`, `Int64`, `Int32`, `Int16`, `Int8`, `Double`, `Bool`,
/// `Date(base::LocalDate)`, `Timestamp(base::Timestamp)` and `Null()`. The sinks' appender
/// and COPY writer are such `out`s (tables_test.cc checks each Write against its columns).
///
/// A table whose rows replace the stored row of the same key, in an epoch and across
/// epochs (alerts: the row that closes an alert repeats it whole), also has
/// `UpsertKey(row)`, the text of its one key column: the sinks keep each epoch's last row
/// of a key and replace the stored one.
///
/// Adding a table: README.md of this module lists the steps.
template <typename Row>
struct Table;

// Sums are integers (millimetres, microseconds) so that partial sums from any number of
// partitions add up to the same bits in any order: exports are byte-identical whatever
// the partitioning. Means are derived from the sums when read.

/// speed_cells: one partition's segments ending in a grid cell during a local hour; those
/// implying more than max_segment_speed_kmh are counted apart, not summed.
struct SpeedCellRow {
  std::int32_t partition_id = 0;
  Mode mode = Mode::kOther;
  base::LocalDate local_date;
  std::int8_t hour = 0;
  std::int32_t cell_x = 0;
  std::int32_t cell_y = 0;
  std::int64_t segments = 0;
  std::int64_t distance_mm = 0;
  std::int64_t duration_us = 0;
  std::int64_t implausible_segments = 0;  // over max_segment_speed_kmh: not in the sums
};

template <>
struct Table<SpeedCellRow> {
  static constexpr Column kColumns[] = {
      Partition("partition_id", ColumnType::kInteger),
      Key("mode", ColumnType::kText),
      Key("local_date", ColumnType::kDate),
      Key("hour", ColumnType::kTinyint),
      Key("cell_x", ColumnType::kInteger),
      Key("cell_y", ColumnType::kInteger),
      Sum("segments", ColumnType::kBigint),
      Sum("distance_mm", ColumnType::kBigint).NotExported().Compared(Compare::kMillimetres),
      Sum("duration_us", ColumnType::kBigint).NotExported(),
      Sum("implausible_segments", ColumnType::kBigint),
      Derived("distance_m", ColumnType::kDouble).Compared(Compare::kSkip),
      Derived("duration_s", ColumnType::kDouble).Compared(Compare::kSkip),
      Derived("mean_speed_kmh", ColumnType::kDouble).Compared(Compare::kSkip),
  };
  // A segment's length is rounded to a whole millimetre on each side: one per segment.
  static constexpr TableSpec kSpec{.name = "speed_cells",
                                   .view = "speed_cell_totals",
                                   .semantics = "§4 speed, §5",
                                   .columns = kColumns,
                                   .mm_allowance = "segments",
                                   .date_column = "local_date"};

  template <typename Out>
  static void Write(const SpeedCellRow& r, Out& out) {
    out.Int32(r.partition_id);
    out.Text(ModeName(r.mode));
    out.Date(r.local_date);
    out.Int8(r.hour);
    out.Int32(r.cell_x);
    out.Int32(r.cell_y);
    out.Int64(r.segments);
    out.Int64(r.distance_mm);
    out.Int64(r.duration_us);
    out.Int64(r.implausible_segments);
  }
};

/// speed_lines: the same sums per route.
struct SpeedLineRow {
  std::int32_t partition_id = 0;
  Mode mode = Mode::kOther;
  std::string route_id;
  base::LocalDate local_date;
  std::int8_t hour = 0;
  std::int64_t segments = 0;
  std::int64_t distance_mm = 0;
  std::int64_t duration_us = 0;
  std::int64_t implausible_segments = 0;  // over max_segment_speed_kmh: not in the sums
};

template <>
struct Table<SpeedLineRow> {
  static constexpr Column kColumns[] = {
      Partition("partition_id", ColumnType::kInteger),
      Key("mode", ColumnType::kText),
      Key("route_id", ColumnType::kText),
      Key("local_date", ColumnType::kDate),
      Key("hour", ColumnType::kTinyint),
      Sum("segments", ColumnType::kBigint),
      Sum("distance_mm", ColumnType::kBigint).NotExported().Compared(Compare::kMillimetres),
      Sum("duration_us", ColumnType::kBigint).NotExported(),
      Sum("implausible_segments", ColumnType::kBigint),
      Derived("distance_m", ColumnType::kDouble).Compared(Compare::kSkip),
      Derived("duration_s", ColumnType::kDouble).Compared(Compare::kSkip),
      Derived("mean_speed_kmh", ColumnType::kDouble).Compared(Compare::kSkip),
  };
  static constexpr TableSpec kSpec{.name = "speed_lines",
                                   .view = "speed_line_totals",
                                   .semantics = "§4 speed, §5",
                                   .columns = kColumns,
                                   .mm_allowance = "segments",
                                   .date_column = "local_date"};

  template <typename Out>
  static void Write(const SpeedLineRow& r, Out& out) {
    out.Int32(r.partition_id);
    out.Text(ModeName(r.mode));
    out.Text(r.route_id);
    out.Date(r.local_date);
    out.Int8(r.hour);
    out.Int64(r.segments);
    out.Int64(r.distance_mm);
    out.Int64(r.duration_us);
    out.Int64(r.implausible_segments);
  }
};

/// fleet_hours: vehicles with at least one accepted position in the hour, and positions.
struct FleetHourRow {
  std::int32_t partition_id = 0;
  Mode mode = Mode::kOther;
  base::LocalDate local_date;
  std::int8_t hour = 0;
  std::int64_t vehicles = 0;
  std::int64_t positions = 0;
};

template <>
struct Table<FleetHourRow> {
  static constexpr Column kColumns[] = {
      Partition("partition_id", ColumnType::kInteger),
      Key("mode", ColumnType::kText),
      Key("local_date", ColumnType::kDate),
      Key("hour", ColumnType::kTinyint),
      Sum("vehicles", ColumnType::kBigint),
      Sum("positions", ColumnType::kBigint),
  };
  static constexpr TableSpec kSpec{.name = "fleet_hours",
                                   .view = "fleet_hour_totals",
                                   .semantics = "§4 speed, §5",
                                   .columns = kColumns,
                                   .date_column = "local_date"};

  template <typename Out>
  static void Write(const FleetHourRow& r, Out& out) {
    out.Int32(r.partition_id);
    out.Text(ModeName(r.mode));
    out.Date(r.local_date);
    out.Int8(r.hour);
    out.Int64(r.vehicles);
    out.Int64(r.positions);
  }
};

/// stops: a vehicle standing within 50 m of an anchor for at least 300 s.
struct StopRow {
  std::string feed_id;
  std::string vehicle_id;
  base::Timestamp start_time;
  Mode mode = Mode::kOther;
  std::string route_id;
  base::Timestamp end_time;
  double anchor_lat = 0;
  double anchor_lon = 0;
  std::int64_t positions = 0;
  std::optional<bool> near_terminal;  // null when the route is not in the static GTFS
};

template <>
struct Table<StopRow> {
  static constexpr Column kColumns[] = {
      Key("feed_id", ColumnType::kText),
      Key("vehicle_id", ColumnType::kText),
      Key("start_time", ColumnType::kTimestamp),
      Value("mode", ColumnType::kText),
      Value("route_id", ColumnType::kText),
      Value("end_time", ColumnType::kTimestamp),
      Derived("duration_s", ColumnType::kDouble),
      Value("anchor_lat", ColumnType::kDouble),
      Value("anchor_lon", ColumnType::kDouble),
      Value("positions", ColumnType::kBigint),
      Value("near_terminal", ColumnType::kBoolean).Nullable(),
      // terminal, depot or en_route: the read view's, from every stop of the database
      // (a depot is a place of many long stands); a function of the compared columns.
      Derived("place", ColumnType::kText).Nullable().Compared(Compare::kSkip),
  };
  static constexpr TableSpec kSpec{.name = "stops",
                                   .view = "stop_rows",
                                   .semantics = "§4 stops",
                                   .columns = kColumns,
                                   .date_column = "start_time"};

  template <typename Out>
  static void Write(const StopRow& r, Out& out) {
    out.Text(r.feed_id);
    out.Text(r.vehicle_id);
    out.Timestamp(r.start_time);
    out.Text(ModeName(r.mode));
    out.Text(r.route_id);
    out.Timestamp(r.end_time);
    out.Double(r.anchor_lat);
    out.Double(r.anchor_lon);
    out.Int64(r.positions);
    r.near_terminal ? out.Bool(*r.near_terminal) : out.Null();
  }
};

/// trips: the positions of one vehicle carrying one (trip_id, trip_start_date).
struct TripRow {
  std::string feed_id;
  std::string vehicle_id;
  std::string trip_id;
  std::string trip_start_date;
  base::Timestamp first_time;
  std::string route_id;
  std::int8_t direction_id = -1;  // -1: NULL
  std::string trip_start_time;
  double first_lat = 0;
  double first_lon = 0;
  base::Timestamp last_time;
  double last_lat = 0;
  double last_lon = 0;
  std::int64_t positions = 0;
  std::int64_t distance_mm = 0;
  /// Whether (trip_id, trip_start_date[, trip_start_time]) is a schedule slot the static
  /// GTFS defines: a scheduled trip of it, or a frequency trip when the feed gave the
  /// start time (semantics §4 quality); null without a GTFS.
  std::optional<bool> plan_slot;
};

template <>
struct Table<TripRow> {
  static constexpr Column kColumns[] = {
      Key("feed_id", ColumnType::kText),
      Key("vehicle_id", ColumnType::kText),
      Key("trip_id", ColumnType::kText),
      Key("trip_start_date", ColumnType::kText),
      Key("first_time", ColumnType::kTimestamp),
      Value("route_id", ColumnType::kText),
      Value("direction_id", ColumnType::kTinyint).Nullable(),
      Value("trip_start_time", ColumnType::kText),
      Value("first_lat", ColumnType::kDouble),
      Value("first_lon", ColumnType::kDouble),
      Value("last_time", ColumnType::kTimestamp),
      Value("last_lat", ColumnType::kDouble),
      Value("last_lon", ColumnType::kDouble),
      Value("positions", ColumnType::kBigint),
      Value("distance_mm", ColumnType::kBigint).Hidden(),
      Value("plan_slot", ColumnType::kBoolean).Nullable(),
      Derived("distance_m", ColumnType::kDouble).Compared(Compare::kMetres),
      Derived("duration_s", ColumnType::kDouble),
  };
  // A step's length is rounded to a whole millimetre on each side: one per step.
  static constexpr TableSpec kSpec{.name = "trips",
                                   .view = "trip_rows",
                                   .semantics = "§4 trips",
                                   .columns = kColumns,
                                   .mm_allowance = "positions - 1",
                                   .date_column = "first_time"};

  template <typename Out>
  static void Write(const TripRow& r, Out& out) {
    out.Text(r.feed_id);
    out.Text(r.vehicle_id);
    out.Text(r.trip_id);
    out.Text(r.trip_start_date);
    out.Timestamp(r.first_time);
    out.Text(r.route_id);
    r.direction_id >= 0 ? out.Int8(r.direction_id) : out.Null();
    out.Text(r.trip_start_time);
    out.Double(r.first_lat);
    out.Double(r.first_lon);
    out.Timestamp(r.last_time);
    out.Double(r.last_lat);
    out.Double(r.last_lon);
    out.Int64(r.positions);
    out.Int64(r.distance_mm);
    r.plan_slot ? out.Bool(*r.plan_slot) : out.Null();
  }
};

/// Latency buckets: ingest_time - event_time in whole seconds from -30 s to 300 s,
/// stored as bucket = latency + 30 (0..330).
inline constexpr int kLatencyMinSeconds = -30;
inline constexpr int kLatencyBuckets = 331;

/// quality: one partition's counts for a feed and local hour, mergeable by addition.
///
/// Accepted, duplicate and jump outcomes and vehicles count in the local hour of the
/// event time; records refused by rules 1-4 or as late count in the hour of their
/// event time when they have a trustworthy one (passed rules 1-3), else of their
/// ingest time.
struct QualityRow {
  std::int32_t partition_id = 0;
  std::string feed_id;
  base::LocalDate local_date;
  std::int8_t hour = 0;
  std::int64_t accepted = 0;
  std::int64_t vehicles = 0;
  std::array<std::int64_t, kRejectReasonCount> rejected{};  // by RejectReason
  /// Sparse histogram: (bucket, positions) for buckets with a count, in bucket order.
  std::vector<std::pair<std::int16_t, std::int64_t>> latency;
};

template <>
struct Table<QualityRow> {
  // The stored counts after `vehicles` are one per RejectReason, in its order
  // (tables_test.cc checks the names); the read view sums them over partitions and adds
  // `errors` (every reason but duplicate), `duplicates` and the latency percentiles.
  static constexpr Column kColumns[] = {
      Partition("partition_id", ColumnType::kInteger),
      Key("feed_id", ColumnType::kText),
      Key("local_date", ColumnType::kDate),
      Key("hour", ColumnType::kTinyint),
      Sum("accepted", ColumnType::kBigint),
      Sum("vehicles", ColumnType::kBigint),
      Derived("errors", ColumnType::kBigint),
      Derived("duplicates", ColumnType::kBigint),
      Sum("missing_vehicle_id", ColumnType::kBigint),
      Sum("missing_coordinates", ColumnType::kBigint),
      Sum("latitude_out_of_range", ColumnType::kBigint),
      Sum("longitude_out_of_range", ColumnType::kBigint),
      Sum("null_island", ColumnType::kBigint),
      Sum("missing_timestamp", ColumnType::kBigint),
      Sum("timestamp_in_milliseconds", ColumnType::kBigint),
      Sum("state_vector_too_short", ColumnType::kBigint),
      Sum("malformed_record", ColumnType::kBigint),
      Sum("bad_payload", ColumnType::kBigint),
      Sum("future", ColumnType::kBigint),
      Sum("stale", ColumnType::kBigint),
      Sum("out_of_area", ColumnType::kBigint),
      Sum("duplicate", ColumnType::kBigint).Hidden(),
      Sum("jump", ColumnType::kBigint),
      Sum("late", ColumnType::kBigint),
      Derived("latency_p50_s", ColumnType::kSmallint),
      Derived("latency_p90_s", ColumnType::kSmallint),
  };
  static constexpr TableSpec kSpec{.name = "quality",
                                   .view = "quality_hours",
                                   .semantics = "§4 quality, §5",
                                   .columns = kColumns,
                                   .date_column = "local_date"};

  template <typename Out>
  static void Write(const QualityRow& r, Out& out) {
    out.Int32(r.partition_id);
    out.Text(r.feed_id);
    out.Date(r.local_date);
    out.Int8(r.hour);
    out.Int64(r.accepted);
    out.Int64(r.vehicles);
    for (const std::int64_t count : r.rejected) {
      out.Int64(count);
    }
  }
};

/// quality_latency: one bucket of a quality row's latency histogram (QualityLatencyRows,
/// rows.h), its feed borrowed from the row.
struct QualityLatencyRow {
  std::int32_t partition_id = 0;
  std::string_view feed_id;
  base::LocalDate local_date;
  std::int8_t hour = 0;
  std::int16_t latency_s = 0;  // bucket + kLatencyMinSeconds
  std::int64_t positions = 0;
};

template <>
struct Table<QualityLatencyRow> {
  static constexpr Column kColumns[] = {
      Partition("partition_id", ColumnType::kInteger),
      Key("feed_id", ColumnType::kText),
      Key("local_date", ColumnType::kDate),
      Key("hour", ColumnType::kTinyint),
      Key("latency_s", ColumnType::kSmallint),
      Sum("positions", ColumnType::kBigint),
  };
  // Read as it is stored (quality's percentiles read it); reconcile sums its partitions.
  static constexpr TableSpec kSpec{.name = "quality_latency",
                                   .view = "quality_latency",
                                   .semantics = "§4 quality, §5",
                                   .columns = kColumns,
                                   .exported = Export::kNo,
                                   .derived_from = "quality",
                                   .date_column = "local_date"};

  template <typename Out>
  static void Write(const QualityLatencyRow& r, Out& out) {
    out.Int32(r.partition_id);
    out.Text(r.feed_id);
    out.Date(r.local_date);
    out.Int8(r.hour);
    out.Int16(r.latency_s);
    out.Int64(r.positions);
  }
};

/// departures (semantics §7, docs/departures.md): a vehicle leaving its route's origin
/// terminal, placed on its service date; the streaming job and `frota headways` write the
/// same rows.
struct DepartureRow {
  std::string feed_id;
  std::string vehicle_id;
  std::string feed_route_id;
  std::string route_id;
  std::int8_t direction_id = -1;  // -1: NULL
  std::string trip_id;            // the trip tag that chose the pattern ('' when none)
  std::string shape_id;           // the pattern
  base::LocalDate service_date;
  base::Timestamp departure_time;
  bool inferred = false;     // the pattern came from geometry
  double distance_m = 0;     // from the pattern's first point
  bool tagged_late = false;  // the tag's first position lay beyond 1,000 m
  bool unplanned = false;    // in no service period (not in `headways`)
  std::string day_type;
  base::LocalDate local_date;
  std::int8_t hour = 0;
};

template <>
struct Table<DepartureRow> {
  static constexpr Column kColumns[] = {
      Key("feed_id", ColumnType::kText),
      Key("vehicle_id", ColumnType::kText),
      Value("feed_route_id", ColumnType::kText),
      Value("route_id", ColumnType::kText),
      Value("direction_id", ColumnType::kTinyint).Nullable(),
      Value("trip_id", ColumnType::kText),
      Value("shape_id", ColumnType::kText),
      Value("service_date", ColumnType::kDate),
      Key("departure_time", ColumnType::kTimestamp),
      Value("inferred", ColumnType::kBoolean),
      Value("distance_m", ColumnType::kDouble),
      Value("tagged_late", ColumnType::kBoolean),
      Value("unplanned", ColumnType::kBoolean),
      Value("day_type", ColumnType::kText),
      Value("local_date", ColumnType::kDate),
      Value("hour", ColumnType::kTinyint),
  };
  // PostgreSQL inserts a row once per key; reconcile compares whole rows.
  static constexpr TableSpec kSpec{.name = "departures",
                                   .view = "departures",
                                   .semantics = "§7 headways",
                                   .columns = kColumns,
                                   .exported = Export::kNo,
                                   .reconcile = Reconcile::kRows,
                                   .on_conflict = OnConflict::kKeepFirst,
                                   .date_column = "service_date"};

  template <typename Out>
  static void Write(const DepartureRow& r, Out& out) {
    out.Text(r.feed_id);
    out.Text(r.vehicle_id);
    out.Text(r.feed_route_id);
    out.Text(r.route_id);
    r.direction_id >= 0 ? out.Int8(r.direction_id) : out.Null();
    out.Text(r.trip_id);
    out.Text(r.shape_id);
    out.Date(r.service_date);
    out.Timestamp(r.departure_time);
    out.Bool(r.inferred);
    out.Double(r.distance_m);
    out.Bool(r.tagged_late);
    out.Bool(r.unplanned);
    out.Text(r.day_type);
    out.Date(r.local_date);
    out.Int8(r.hour);
  }
};

/// headways: an in-period departure with the time since the previous in-period departure
/// of its route and direction on its service date (none for the first), the planned
/// headway at it (none when nothing is planned then), and why the pair is left out of
/// the statistics: empty (measured), `service_break` (the previous departure is in
/// another service period) or `coverage_gap` (the route's feed was blind for 5 minutes
/// or more between the two).
struct HeadwayRow {
  std::string route_id;
  std::int8_t direction_id = -1;  // -1: NULL
  base::LocalDate service_date;
  std::string day_type;
  base::Timestamp departure_time;
  base::LocalDate local_date;
  std::int8_t hour = 0;
  std::string vehicle_id;
  bool inferred = false;
  std::optional<double> headway_s;
  std::optional<double> planned_headway_s;
  std::string exclusion;  // empty: NULL (measured)
};

template <>
struct Table<HeadwayRow> {
  static constexpr Column kColumns[] = {
      Key("route_id", ColumnType::kText),
      Value("direction_id", ColumnType::kTinyint).Nullable(),
      Key("service_date", ColumnType::kDate),
      Value("day_type", ColumnType::kText),
      Key("departure_time", ColumnType::kTimestamp),
      Value("local_date", ColumnType::kDate),
      Value("hour", ColumnType::kTinyint),
      Key("vehicle_id", ColumnType::kText),
      Value("inferred", ColumnType::kBoolean),
      Value("headway_s", ColumnType::kDouble).Nullable(),
      Value("planned_headway_s", ColumnType::kDouble).Nullable(),
      Value("exclusion", ColumnType::kText).Nullable(),
  };
  static constexpr TableSpec kSpec{.name = "headways",
                                   .view = "headways",
                                   .semantics = "§7 headways",
                                   .columns = kColumns,
                                   .exported = Export::kNo,
                                   .reconcile = Reconcile::kRows,
                                   .on_conflict = OnConflict::kKeepFirst,
                                   .date_column = "service_date"};

  template <typename Out>
  static void Write(const HeadwayRow& r, Out& out) {
    out.Text(r.route_id);
    r.direction_id >= 0 ? out.Int8(r.direction_id) : out.Null();
    out.Date(r.service_date);
    out.Text(r.day_type);
    out.Timestamp(r.departure_time);
    out.Date(r.local_date);
    out.Int8(r.hour);
    out.Text(r.vehicle_id);
    out.Bool(r.inferred);
    r.headway_s ? out.Double(*r.headway_s) : out.Null();
    r.planned_headway_s ? out.Double(*r.planned_headway_s) : out.Null();
    r.exclusion.empty() ? out.Null() : out.Text(r.exclusion);
  }
};

/// alerts: one per alert, keyed by alert_id; a row that closes an open alert repeats it
/// whole with end_time and closed_at set (the sinks upsert it).
struct AlertRow {
  std::string alert_id;  // kind|feed|route|direction|start_time
  std::string kind;      // bunching, gap, gap_in_progress, feed_blind
  std::string feed_id;
  std::string route_id;           // '' for feed_blind
  std::int8_t direction_id = -1;  // -1: NULL
  std::optional<base::LocalDate> service_date;
  base::Timestamp start_time;
  std::optional<base::Timestamp> end_time;
  base::Timestamp raised_at;
  std::optional<base::Timestamp> closed_at;
  std::optional<double> planned_headway_s;
  std::optional<double> actual_headway_s;
  std::string vehicles;  // sorted, joined by ','
};

template <>
struct Table<AlertRow> {
  static constexpr Column kColumns[] = {
      Key("alert_id", ColumnType::kText),
      Value("kind", ColumnType::kText),
      Value("feed_id", ColumnType::kText),
      Value("route_id", ColumnType::kText),
      Value("direction_id", ColumnType::kTinyint).Nullable(),
      Value("service_date", ColumnType::kDate).Nullable(),
      Value("start_time", ColumnType::kTimestamp),
      Value("end_time", ColumnType::kTimestamp).Nullable(),
      Value("raised_at", ColumnType::kTimestamp),
      Value("closed_at", ColumnType::kTimestamp).Nullable(),
      Value("planned_headway_s", ColumnType::kDouble).Nullable(),
      Value("actual_headway_s", ColumnType::kDouble).Nullable(),
      Value("vehicles", ColumnType::kText),
  };
  // Upserted by alert_id in both databases: DuckDB keeps the key.
  static constexpr TableSpec kSpec{.name = "alerts",
                                   .view = "alerts",
                                   .semantics = "§7 headways",
                                   .columns = kColumns,
                                   .exported = Export::kNo,
                                   .reconcile = Reconcile::kRows,
                                   .duckdb_key = true,
                                   .date_column = "start_time"};

  static std::string_view UpsertKey(const AlertRow& r) { return r.alert_id; }

  template <typename Out>
  static void Write(const AlertRow& r, Out& out) {
    out.Text(r.alert_id);
    out.Text(r.kind);
    out.Text(r.feed_id);
    out.Text(r.route_id);
    r.direction_id >= 0 ? out.Int8(r.direction_id) : out.Null();
    r.service_date ? out.Date(*r.service_date) : out.Null();
    out.Timestamp(r.start_time);
    r.end_time ? out.Timestamp(*r.end_time) : out.Null();
    out.Timestamp(r.raised_at);
    r.closed_at ? out.Timestamp(*r.closed_at) : out.Null();
    r.planned_headway_s ? out.Double(*r.planned_headway_s) : out.Null();
    r.actual_headway_s ? out.Double(*r.actual_headway_s) : out.Null();
    out.Text(r.vehicles);
  }
};

/// collector_polls (docs/tables.md): one HTTP request of a collector's poller.
/// A poll: one request of a feed's poller (a scheduled poll or one of its retries),
/// whatever came of it. Failed requests never reach bronze; their poll rows are the only
/// trace they leave. (feed_id, polled_at) is unique: a feed's requests are sequential.
struct PollRow {
  std::string feed_id;
  base::Timestamp polled_at;     // when the request started (collector clock, UTC)
  std::int32_t attempt = 1;      // 1: the scheduled poll; 2, 3, ...: its retries
  std::int32_t http_status = 0;  // 0: no status line arrived (timeout, connection error)
  std::string failure;           // empty when the response was usable (200, 304)
  std::int64_t bytes = 0;        // body bytes received (archived bodies: their size)
  double duration_ms = 0;
  bool repeat = false;                  // an archived 200 that repeats the previous response
  std::optional<std::int64_t> records;  // decoded records of an archived 200
  std::string body;                     // the archived body's path (200 only), else empty
  std::string run_id;                   // the collector run that made the request
  bool operator==(const PollRow&) const = default;
};

template <>
struct Table<PollRow> {
  static constexpr Column kColumns[] = {
      Key("feed_id", ColumnType::kText),
      Key("polled_at", ColumnType::kTimestamp),
      Value("attempt", ColumnType::kInteger),
      Value("http_status", ColumnType::kInteger),
      Value("failure", ColumnType::kText).Nullable(),
      Value("bytes", ColumnType::kBigint),
      Value("duration_ms", ColumnType::kDouble),
      Value("repeat", ColumnType::kBoolean),
      Value("records", ColumnType::kBigint).Nullable(),
      Value("body", ColumnType::kText).Nullable(),
      Value("run_id", ColumnType::kText),
  };
  // Not recomputed by reconcile: the collector's requests are its input, not a result.
  static constexpr TableSpec kSpec{.name = "collector_polls",
                                   .view = "collector_polls",
                                   .semantics = "§4 quality (per poll)",
                                   .columns = kColumns,
                                   .reconcile = Reconcile::kNo,
                                   .on_conflict = OnConflict::kKeepFirst,
                                   .date_column = "polled_at",
                                   .layer = Layer::kSilver};

  template <typename Out>
  static void Write(const PollRow& r, Out& out) {
    out.Text(r.feed_id);
    out.Timestamp(r.polled_at);
    out.Int32(r.attempt);
    out.Int32(r.http_status);
    r.failure.empty() ? out.Null() : out.Text(r.failure);
    out.Int64(r.bytes);
    out.Double(r.duration_ms);
    out.Bool(r.repeat);
    r.records ? out.Int64(*r.records) : out.Null();
    r.body.empty() ? out.Null() : out.Text(r.body);
    out.Text(r.run_id);
  }
};

/// aircraft_positions (semantics §8): what an OpenSky state vector says of an accepted
/// position beyond `positions`, keyed like it; one for each position HasAircraftFields
/// picks (AircraftPositionRows, rows.h), its texts borrowed from the epoch's dictionary.
struct AircraftPositionRow {
  std::string_view feed_id;
  std::string_view vehicle_id;
  base::Timestamp event_time;
  std::optional<std::string_view> origin_country;  // blank is kept: not an absent one
  std::optional<std::int64_t> last_contact;        // Unix seconds
};

template <>
struct Table<AircraftPositionRow> {
  static constexpr Column kColumns[] = {
      Key("feed_id", ColumnType::kText),
      Key("vehicle_id", ColumnType::kText),
      Key("event_time", ColumnType::kTimestamp),
      Value("origin_country", ColumnType::kText).Nullable(),
      Value("last_contact", ColumnType::kBigint).Nullable(),
  };
  // Exported and compared only when it has rows: a feed without aircraft has the files
  // and the reconcile report it had before the table.
  static constexpr TableSpec kSpec{.name = "aircraft_positions",
                                   .view = "aircraft_positions",
                                   .semantics = "§8 aircraft",
                                   .columns = kColumns,
                                   .exported = Export::kWithRows,
                                   .derived_from = "positions",
                                   .date_column = "event_time",
                                   .layer = Layer::kSilver};

  template <typename Out>
  static void Write(const AircraftPositionRow& r, Out& out) {
    out.Text(r.feed_id);
    out.Text(r.vehicle_id);
    out.Timestamp(r.event_time);
    r.origin_country ? out.Text(*r.origin_country) : out.Null();
    r.last_contact ? out.Int64(*r.last_contact) : out.Null();
  }
};

/// duplicate_counts (semantics §2 rule 5): refused duplicates of one partition, counted
/// per feed, vehicle and local hour of their event time instead of stored one by one
/// (most of what a feed that resends its last minute sends). Emitted with the hour's
/// other aggregates, when the watermark passes the hour's end.
struct DuplicateCountRow {
  std::int32_t partition_id = 0;
  std::string feed_id;
  std::string vehicle_id;
  base::LocalDate local_date;
  std::int8_t hour = 0;
  std::int64_t records = 0;
};

template <>
struct Table<DuplicateCountRow> {
  static constexpr Column kColumns[] = {
      Partition("partition_id", ColumnType::kInteger),
      Key("feed_id", ColumnType::kText),
      Key("vehicle_id", ColumnType::kText),
      Key("local_date", ColumnType::kDate),
      Key("hour", ColumnType::kTinyint),
      Sum("records", ColumnType::kBigint),
  };
  static constexpr TableSpec kSpec{.name = "duplicate_counts",
                                   .view = "duplicate_count_totals",
                                   .semantics = "§2 rule 5, §5",
                                   .columns = kColumns,
                                   .date_column = "local_date",
                                   .layer = Layer::kSilver};

  template <typename Out>
  static void Write(const DuplicateCountRow& r, Out& out) {
    out.Int32(r.partition_id);
    out.Text(r.feed_id);
    out.Text(r.vehicle_id);
    out.Date(r.local_date);
    out.Int8(r.hour);
    out.Int64(r.records);
  }
};

/// A list of row types.
template <typename... Rows>
struct RowTypes {};

/// Every table of the catalog by its row type, in the catalog's order (export's, the
/// sinks' writes): CatalogTables(), EpochRows, both sinks, export and reconcile loop over
/// it.
using CatalogRowTypes = RowTypes<SpeedCellRow, SpeedLineRow, FleetHourRow, StopRow, TripRow,
                                 QualityRow, QualityLatencyRow, PollRow, DepartureRow, HeadwayRow,
                                 AlertRow, AircraftPositionRow, DuplicateCountRow>;

/// Calls `f.template operator()<Row>()` for every row type of `List`, in order.
template <typename... Rows, typename F>
constexpr void ForEachRowType(RowTypes<Rows...> /*list*/, F&& f) {
  (f.template operator()<Rows>(), ...);
}

/// Whether the sinks derive the table's rows instead of the epoch carrying them.
template <typename Row>
inline constexpr bool kDerivedTable = !Table<Row>::kSpec.derived_from.empty();

/// Whether a table's rows replace the stored row of their key (`UpsertKey`).
template <typename Row>
concept UpsertedTable = requires(const Row& row) {
  { Table<Row>::UpsertKey(row) } -> std::convertible_to<std::string_view>;
};

/// `std::tuple<Holder<Row>...>` over the row types of `List` that `Keep<Row>::value`
/// selects, in order: per-table storage that follows the catalog.
template <template <typename> class Keep, template <typename> class Holder, typename List>
struct SelectTables;
template <template <typename> class Keep, template <typename> class Holder, typename... Rows>
struct SelectTables<Keep, Holder, RowTypes<Rows...>> {
  using type = decltype(std::tuple_cat(
      std::declval<
          std::conditional_t<Keep<Rows>::value, std::tuple<Holder<Rows>>, std::tuple<>>>()...));
};

/// Selectors for SelectTables: the tables an epoch carries, and the upserted ones.
template <typename Row>
struct IsEmittedTable : std::bool_constant<!kDerivedTable<Row>> {};
template <typename Row>
struct IsUpsertedTable : std::bool_constant<UpsertedTable<Row>> {};

/// Every table of the catalog, in export order.
const std::vector<const TableSpec*>& CatalogTables();

/// The catalog entry of table `name`; null when it has none.
const TableSpec* FindCatalogTable(std::string_view name);

/// The stored columns (derived ones left out), in order.
std::vector<Column> StoredColumns(const TableSpec& table);

/// The columns of the read view, in order.
std::vector<Column> ViewColumns(const TableSpec& table);

}  // namespace frota::model
