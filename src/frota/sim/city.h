// The built-in synthetic city: streets, routes with shapes and stops, timetables, boundary.
#pragma once

#include <array>
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "frota/base/status.h"
#include "frota/base/time.h"
#include "frota/geo/area.h"
#include "frota/sim/shape_path.h"
#include "frota/sim/traffic.h"

namespace frota::sim {

/// What the city is sized for.
struct CityOptions {
  /// Buses in service at the weekday peak; routes, streets and the city's extent grow
  /// with it (3,600 is Rio de Janeiro's bus fleet).
  std::int32_t vehicles = 3600;
  std::uint64_t seed = 1;
  /// The calendar is valid for a year around this date.
  base::LocalDate date{};
};

/// Day types of the city's calendar: service ids U (weekday), S (Saturday), D (Sunday
/// and holidays), as the Rio BRT GTFS names them.
inline constexpr std::array<char, 3> kServiceIds = {'U', 'S', 'D'};

struct CityStop {
  std::string id;
  std::string name;
  LatLon position;
};

struct CityRoute {
  std::string id;  // also its short name, e.g. "317"
  std::string long_name;
  bool frequency_based = false;  // trips.txt templates + frequencies.txt, like Rio's BRT
  bool night = false;            // runs around the clock
  bool peak_only = false;        // weekdays 06-09 and 16-20 h only (frequency-based)
  bool night_only = false;       // every day 22:00-05:00 (GTFS times past 24:00)
  double peak_headway_s = 600;
  std::array<std::string, 2> shape_id;
  std::array<ShapePath, 2> shape;                  // direction 1 is direction 0 reversed
  std::array<std::vector<std::int32_t>, 2> stops;  // indexes into City::stops, travel order
  std::array<std::vector<double>, 2> stop_s;       // metres along the shape of each stop
};

/// One row of trips.txt with its stop times: an explicit trip, or a frequency template.
struct CityTrip {
  std::string id;
  std::int32_t route = 0;
  std::int8_t direction = 0;
  char service = 'U';
  std::int32_t departure_s = 0;             // at the first stop, seconds of the service day
  std::vector<std::int32_t> stop_offset_s;  // arrival at each stop, after departure_s
};

/// One row of frequencies.txt.
struct CityFrequency {
  std::string trip_id;
  std::int32_t start_s = 0;
  std::int32_t end_s = 0;
  std::int32_t headway_s = 0;
};

/// A whole synthetic city, deterministic for its options. Plain data.
struct City {
  std::string name = "Cidade Sintetica";
  std::string agency_id = "SIM";
  std::string time_zone = "America/Sao_Paulo";
  LatLon center;
  double width_m = 0;  // extent of the street grid
  double height_m = 0;
  std::vector<geo::Ring> boundary;  // mainland and one island, closed (lon, lat) rings
  TrafficModel traffic;
  std::vector<CityStop> stops;
  std::vector<CityRoute> routes;
  std::vector<CityTrip> trips;
  std::vector<CityFrequency> frequencies;
  base::LocalDate calendar_start{};
  base::LocalDate calendar_end{};
  std::vector<base::LocalDate> holidays;   // national holidays in the calendar's range
  std::int32_t planned_peak_vehicles = 0;  // weekday peak of the planned blocks
};

/// Builds the city: a jittered street grid, routes along it (a few frequency-based),
/// stops at intersections, weekday/Saturday/Sunday timetables whose weekday peak needs
/// about `options.vehicles` buses, slow areas, and a boundary enclosing the streets.
City BuildCity(const CityOptions& options);

/// Writes the city as a GTFS folder: agency, routes, trips, stops, stop_times, shapes,
/// frequencies, calendar, calendar_dates (and feed_info).
base::Status WriteCityGtfs(const City& city, const std::filesystem::path& dir);

/// Writes the boundary as a GeoJSON FeatureCollection of one MultiPolygon feature: the
/// area file replay and run read. Slow areas live only in the City, not in this file.
base::Status WriteCityGeoJson(const City& city, const std::filesystem::path& file);

/// The planned running time of a trip: arrival offsets at each stop of `stop_s`, for a
/// departure at local second-of-day `departure_s`, with `dwell_s` at every
/// intermediate stop, driving at the traffic model's expected speed.
std::vector<std::int32_t> PlanRunningTimes(const ShapePath& shape,
                                           const std::vector<double>& stop_s,
                                           const TrafficModel& traffic, std::int32_t departure_s,
                                           double dwell_s);

}  // namespace frota::sim
