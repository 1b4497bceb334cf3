// What frota publishes as GTFS-Realtime VehiclePositions: each vehicle's latest accepted
// position, described against the static GTFS the jobs ran with (docs/serve.md, "The
// GTFS-Realtime feed", has the mapping field by field).
#pragma once

#include <chrono>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <tuple>
#include <unordered_map>
#include <vector>

#include "frota/base/status.h"
#include "frota/base/time.h"
#include "frota/base/time_zone.h"
#include "frota/codec/gtfs_rt_encode.h"
#include "frota/gtfs/route_resolver.h"
#include "frota/gtfs/static_feed.h"
#include "frota/serve/store.h"

namespace frota::serve {

/// Turns vehicles (Store::LatestPositions) and their departures (Store::LastDepartures,
/// Store::Departures) into VehiclePosition entities. Immutable once made: safe to use from
/// any number of threads.
class VehicleFeed {
 public:
  /// Without a GTFS: every id as the position feed gave it, no schedule relationship and
  /// no stop.
  VehicleFeed() = default;
  /// Against `gtfs` (which the jobs resolved routes and found departures with): fails
  /// when its agency time zone is unknown.
  static base::Result<VehicleFeed> ForGtfs(std::shared_ptr<const gtfs::StaticFeed> gtfs);

  /// A vehicle's speed under which a position within kAtStopM of a stop is at it.
  static constexpr double kStoppedKmh = 5;
  /// How close to a stop (location_type 0) a standing vehicle is "at" it, in metres.
  static constexpr double kAtStopM = 30;
  /// A departure describes the vehicle's trip for at most this long when the trip has no
  /// planned duration (stop_times) to bound it; never for longer than kLookback.
  static constexpr std::chrono::hours kLongestRun{3};
  static constexpr std::chrono::hours kLookback{6};
  /// A vehicle farther than this from its trip's shape is not on it (a layover off the
  /// route, a detour): its trip is then given by route and direction only. Below the
  /// 200 m at which consumers and validators (E029) call a vehicle off its trip.
  static constexpr double kOnShapeM = 150;

  VehicleFeed(VehicleFeed&&) noexcept = default;
  VehicleFeed& operator=(VehicleFeed&&) noexcept = default;
  VehicleFeed(const VehicleFeed&) = delete;
  VehicleFeed& operator=(const VehicleFeed&) = delete;
  ~VehicleFeed() = default;

  /// The GTFS route_short_name of `route_id`; nullptr without a GTFS, for a route it does
  /// not have, or one without a short name.
  [[nodiscard]] const std::string* RouteShortName(std::string_view route_id) const;

  /// One entity per vehicle, in the given order, aircraft left out (a GTFS-Realtime feed
  /// is for transit riders). `departures` are sorted by feed, vehicle and departure time
  /// (as both Store queries return them); a vehicle's is the last at or before its
  /// position that is still its run.
  [[nodiscard]] std::vector<codec::VehicleEntity> Describe(
      const std::vector<Vehicle>& vehicles, const std::vector<Departure>& departures) const;

 private:
  // A shape's segments by the cells their bounding box, grown by kOnShapeM,
  // touches.
  struct ShapeIndex {
    const gtfs::Shape* shape = nullptr;
    std::map<std::pair<std::int32_t, std::int32_t>, std::vector<std::uint32_t>> cells;
  };
  struct TripInfo {
    const gtfs::Trip* trip = nullptr;
    std::vector<const gtfs::Frequency*> frequencies;  // by start
    std::int32_t first_departure_s = -1;              // stop_times; -1 when it has none
    std::int32_t duration_s = -1;                     // first departure to last arrival
    const ShapeIndex* shape = nullptr;                // nullptr when it has none
  };
  struct RouteInfo {
    bool frequency_based = false;  // every trip of the route is exact_times = 0
  };
  // A departure placed on the GTFS: the trip instance it started, or only its route.
  struct Run {
    const TripInfo* trip = nullptr;
    std::string route_id;
    int direction_id = -1;
    std::string start_date;
    std::string start_time;
    codec::TripSchedule schedule = codec::TripSchedule::kUnset;
  };
  using PatternKey = std::tuple<std::string, std::string, int>;  // route, shape, direction
  // The services of each date asked for (StaticFeed::ActiveServices), filled as asked.
  struct ServiceCache {
    std::mutex mutex;
    std::map<base::LocalDate, std::set<std::string>> by_date;
  };

  void Index();
  const ShapeIndex& IndexShape(const gtfs::Shape& shape);
  void DescribeTrip(const model::Position& p, const Departure* departure,
                    codec::VehicleEntity& out) const;
  [[nodiscard]] std::optional<Run> RunOf(const Departure& d, base::Timestamp at) const;
  [[nodiscard]] const TripInfo* TripOf(const Departure& d, std::int32_t departure_s) const;
  [[nodiscard]] bool Runs(const TripInfo& trip, base::LocalDate date) const;
  [[nodiscard]] const gtfs::Stop* StopAt(double lat, double lon) const;
  [[nodiscard]] static bool OnShape(const TripInfo& trip, double lat, double lon);
  [[nodiscard]] codec::TripSchedule ScheduleOf(const TripInfo& trip) const;

  std::shared_ptr<const gtfs::StaticFeed> gtfs_;
  std::shared_ptr<const gtfs::RouteResolver> resolver_;
  std::optional<base::TimeZone> zone_;
  std::shared_ptr<ServiceCache> services_;
  std::unordered_map<std::string_view, TripInfo> trips_;
  std::unordered_map<std::string_view, RouteInfo> routes_;
  std::unordered_map<std::string_view, ShapeIndex> shapes_;
  std::map<PatternKey, std::vector<const TripInfo*>> patterns_;
  std::map<std::pair<std::int32_t, std::int32_t>, std::vector<const gtfs::Stop*>> stop_cells_;
};

/// What `--gtfs PATH` gives (a zip or a folder, loaded with gtfs::StaticFeed::Load): the
/// feed described against it; without a path, VehicleFeed().
base::Result<std::shared_ptr<const VehicleFeed>> LoadVehicleFeed(const std::string& gtfs_path);

/// The FeedMessage of `vehicles` as of `header_time` (whole seconds; no entity is later).
std::string EncodeVehicleFeed(const VehicleFeed& feed, const std::vector<Vehicle>& vehicles,
                              const std::vector<Departure>& departures,
                              base::Timestamp header_time);

}  // namespace frota::serve
