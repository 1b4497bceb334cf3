#include "frota/sim/city.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <nlohmann/json.hpp>
#include <numbers>

#include "frota/base/file.h"
#include "frota/geo/area.h"
#include "frota/sim/random.h"
#include "frota/sim/schedule.h"

namespace frota::sim {

namespace fs = std::filesystem;

namespace {

constexpr double kBlockX = 600;  // street grid spacing, metres
constexpr double kBlockY = 520;
constexpr double kNodeJitterM = 40;
constexpr double kPlannedDwellS = 20;
constexpr double kPlannedLayoverS = 300;
constexpr std::int32_t kDay = 24 * 3600;

// Headway multiplier per service and local hour (1.0 = the route's weekday peak headway).
double HeadwayMultiplier(char service, int hour) {
  static constexpr std::array<double, 24> kWeekday = {3.0, 3.0, 3.0, 3.0, 2.5, 1.5, 1.1, 1.0,
                                                      1.0, 1.3, 1.6, 1.6, 1.6, 1.6, 1.6, 1.6,
                                                      1.2, 1.0, 1.0, 1.3, 1.7, 2.2, 2.2, 2.2};
  const double base = kWeekday[static_cast<std::size_t>(std::clamp(hour, 0, 23))];
  switch (service) {
    case 'S':
      return std::max(base, 1.3) * 1.4;
    case 'D':
      return std::max(base, 1.3) * 1.9;
    default:
      return base;
  }
}

struct Node {
  std::int32_t i;
  std::int32_t j;
};

// Departure times of one route, direction and service, in seconds of the service day.
// Frequency-based routes: one window per hour, and the instances PlanDay expands them to.
struct DirectionTimetable {
  std::vector<std::int32_t> departures;
  std::vector<CityFrequency> windows;  // trip_id left empty
};

DirectionTimetable Timetable(const CityRoute& route, char service, int direction,
                             std::uint64_t seed, std::int32_t route_index) {
  Rng rng =
      Rng::For(seed, "timetable",
               static_cast<std::uint64_t>(route_index) * 8 +
                   static_cast<std::uint64_t>(direction) * 3 + static_cast<std::uint64_t>(service));
  DirectionTimetable out;
  const auto headway_at = [&](std::int32_t t) {
    const int hour = (t / 3600) % 24;
    return std::max<std::int32_t>(
        120, static_cast<std::int32_t>(
                 std::lround(route.peak_headway_s * HeadwayMultiplier(service, hour))));
  };
  std::int32_t first =
      route.night ? 0 : 4 * 3600 + 1800 + static_cast<std::int32_t>(rng.UniformInt(0, 1200));
  if (route.night_only) {
    first = 22 * 3600;
  }
  if (direction == 1) {
    first += headway_at(first) / 2;
  }
  const std::int32_t last =
      route.night ? kDay - 60 : (route.night_only ? kDay + 5 * 3600 : 23 * 3600 + 1800);
  if (route.peak_only) {
    // Two service periods with a planned break between them, weekdays only.
    if (service != 'U') {
      return out;
    }
    for (const auto& [from, to] : {std::pair(6, 9), std::pair(16, 20)}) {
      for (std::int32_t hour = from; hour < to; ++hour) {
        CityFrequency window;
        window.start_s =
            hour * 3600 + (direction == 1 && hour == from ? headway_at(hour * 3600) / 2 : 0);
        window.end_s = (hour + 1) * 3600;
        window.headway_s = headway_at(window.start_s);
        for (std::int32_t t = window.start_s; t < window.end_s; t += window.headway_s) {
          out.departures.push_back(t);
        }
        out.windows.push_back(window);
      }
    }
    return out;
  }
  if (route.frequency_based) {
    for (std::int32_t hour = first / 3600; hour < 24; ++hour) {
      CityFrequency window;
      window.start_s = std::max(first, hour * 3600);
      window.end_s = std::min(last + 1, (hour + 1) * 3600);
      window.headway_s = headway_at(window.start_s);
      if (window.end_s <= window.start_s) {
        continue;
      }
      for (std::int32_t t = window.start_s; t < window.end_s; t += window.headway_s) {
        out.departures.push_back(t);
      }
      out.windows.push_back(window);
    }
    return out;
  }
  for (std::int32_t t = first; t <= last; t += headway_at(t)) {
    out.departures.push_back(t);
  }
  return out;
}

std::int32_t PeakOfWeekday(const City& city, std::uint64_t seed) {
  std::vector<BlockInput> inputs;
  for (std::size_t r = 0; r < city.routes.size(); ++r) {
    const CityRoute& route = city.routes[r];
    for (int d = 0; d < 2; ++d) {
      const auto table = Timetable(route, 'U', d, seed, static_cast<std::int32_t>(r));
      for (const std::int32_t departure : table.departures) {
        const auto offsets = PlanRunningTimes(route.shape[d], {}, city.traffic, departure, 0);
        const double dwell = kPlannedDwellS * static_cast<double>(route.stops[d].size());
        BlockInput input;
        input.group = static_cast<std::int32_t>(r);
        input.departure_s = departure;
        input.arrival_s = departure + offsets.back() + static_cast<std::int32_t>(dwell);
        input.start = route.shape[d].points().front();
        input.end = route.shape[d].points().back();
        inputs.push_back(input);
      }
    }
  }
  const auto blocks = BuildBlocks(inputs, BlockOptions{});
  return PeakVehicles(inputs, blocks, 600, 300);
}

std::string StopName(const Node& node) {
  return fmt::format("Rua {} x Avenida {}", node.i + 1, node.j + 1);
}

// Inclusive integer steps from a to b.
std::vector<std::int32_t> Steps(std::int32_t a, std::int32_t b) {
  std::vector<std::int32_t> out;
  const std::int32_t step = b >= a ? 1 : -1;
  for (std::int32_t v = a;; v += step) {
    out.push_back(v);
    if (v == b) {
      break;
    }
  }
  return out;
}

}  // namespace

std::vector<std::int32_t> PlanRunningTimes(const ShapePath& shape,
                                           const std::vector<double>& stop_s,
                                           const TrafficModel& traffic, std::int32_t departure_s,
                                           double dwell_s) {
  const double length = shape.length_m();
  std::vector<double> marks = stop_s;
  if (marks.empty() || marks.back() < length) {
    marks.push_back(length);
  }
  std::vector<std::int32_t> offsets;
  double t = departure_s;
  double s = 0;
  for (std::size_t k = 0; k < marks.size(); ++k) {
    const double b = std::clamp(marks[k], 0.0, length);
    if (b > s) {
      const int hour = static_cast<int>(std::floor(t / 3600.0)) % 24;
      const double v = traffic.SpeedMps(hour, shape.At((s + b) / 2));
      t += (b - s) / std::max(v, 0.5);
      s = b;
    }
    if (k < stop_s.size() || stop_s.empty()) {
      offsets.push_back(static_cast<std::int32_t>(std::lround(t - departure_s)));
    }
    if (b > 0 && b < length) {
      t += dwell_s;
    }
  }
  if (!stop_s.empty() && offsets.size() > stop_s.size()) {
    offsets.resize(stop_s.size());
  }
  return offsets;
}

City BuildCity(const CityOptions& options) {
  City city;
  const double vehicles = std::max(options.vehicles, 10);
  const double scale = std::sqrt(vehicles / 3600.0);
  city.width_m = std::max(6000.0, 36000.0 * scale);
  city.height_m = city.width_m * 0.6;
  city.center = {-22.90, -43.35};
  const LocalPlane plane(city.center);
  Rng rng = Rng::For(options.seed, "city");

  // Streets: a jittered grid of intersections; every intersection is a stop.
  const auto cols = static_cast<std::int32_t>(city.width_m / kBlockX) + 1;
  const auto rows = static_cast<std::int32_t>(city.height_m / kBlockY) + 1;
  std::vector<LatLon> nodes(static_cast<std::size_t>(cols * rows));
  for (std::int32_t j = 0; j < rows; ++j) {
    for (std::int32_t i = 0; i < cols; ++i) {
      const double x = -city.width_m / 2 + i * kBlockX + rng.Uniform(-kNodeJitterM, kNodeJitterM);
      const double y = -city.height_m / 2 + j * kBlockY + rng.Uniform(-kNodeJitterM, kNodeJitterM);
      nodes[static_cast<std::size_t>(j) * static_cast<std::size_t>(cols) +
            static_cast<std::size_t>(i)] = plane.ToLatLon(x, y);
    }
  }
  const auto node_at = [&](const Node& n) {
    return nodes[static_cast<std::size_t>(n.j) * static_cast<std::size_t>(cols) +
                 static_cast<std::size_t>(n.i)];
  };

  // Slow areas: a congested centre, and more of them in bigger cities.
  static constexpr std::array<const char*, 8> kAreaNames = {
      "Centro", "Zona Sul", "Madureira", "Barra", "Meier", "Campo Grande", "Tijuca", "Penha"};
  const auto area_count = std::clamp<std::size_t>(
      static_cast<std::size_t>(std::lround(vehicles / 1200)), 1, kAreaNames.size());
  for (std::size_t k = 0; k < area_count; ++k) {
    SlowArea area;
    area.name = kAreaNames[k];
    const double x =
        k == 0 ? rng.Uniform(-0.1, 0.1) * city.width_m : rng.Uniform(-0.35, 0.35) * city.width_m;
    const double y =
        k == 0 ? rng.Uniform(-0.1, 0.1) * city.height_m : rng.Uniform(-0.35, 0.35) * city.height_m;
    area.center = plane.ToLatLon(x, y);
    area.radius_m = std::max(800.0, 0.08 * city.width_m);
    area.factor = k == 0 ? 0.55 : 0.65;
    city.traffic.slow_areas.push_back(area);
  }

  // Routes: terminal A, a terminal B at about the target length, an L or Z path on the grid.
  // As many routes as keep the peak headway near 10 minutes: a route needs about its
  // round-trip time over the headway in buses (Rio: ~2 h / 10 min, 12 buses a route).
  const double mean_length = std::max(2000.0, 0.3 * (city.width_m + city.height_m));
  const double peak_mps = city.traffic.free_flow_kmh / 3.6 * 0.55;
  const double round_trip_s =
      2 * (mean_length / peak_mps + mean_length / kBlockX * kPlannedDwellS) + 2 * kPlannedLayoverS;
  const auto route_count = std::max<std::int32_t>(
      2, static_cast<std::int32_t>(std::lround(vehicles / (round_trip_s / 600))));
  std::map<std::int32_t, std::int32_t> stop_of_node;  // node index -> stop index (served nodes)
  const auto stop_for = [&](const Node& n) {
    const std::int32_t key = n.j * cols + n.i;
    const auto [it, inserted] =
        stop_of_node.try_emplace(key, static_cast<std::int32_t>(city.stops.size()));
    if (inserted) {
      city.stops.push_back({fmt::format("S{:03d}{:03d}", n.i, n.j), StopName(n), node_at(n)});
    }
    return it->second;
  };
  for (std::int32_t r = 0; r < route_count; ++r) {
    Rng route_rng = Rng::For(options.seed, "route", static_cast<std::uint64_t>(r));
    const double target =
        std::max(2000.0, route_rng.Uniform(0.2, 0.4) * (city.width_m + city.height_m));
    const Node a{static_cast<std::int32_t>(route_rng.UniformInt(0, cols - 1)),
                 static_cast<std::int32_t>(route_rng.UniformInt(0, rows - 1))};
    Node b = a;
    double best = -1;
    for (int attempt = 0; attempt < 200; ++attempt) {
      const Node candidate{static_cast<std::int32_t>(route_rng.UniformInt(0, cols - 1)),
                           static_cast<std::int32_t>(route_rng.UniformInt(0, rows - 1))};
      const double length =
          std::abs(candidate.i - a.i) * kBlockX + std::abs(candidate.j - a.j) * kBlockY;
      const double miss = std::abs(length - target);
      if (length > 0 && (best < 0 || miss < best)) {
        best = miss;
        b = candidate;
      }
    }
    std::vector<Node> path;
    const auto append = [&](const Node& n) {
      if (path.empty() || path.back().i != n.i || path.back().j != n.j) {
        path.push_back(n);
      }
    };
    if (route_rng.Bernoulli(0.5)) {  // along the street first, then the avenue, then the street
      const auto mid =
          static_cast<std::int32_t>(route_rng.UniformInt(std::min(a.i, b.i), std::max(a.i, b.i)));
      for (const auto i : Steps(a.i, mid)) append({i, a.j});
      for (const auto j : Steps(a.j, b.j)) append({mid, j});
      for (const auto i : Steps(mid, b.i)) append({i, b.j});
    } else {
      const auto mid =
          static_cast<std::int32_t>(route_rng.UniformInt(std::min(a.j, b.j), std::max(a.j, b.j)));
      for (const auto j : Steps(a.j, mid)) append({a.i, j});
      for (const auto i : Steps(a.i, b.i)) append({i, mid});
      for (const auto j : Steps(mid, b.j)) append({b.i, j});
    }
    CityRoute route;
    route.id = fmt::format("{}", 100 + r);
    route.night = r % 5 == 0;
    route.peak_only = !route.night && r % 6 == 3;
    route.night_only = !route.night && !route.peak_only && r % 10 == 4;
    route.frequency_based = r % 8 == 7 || route.peak_only;
    route.long_name = fmt::format("{} - {}", StopName(path.front()), StopName(path.back()));
    for (int d = 0; d < 2; ++d) {
      std::vector<Node> ordered = path;
      if (d == 1) {
        std::reverse(ordered.begin(), ordered.end());
      }
      std::vector<LatLon> points;
      for (const auto& n : ordered) {
        points.push_back(node_at(n));
        route.stops[d].push_back(stop_for(n));
      }
      route.shape[d] = ShapePath(std::move(points));
      route.stop_s[d] = route.shape[d].cumulative();
      route.shape_id[d] = fmt::format("{}_{}", route.id, d);
    }
    city.routes.push_back(std::move(route));
  }

  // Headways: each route's weekday peak headway so that the peak fleet is `vehicles`.
  double needed = 0;
  for (std::int32_t r = 0; r < route_count; ++r) {
    auto& route = city.routes[static_cast<std::size_t>(r)];
    Rng route_rng = Rng::For(options.seed, "headway", static_cast<std::uint64_t>(r));
    double cycle = 2 * kPlannedLayoverS;
    for (int d = 0; d < 2; ++d) {
      cycle += PlanRunningTimes(route.shape[d], {}, city.traffic, 7 * 3600 + 1800, 0).back() +
               kPlannedDwellS * static_cast<double>(route.stops[d].size());
    }
    route.peak_headway_s = route_rng.Uniform(6, 14) * 60;
    needed += cycle / route.peak_headway_s;
  }
  for (auto& route : city.routes) {
    route.peak_headway_s *= needed / vehicles;
  }
  for (int pass = 0; pass < 3; ++pass) {
    city.planned_peak_vehicles = PeakOfWeekday(city, options.seed);
    const double correction = static_cast<double>(city.planned_peak_vehicles) / vehicles;
    if (std::abs(correction - 1) < 0.01) {
      break;
    }
    for (auto& route : city.routes) {
      route.peak_headway_s *= correction;
    }
  }
  city.planned_peak_vehicles = PeakOfWeekday(city, options.seed);

  // Timetables of the three day types.
  for (std::int32_t r = 0; r < route_count; ++r) {
    const CityRoute& route = city.routes[static_cast<std::size_t>(r)];
    for (const char service : kServiceIds) {
      for (int d = 0; d < 2; ++d) {
        const auto table = Timetable(route, service, d, options.seed, r);
        if (route.frequency_based) {
          if (table.windows.empty()) {
            continue;
          }
          CityTrip trip;
          trip.id = fmt::format("{}_{}_{}_F", route.id, service, d);
          trip.route = r;
          trip.direction = static_cast<std::int8_t>(d);
          trip.service = service;
          trip.departure_s = table.windows.front().start_s;
          trip.stop_offset_s = PlanRunningTimes(route.shape[d], route.stop_s[d], city.traffic,
                                                trip.departure_s, kPlannedDwellS);
          for (auto window : table.windows) {
            window.trip_id = trip.id;
            city.frequencies.push_back(window);
          }
          city.trips.push_back(std::move(trip));
          continue;
        }
        std::int32_t sequence = 0;
        for (const std::int32_t departure : table.departures) {
          CityTrip trip;
          trip.id = fmt::format("{}_{}_{}_{:03d}", route.id, service, d, ++sequence);
          trip.route = r;
          trip.direction = static_cast<std::int8_t>(d);
          trip.service = service;
          trip.departure_s = departure;
          trip.stop_offset_s = PlanRunningTimes(route.shape[d], route.stop_s[d], city.traffic,
                                                departure, kPlannedDwellS);
          city.trips.push_back(std::move(trip));
        }
      }
    }
  }

  // Calendar: a year around the date, with Brazil's fixed national holidays.
  using std::chrono::days;
  city.calendar_start = options.date - days(183);
  city.calendar_end = options.date + days(183);
  static constexpr std::array<std::pair<unsigned, unsigned>, 9> kHolidays = {
      {{1, 1}, {4, 21}, {5, 1}, {9, 7}, {10, 12}, {11, 2}, {11, 15}, {11, 20}, {12, 25}}};
  for (auto day = city.calendar_start; day <= city.calendar_end; day += days(1)) {
    const std::chrono::year_month_day ymd(day);
    for (const auto& [month, dom] : kHolidays) {
      if (static_cast<unsigned>(ymd.month()) == month && static_cast<unsigned>(ymd.day()) == dom &&
          !(month == 11 && dom == 20 && static_cast<int>(ymd.year()) < 2024)) {
        city.holidays.push_back(day);
      }
    }
  }

  // Boundary: a wobbly ellipse well around the streets, plus an island offshore.
  for (double grow = 1.0;; grow *= 1.1) {
    const double phase1 = rng.Uniform(0, 2 * std::numbers::pi);
    const double phase2 = rng.Uniform(0, 2 * std::numbers::pi);
    geo::Ring mainland;
    constexpr int kVertices = 48;
    for (int k = 0; k < kVertices; ++k) {
      const double theta = 2 * std::numbers::pi * k / kVertices;
      const double wobble =
          1 + 0.06 * std::sin(2 * theta + phase1) + 0.04 * std::sin(5 * theta + phase2);
      const double x = 0.85 * city.width_m * grow * wobble * std::cos(theta);
      const double y = 0.85 * city.height_m * grow * wobble * std::sin(theta);
      const LatLon p = plane.ToLatLon(x, y);
      mainland.emplace_back(p.lon, p.lat);
    }
    mainland.push_back(mainland.front());
    const double island_theta = rng.Uniform(0, 2 * std::numbers::pi);
    const double island_r = 0.04 * city.width_m;
    const double ix = (0.85 * 1.25 * grow * city.width_m + island_r) * std::cos(island_theta);
    const double iy = (0.85 * 1.25 * grow * city.height_m + island_r) * std::sin(island_theta);
    geo::Ring island;
    for (int k = 0; k < 10; ++k) {
      const double theta = 2 * std::numbers::pi * k / 10;
      const LatLon p =
          plane.ToLatLon(ix + island_r * std::cos(theta), iy + island_r * 0.7 * std::sin(theta));
      island.emplace_back(p.lon, p.lat);
    }
    island.push_back(island.front());
    auto area = geo::Area::FromRings({mainland, island}, "city");
    bool all_inside = area.ok();
    for (std::size_t n = 0; all_inside && n < nodes.size(); ++n) {
      all_inside = area->Contains(nodes[n].lat, nodes[n].lon);
    }
    if (all_inside) {
      city.boundary = {std::move(mainland), std::move(island)};
      break;
    }
  }
  return city;
}

namespace {

std::string Coordinate(double value) { return fmt::format("{:.6f}", value); }

}  // namespace

base::Status WriteCityGtfs(const City& city, const fs::path& dir) {
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) {
    return base::IoError("{}: cannot create: {}", dir.string(), ec.message());
  }
  const auto write = [&](std::string_view name, const fmt::memory_buffer& text) {
    return base::WriteFileAtomic(dir / name, std::string_view(text.data(), text.size()));
  };
  // example.com (RFC 2606) is a real URL's form that names no real agency: validators
  // refuse the reserved .invalid top-level domain, which leaves the whole feed unusable.
  constexpr std::string_view kUrl = "https://example.com/frota-simulate";
  fmt::memory_buffer out;
  fmt::format_to(std::back_inserter(out),
                 "agency_id,agency_name,agency_url,agency_timezone,agency_lang\n{},{},{},{},pt\n",
                 city.agency_id, city.name, kUrl, city.time_zone);
  FROTA_RETURN_IF_ERROR(write("agency.txt", out));

  out.clear();
  fmt::format_to(std::back_inserter(out),
                 "feed_publisher_name,feed_publisher_url,feed_lang,feed_start_date,feed_end_date,"
                 "feed_version,feed_contact_url\nfrota simulate,{},pt,{},{},{}-{},{}\n",
                 kUrl, base::FormatGtfsDate(city.calendar_start),
                 base::FormatGtfsDate(city.calendar_end), base::FormatGtfsDate(city.calendar_start),
                 base::FormatGtfsDate(city.calendar_end), kUrl);
  FROTA_RETURN_IF_ERROR(write("feed_info.txt", out));

  out.clear();
  fmt::format_to(std::back_inserter(out),
                 "route_id,agency_id,route_short_name,route_long_name,route_type\n");
  for (const auto& route : city.routes) {
    fmt::format_to(std::back_inserter(out), "{},{},{},\"{}\",3\n", route.id, city.agency_id,
                   route.id, route.long_name);
  }
  FROTA_RETURN_IF_ERROR(write("routes.txt", out));

  out.clear();
  fmt::format_to(std::back_inserter(out), "stop_id,stop_name,stop_lat,stop_lon\n");
  for (const auto& stop : city.stops) {
    fmt::format_to(std::back_inserter(out), "{},\"{}\",{},{}\n", stop.id, stop.name,
                   Coordinate(stop.position.lat), Coordinate(stop.position.lon));
  }
  FROTA_RETURN_IF_ERROR(write("stops.txt", out));

  out.clear();
  fmt::format_to(std::back_inserter(out),
                 "shape_id,shape_pt_lat,shape_pt_lon,shape_pt_sequence,shape_dist_traveled\n");
  for (const auto& route : city.routes) {
    for (int d = 0; d < 2; ++d) {
      const auto& points = route.shape[d].points();
      for (std::size_t k = 0; k < points.size(); ++k) {
        fmt::format_to(std::back_inserter(out), "{},{},{},{},{:.1f}\n", route.shape_id[d],
                       Coordinate(points[k].lat), Coordinate(points[k].lon), k + 1,
                       route.shape[d].cumulative()[k]);
      }
    }
  }
  FROTA_RETURN_IF_ERROR(write("shapes.txt", out));

  out.clear();
  fmt::format_to(std::back_inserter(out),
                 "route_id,service_id,trip_id,trip_headsign,direction_id,shape_id\n");
  for (const auto& trip : city.trips) {
    const auto& route = city.routes[static_cast<std::size_t>(trip.route)];
    const auto& last_stop =
        city.stops[static_cast<std::size_t>(route.stops[trip.direction].back())];
    fmt::format_to(std::back_inserter(out), "{},{},{},\"{}\",{},{}\n", route.id, trip.service,
                   trip.id, last_stop.name, trip.direction, route.shape_id[trip.direction]);
  }
  FROTA_RETURN_IF_ERROR(write("trips.txt", out));

  out.clear();
  fmt::format_to(std::back_inserter(out),
                 "trip_id,arrival_time,departure_time,stop_id,stop_sequence,shape_dist_traveled\n");
  for (const auto& trip : city.trips) {
    const auto& route = city.routes[static_cast<std::size_t>(trip.route)];
    const auto& stops = route.stops[trip.direction];
    for (std::size_t k = 0; k < stops.size(); ++k) {
      const std::int32_t arrival = trip.departure_s + trip.stop_offset_s[k];
      const bool intermediate = k > 0 && k + 1 < stops.size();
      const std::int32_t departure =
          arrival + (intermediate ? static_cast<std::int32_t>(kPlannedDwellS) : 0);
      fmt::format_to(std::back_inserter(out), "{},{},{},{},{},{:.1f}\n", trip.id,
                     base::FormatGtfsTime(arrival), base::FormatGtfsTime(departure),
                     city.stops[static_cast<std::size_t>(stops[k])].id, k + 1,
                     route.stop_s[trip.direction][k]);
    }
  }
  FROTA_RETURN_IF_ERROR(write("stop_times.txt", out));

  out.clear();
  fmt::format_to(std::back_inserter(out), "trip_id,start_time,end_time,headway_secs,exact_times\n");
  for (const auto& frequency : city.frequencies) {
    fmt::format_to(std::back_inserter(out), "{},{},{},{},0\n", frequency.trip_id,
                   base::FormatGtfsTime(frequency.start_s), base::FormatGtfsTime(frequency.end_s),
                   frequency.headway_s);
  }
  FROTA_RETURN_IF_ERROR(write("frequencies.txt", out));

  out.clear();
  fmt::format_to(std::back_inserter(out),
                 "service_id,monday,tuesday,wednesday,thursday,friday,saturday,sunday,start_date,"
                 "end_date\n");
  const auto start = base::FormatGtfsDate(city.calendar_start);
  const auto end = base::FormatGtfsDate(city.calendar_end);
  fmt::format_to(std::back_inserter(out), "U,1,1,1,1,1,0,0,{},{}\n", start, end);
  fmt::format_to(std::back_inserter(out), "S,0,0,0,0,0,1,0,{},{}\n", start, end);
  fmt::format_to(std::back_inserter(out), "D,0,0,0,0,0,0,1,{},{}\n", start, end);
  FROTA_RETURN_IF_ERROR(write("calendar.txt", out));

  out.clear();
  fmt::format_to(std::back_inserter(out), "service_id,date,exception_type\n");
  for (const auto& day : city.holidays) {
    const std::chrono::weekday weekday(day);
    const std::string date = base::FormatGtfsDate(day);
    if (weekday == std::chrono::Sunday) {
      continue;  // Sunday service anyway
    }
    fmt::format_to(std::back_inserter(out), "{},{},2\n",
                   weekday == std::chrono::Saturday ? 'S' : 'U', date);
    fmt::format_to(std::back_inserter(out), "D,{},1\n", date);
  }
  FROTA_RETURN_IF_ERROR(write("calendar_dates.txt", out));
  return base::Status::Ok();
}

base::Status WriteCityGeoJson(const City& city, const fs::path& file) {
  nlohmann::ordered_json polygons = nlohmann::ordered_json::array();
  for (const auto& ring : city.boundary) {
    nlohmann::ordered_json coordinates = nlohmann::ordered_json::array();
    for (const auto& [lon, lat] : ring) {
      coordinates.push_back({std::round(lon * 1e7) / 1e7, std::round(lat * 1e7) / 1e7});
    }
    polygons.push_back(nlohmann::ordered_json::array({coordinates}));
  }
  nlohmann::ordered_json features = nlohmann::ordered_json::array();
  nlohmann::ordered_json boundary;
  boundary["type"] = "Feature";
  boundary["properties"] = {{"name", city.name}, {"kind", "boundary"}};
  boundary["geometry"] = {{"type", "MultiPolygon"}, {"coordinates", polygons}};
  features.push_back(boundary);
  nlohmann::ordered_json document;
  document["type"] = "FeatureCollection";
  document["features"] = features;
  std::error_code ec;
  fs::create_directories(file.parent_path().empty() ? fs::path(".") : file.parent_path(), ec);
  return base::WriteFileAtomic(file, document.dump(1) + "\n");
}

}  // namespace frota::sim
