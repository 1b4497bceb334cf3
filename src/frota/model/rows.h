// The rows the jobs emit (semantics.md sections 4-5): plain data shared by jobs, sinks and batch.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "frota/base/time.h"
#include "frota/model/mode.h"
#include "frota/model/poll.h"
#include "frota/model/position.h"
#include "frota/model/position_record.h"
#include "frota/model/rejection.h"
#include "frota/model/rejection_record.h"
#include "frota/model/string_dictionary.h"
#include "frota/model/tables.h"

namespace frota::model {

// Sums are integers (millimetres, microseconds) so that partial sums from any number of
// partitions add up to the same bits in any order: exports are byte-identical whatever
// the partitioning. Means are derived from the sums when read.

/// speed_cells: one partition's segments ending in a grid cell during a local hour.
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

// StopRow (stops) is in tables.h, with its catalog entry.

/// trips: the positions of one vehicle carrying one (trip_id, trip_start_date).
struct TripRow {
  std::string feed_id;
  std::string vehicle_id;
  std::string trip_id;
  std::string trip_start_date;
  base::Timestamp first_time;
  std::string route_id;
  std::int8_t direction_id = -1;
  std::string trip_start_time;
  double first_lat = 0;
  double first_lon = 0;
  base::Timestamp last_time;
  double last_lat = 0;
  double last_lon = 0;
  std::int64_t positions = 0;
  std::int64_t distance_mm = 0;
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

/// departures (semantics §7, docs/departures.md): a vehicle leaving its route's origin
/// terminal, placed on its service date; the same columns as `frota headways` writes.
struct DepartureRow {
  std::string feed_id;
  std::string vehicle_id;
  std::string feed_route_id;
  std::string route_id;
  std::int8_t direction_id = -1;  // -1: NULL
  std::string trip_id;
  std::string shape_id;
  base::LocalDate service_date;
  base::Timestamp departure_time;
  bool inferred = false;
  double distance_m = 0;
  bool tagged_late = false;
  bool unplanned = false;
  std::string day_type;
  base::LocalDate local_date;
  std::int8_t hour = 0;
};

/// headways: an in-period departure with the time since the line's previous one.
struct HeadwayRow {
  std::string route_id;
  std::int8_t direction_id = -1;
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

/// Everything one epoch produced, in no particular order.
struct EpochRows {
  /// Accepted positions (silver) and refused records; their ids are `strings`'s.
  std::vector<PositionRecord> positions;
  std::shared_ptr<const StringDictionary> strings;
  std::vector<RejectionRecord> rejected;
  std::vector<SpeedCellRow> speed_cells;
  std::vector<SpeedLineRow> speed_lines;
  std::vector<FleetHourRow> fleet_hours;
  std::vector<StopRow> stops;
  std::vector<TripRow> trips;
  std::vector<QualityRow> quality;
  /// collector_polls: requests of the collector whose poll journal this run follows.
  std::vector<PollRow> polls;
  /// The regularity jobs (regularity::Stream), when the runner has a GTFS plan.
  std::vector<DepartureRow> departures;
  std::vector<HeadwayRow> headways;
  std::vector<AlertRow> alerts;

  /// Moves `other`'s rows in; both must use the same string dictionary (one pipeline's).
  void Append(EpochRows&& other);
  [[nodiscard]] std::size_t RowCount() const;
};

}  // namespace frota::model
