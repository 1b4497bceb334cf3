// The ground truth of a simulated day: what really happened, and what the rules must find.
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "frota/base/status.h"

namespace frota::sim {

/// A time a bus stood still for at least 4 minutes (layover, incident, pull-out, pull-in).
struct TruthStop {
  std::string vehicle_id;
  std::string route_id;
  std::int64_t start_us = 0;  // UTC, µs since the epoch
  std::int64_t end_us = 0;
  double lat = 0;
  double lon = 0;
  std::string kind;  // layover, incident, pre_service, post_service, dwell
  bool near_terminal = false;
};

/// A trip that ran, leaving its first terminal at `time_us`.
struct TruthDeparture {
  std::string vehicle_id;
  std::string route_id;
  std::int32_t direction_id = -1;
  std::string trip_id;           // the slot it ran
  std::string reported_trip_id;  // the slot the feed reports (duplicate_slot differs)
  std::string start_date;        // YYYYMMDD
  std::string start_time;        // HH:MM:SS
  std::int64_t scheduled_us = 0;
  std::int64_t time_us = 0;       // it leaves the terminal
  std::int64_t exit_time_us = 0;  // semantics §7's departure moment on the true trajectory:
                                  // its progress reaches 1,000 m (older truths: time_us)
  bool tagged_late = false;   // its trip id first shows more than 1,000 m out (v1: first_seen_far)
  bool never_tagged = false;  // its trip id never shows
};

/// A span of time: a feed-wide outage (route_id empty) or a line's silence.
struct TruthInterval {
  std::string route_id;
  std::int64_t start_us = 0;  // UTC, µs; end exclusive
  std::int64_t end_us = 0;
};

/// The time between two consecutive true departures of a route, direction and service
/// date, with why it would be left out of semantics §7's statistics.
struct TruthHeadway {
  std::string route_id;
  std::int32_t direction_id = -1;
  std::string service_date;  // YYYY-MM-DD
  std::int64_t time_us = 0;  // the later departure
  double headway_s = 0;
  std::string exclusion;  // "" (measured), "service_break" or "coverage_gap"
};

/// An alert the day causes (semantics §7, the `alerts` table): bunching (a measured
/// headway under 0.25 x planned), gap (over 2 x planned), gap_in_progress (the same
/// pairs: no departure for more than 2 x planned while the feed watched), each starting
/// at the earlier departure; feed_blind (a feed outage of 5 minutes or more).
struct TruthAlert {
  std::string kind;
  std::string route_id;  // '' for feed_blind
  std::int32_t direction_id = -1;
  std::int64_t start_us = 0;
  std::int64_t end_us = 0;
  double planned_headway_s = 0;  // 0 for feed_blind
};

/// A route operated differently from the GTFS written for frota (stale_plan).
struct TruthStaleRoute {
  std::string route_id;
  std::int64_t shifted_trips = 0;
  double max_shift_s = 0;  // the largest |operated - written| departure
};

/// A planned slot (never_run), or one reported by several buses (duplicate_slot).
struct TruthSlot {
  std::string trip_id;
  std::string start_date;
  std::string start_time;
  std::string route_id;
  std::vector<std::string> vehicle_ids;  // duplicate slots: the buses reporting it
};

/// A bus reporting another slot for a moment while parked.
struct TruthReassignment {
  std::string vehicle_id;
  std::string trip_id;
  std::string start_date;
  std::int64_t start_us = 0;
  std::int64_t end_us = 0;
};

/// True movement in one speed cell and local hour (semantics §4's cells).
struct TruthCell {
  std::string local_date;  // YYYY-MM-DD
  std::int32_t hour = 0;
  std::int32_t cell_x = 0;
  std::int32_t cell_y = 0;
  std::int64_t segments = 0;  // 15-second samples
  double distance_m = 0;      // along the road
  double duration_s = 0;
  double mean_speed_kmh = 0;
};

/// How often a fault was injected, and what the rules must make of those records.
struct TruthFault {
  std::string fault;
  std::string unit;           // what the rate counts: record, response, line_poll, trip, layover
  std::int64_t injected = 0;  // in that unit
  std::int64_t opportunities = 0;
  double configured_rate = 0;
  std::int64_t records = 0;  // records it touched (the rows in fault_records)
  /// Record faults: expected outcome ("accepted" or a reason) -> records.
  std::map<std::string, std::int64_t> expected;
};

struct Truth {
  std::int32_t version = 2;
  std::uint64_t seed = 0;
  std::string date;  // the service date simulated, YYYY-MM-DD
  std::string time_zone;
  std::string feed_id;
  // Paths as written: relative ones are relative to the truth file's folder.
  std::string archive;
  std::string gtfs;
  std::string area;
  std::string fault_records;  // Parquet: feed_id, source_offset, fault, vehicle_id, expected
  std::int64_t peak_vehicles = 0;
  std::int64_t vehicles = 0;
  std::int64_t routes = 0;
  std::int64_t planned_trips = 0;
  std::int64_t run_trips = 0;
  std::int64_t responses = 0;
  std::int64_t records = 0;
  std::int64_t body_bytes = 0;
  double latency_p50_s = 0;  // ingest - GPS time when a fix is first shown
  double latency_p90_s = 0;
  double latency_over_300s_share = 0;  // of all records: shown more than 300 s after the fix
  std::int64_t expected_accepted = 0;
  std::map<std::string, std::int64_t> expected_rejected;  // reason -> records
  std::vector<TruthFault> faults;
  std::vector<TruthStop> stops;
  std::vector<TruthDeparture> departures;
  std::vector<TruthSlot> never_run;
  std::vector<TruthSlot> duplicate_slots;
  std::vector<TruthReassignment> reassignments;
  std::vector<TruthCell> speed_cells;
  // Version 2 (empty when reading version 1, except headways: see ReadTruth).
  std::vector<TruthInterval> outages;  // feed-wide, route_id empty
  std::vector<TruthInterval> line_silences;
  std::vector<TruthStaleRoute> stale_plan;
  std::vector<TruthHeadway> headways;
  std::vector<TruthAlert> alerts;  // absent from older truths: empty
};

/// The true headways of `departures`: consecutive departures of a (route, direction,
/// service date), without exclusions (what a version 1 truth implies).
std::vector<TruthHeadway> HeadwaysWithoutExclusions(const std::vector<TruthDeparture>& departures);

/// Writes the truth as one JSON document (times as ISO 8601 UTC).
base::Status WriteTruth(const Truth& truth, const std::filesystem::path& file);
/// Reads it back; errors name the file and the field.
base::Result<Truth> ReadTruth(const std::filesystem::path& file);
/// A path of the truth resolved against the truth file's folder.
std::filesystem::path ResolveTruthPath(const std::filesystem::path& truth_file,
                                       const std::string& path);

}  // namespace frota::sim
