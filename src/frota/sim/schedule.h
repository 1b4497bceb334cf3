// The planned service of one date read from a GTFS, and the vehicle blocks that run it.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "frota/base/status.h"
#include "frota/base/time.h"
#include "frota/gtfs/static_feed.h"
#include "frota/sim/shape_path.h"
#include "frota/sim/traffic.h"

namespace frota::sim {

/// One departure the GTFS plans for the date: an explicit trip, or one instance of a
/// frequency template (then `start_time` tells the instances apart).
struct PlannedTrip {
  std::string trip_id;
  std::string route_id;
  std::int8_t direction_id = -1;
  std::int32_t shape = -1;       // index into DayPlan::shapes
  std::int32_t departure_s = 0;  // seconds of the service day (noon minus 12 h)
  std::int32_t arrival_s = 0;    // planned arrival at the last stop
  std::string start_time;        // HH:MM:SS, GTFS-RT TripDescriptor.start_time
  bool frequency_based = false;
  // frequency_based: the frequencies.txt window it is an instance of.
  std::int32_t window_start_s = 0;
  std::int32_t window_end_s = 0;
  std::int32_t headway_s = 0;
};

/// A shape with the places along it where buses stop.
struct DrivenShape {
  std::string id;
  std::string route_id;
  ShapePath path;
  std::vector<double> stop_s;  // metres along the path of the stops within 15 m of it
};

/// The service of one date: the departures, sorted by (departure, trip_id, start_time),
/// and the shapes they drive.
struct DayPlan {
  base::LocalDate service_date{};
  std::string time_zone;
  base::Timestamp service_day_start;  // noon minus 12 h, local, as an instant
  std::vector<DrivenShape> shapes;
  std::vector<PlannedTrip> trips;
  std::int64_t trips_without_shape = 0;  // active trips that cannot be driven
};

/// Reads the departures of `date` (services active per calendar and calendar_dates):
/// frequency templates are expanded into their instances, other trips depart at their
/// first stop time. Arrival is the last stop time, else estimated with `traffic`.
/// Trips without a usable shape are counted and left out.
base::Result<DayPlan> PlanDay(const gtfs::StaticFeed& feed, base::LocalDate date,
                              const TrafficModel& traffic);

/// What blocking needs to know of a trip.
struct BlockInput {
  std::int32_t group = 0;  // trips of one group (a route) share vehicles
  std::int32_t departure_s = 0;
  std::int32_t arrival_s = 0;
  LatLon start;
  LatLon end;
};

struct BlockOptions {
  std::int32_t min_layover_s = 180;  // planned turnaround at a terminal
  std::int32_t max_idle_s = 3600;    // longer: the bus pulls in and a new one pulls out
  double max_terminal_gap_m = 300;   // a trip may start where the previous ended
};

/// Chains trips into vehicle blocks, greedily in departure order: each trip takes the
/// idle vehicle of its group that has waited longest at its start terminal, else a new
/// vehicle. Returns the blocks as lists of indexes into `trips`, in creation order.
std::vector<std::vector<std::int32_t>> BuildBlocks(const std::vector<BlockInput>& trips,
                                                   const BlockOptions& options);

/// The most blocks in service at once, a block spanning [first departure - before_s,
/// last arrival + after_s].
std::int32_t PeakVehicles(const std::vector<BlockInput>& trips,
                          const std::vector<std::vector<std::int32_t>>& blocks,
                          std::int32_t before_s, std::int32_t after_s);

}  // namespace frota::sim
