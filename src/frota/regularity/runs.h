// Trips as runs (semantics §4 "trips"): a vehicle's tag runs split at its departures, each
// piece judged as Rio's trip validation judges a trip.
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "frota/base/time.h"
#include "frota/regularity/departures.h"

namespace frota::regularity {

/// The numbers of the rule (semantics §4 "trips").
struct RunOptions {
  /// Positions of one trip tag more than this apart are two tag runs (the trips job's).
  std::chrono::seconds tag_gap{900};
  /// A tag chooses a departure at most this long before its first position (the
  /// detector's DepartureOptions::tag_window).
  std::chrono::seconds tag_window{std::chrono::minutes(30)};
  /// Arrived, and completed: a position this close to the pattern's last point after one
  /// farther from it.
  double completed_radius_m = 1000;
  /// A position this close to the pattern's shape is on it.
  double shape_radius_m = 500;
  /// Conforming: at least these shares of positions on the shape and of minutes with a
  /// position (the thresholds of Rio's trip validation).
  double conforming_shape_share = 0.8;
  double conforming_minute_share = 0.5;
};

/// One trip as a run: the positions of one tag run of a vehicle from a departure to its
/// arrival at the pattern's end (or, without one, to the next departure).
struct RunTrip {
  std::string feed_id;
  std::string vehicle_id;
  std::string trip_id;
  std::string trip_start_date;
  base::Timestamp first_time;
  base::Timestamp last_time;
  std::int64_t positions = 0;
  double distance_m = 0;  // haversine between consecutive positions of the run
  /// The departure that starts the run; none when the tag run has no departure of its own.
  std::optional<Departure> departure;
  /// The run's pattern: its departure's, else the tag's trip's. Empty route: unknown.
  std::string route_id;
  int direction_id = -1;
  /// Absent when the pattern has no shape (or is unknown): nothing to judge against.
  std::optional<bool> completed;
  std::optional<double> shape_share;   // of its positions within shape_radius_m of the shape
  std::optional<double> minute_share;  // of its minutes (first to last) holding a position
  std::optional<bool> conforming;
};

/// Splits a vehicle's tag runs (positions of one (trip_id, trip_start_date) at most
/// tag_gap apart; untagged positions belong to none) at its departures, each departure
/// used once, by the runs in the order they start. A departure splits a run when it lies
/// within the run (from its first to its last position) and either the run's tag chose
/// it, or no tag did and the vehicle's position at it (or its next one) is the run's; the
/// positions from the departure on form the next piece. The run's first piece starts at
/// its first position and belongs to the departure the run's tag chose up to tag_window
/// before that position (a tag that starts after the vehicle left), else to the run's
/// first splitting departure, which then does not split. So
/// each piece is one departure and the way to the next. The trip is the piece from its
/// departure (the wait at the terminal before it is no trip's) to its arrival, the first
/// position within completed_radius_m of the pattern's last point after one farther from
/// it (the layover after it is no trip's; without an arrival, to the piece's end).
/// `fixes` are the vehicle's positions in time order, `departures` its departures (any
/// order). Trips come out by first position.
std::vector<RunTrip> SplitRuns(const DepartureDetector& detector, std::string_view feed_id,
                               std::string_view vehicle_id, std::span<const Fix> fixes,
                               std::span<const Departure> departures,
                               const RunOptions& options = {});

}  // namespace frota::regularity
