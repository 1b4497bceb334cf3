// Departures from a route's terminal (semantics §7): from trips where the feed carries trip ids, inferred from shapes where it does not.
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "frota/base/status.h"
#include "frota/base/time.h"
#include "frota/base/time_zone.h"
#include "frota/gtfs/route_resolver.h"
#include "frota/gtfs/static_feed.h"
#include "frota/model/rows.h"
#include "frota/sink/duckdb_connection.h"

namespace frota::batch {

/// A vehicle leaving the start of a route in one direction.
struct Departure {
  std::string feed_id;
  std::string vehicle_id;
  std::string feed_route_id;  // as the feed names the route ("53B")
  std::string route_id;       // the GTFS route ("B0053AABBA")
  int direction_id = -1;      // the GTFS trip's, or the inferred shape's trips'
  std::string trip_id;        // the GTFS trip (empty when inferred)
  std::string shape_id;       // the shape whose start it left (may be empty for trips)
  base::LocalDate service_date;
  base::Timestamp departure_time;
  bool inferred = false;
  double distance_m = 0;  // trips: first position to the trip's start; inferred: 0
};

/// The numbers of the departure rules (semantics §7 and docs/semantics-notes.md).
struct DepartureOptions {
  /// Trips: the first position lies within this distance of the first point of the
  /// trip's shape (else its first stop).
  double trip_start_radius_m = 1000;
  /// Inferred: the zone around a shape's first point that a vehicle leaves.
  double zone_radius_m = 250;
  /// Inferred: after leaving, the vehicle's positions stay within this distance of the
  /// shape and progress along it ...
  double corridor_m = 150;
  /// ... until they are this far along it ...
  double progress_m = 1000;
  /// ... within this time of leaving; and no step goes back along it by more than
  /// `backtrack_m` (GPS noise).
  std::chrono::seconds progress_window{std::chrono::minutes(20)};
  double backtrack_m = 100;
  /// Inferred: the last position inside and the first outside the zone are at most
  /// this far apart in time (a longer silence hides when the vehicle left).
  std::chrono::seconds max_exit_gap{std::chrono::minutes(5)};
  /// Inferred: after a departure, a vehicle must get this far from that start before it
  /// can depart from it again (GPS jitter at the zone's edge is not a second departure).
  double rearm_distance_m = 1000;
};

/// One accepted position of a vehicle, as the inference reads it.
struct Fix {
  base::Timestamp time;
  double lat = 0;
  double lon = 0;
  std::string_view route_id;  // the feed's route name
};

/// Departures from the rows of the trips job (semantics §7): a trip whose GTFS trip
/// (by trip_id) is known and whose first position lies within trip_start_radius_m of
/// the first point of the trip's shape, else of its first stop, departs at its first
/// position's time. The service date is the trip's start date.
std::vector<Departure> DeparturesFromTrips(const std::vector<model::TripRow>& trips,
                                           const gtfs::StaticFeed& feed,
                                           const base::TimeZone& zone,
                                           const DepartureOptions& options = {});

/// Departures inferred from positions for routes whose feed carries no trip ids
/// (docs/semantics-notes.md, "Inferred departures"): a vehicle whose feed route resolves
/// (gtfs::RouteResolver) to a GTFS route departs when it leaves the zone around the
/// first point of one of that route's shapes and its next positions progress along that
/// shape; the direction is that shape's trips'. The departure time is when it crossed
/// the zone's edge, interpolated between the last position inside and the first
/// outside; the service date is that instant's local date.
///
/// Lifecycle: built once per feed; AddVehicle() per vehicle; const members are safe to
/// call from any number of threads.
class DepartureInference {
 public:
  DepartureInference(const gtfs::StaticFeed& feed, const gtfs::RouteResolver& routes,
                     const base::TimeZone& zone, DepartureOptions options = {});
  ~DepartureInference();
  DepartureInference(const DepartureInference&) = delete;
  DepartureInference& operator=(const DepartureInference&) = delete;

  /// Whether `feed_route_id` resolves to a route with at least one shape.
  [[nodiscard]] bool CanInfer(std::string_view feed_route_id) const;

  /// Appends the departures of one vehicle, given all its positions in time order.
  void AddVehicle(std::string_view feed_id, std::string_view vehicle_id,
                  std::span<const Fix> fixes, std::vector<Departure>& out) const;

 private:
  struct ShapeTrack;
  struct RouteShapes;
  const RouteShapes* ShapesFor(std::string_view feed_route_id) const;

  const gtfs::StaticFeed& feed_;
  const gtfs::RouteResolver& routes_;
  const base::TimeZone& zone_;
  DepartureOptions options_;
  std::vector<std::unique_ptr<ShapeTrack>> tracks_;
  std::unordered_map<const gtfs::Route*, std::unique_ptr<RouteShapes>> by_route_;
};

/// Every departure in a frota database: DeparturesFromTrips over its `trips` table, and
/// DepartureInference over the `positions` of every feed route that has no trip at all
/// (and resolves to a route with shapes). Sorted by route, direction, time.
base::Result<std::vector<Departure>> FindDepartures(sink::DuckDbConnection& db,
                                                    const gtfs::StaticFeed& feed,
                                                    const gtfs::RouteResolver& routes,
                                                    const base::TimeZone& zone,
                                                    const DepartureOptions& options = {});

}  // namespace frota::batch
