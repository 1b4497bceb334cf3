// The data model, core sections: dictionaries made JSON, hour tables, cells, geo, stops, quality.
#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <string_view>
#include <tuple>
#include <unordered_map>

#include "frota/base/file.h"
#include "frota/base/time.h"
#include "frota/dashboard/data_model_builder.h"
#include "frota/gtfs/route_resolver.h"
#include "frota/model/mode.h"

namespace frota::dashboard::detail {

Json Builder::SourceSection() const {
  Json s;
  s["db"] = options_.db_name;
  s["gtfs"] = options_.gtfs_name;
  s["area"] = options_.area_name;
  s["time_zone"] = options_.time_zone.name();
  return s;
}

Json Builder::DatesSection() const {
  Json dates = Json::array();
  for (const int32_t day : days_) {
    dates.push_back(base::FormatDate(base::LocalDateFromDays(day)));
  }
  return dates;
}

Json Builder::LinesSection() const {
  std::vector<int32_t> mode;
  std::vector<std::string> route, name, long_name;
  for (const auto& line : lines_) {
    mode.push_back(line.mode);
    route.push_back(line.route);
    name.push_back(line.gtfs_route != nullptr ? line.gtfs_route->short_name : "");
    long_name.push_back(line.gtfs_route != nullptr ? line.gtfs_route->long_name : "");
  }
  Json s;
  s["mode"] = mode;
  s["route"] = route;
  s["name"] = name;
  s["long_name"] = long_name;
  s["in_gtfs"] = Json::array();
  for (const auto& line : lines_) {
    s["in_gtfs"].push_back(line.gtfs_route != nullptr ? 1 : 0);
  }
  return s;
}

/// Days that count as "a day" when hour tables summed over dates are divided into a mean
/// per day: the dates with at least a tenth of the busiest date's positions, per key. A
/// service day spills a little into the dates around it (trips after midnight, a vehicle
/// leaving the depot at 23:50); those slivers add to the sums but are not days of their
/// own, or a single simulated day would read as three and every mean as a third.
std::vector<int64_t> Builder::FullDays(
    const std::map<std::pair<int32_t, int32_t>, int64_t>& positions_by_key_day, std::size_t keys) {
  std::vector<int64_t> busiest(keys, 0), days(keys, 0);
  for (const auto& [key_day, n] : positions_by_key_day) {
    busiest[key_day.first] = std::max(busiest[key_day.first], n);
  }
  for (const auto& [key_day, n] : positions_by_key_day) {
    if (n * 10 >= busiest[key_day.first] && n > 0) {
      ++days[key_day.first];
    }
  }
  return days;
}

// Distinct counts that cannot be summed from hour tables: vehicles and service days per
// line, per mode and overall, from the positions.
Json Builder::TotalsSection() {
  const auto n_lines = lines_.size();
  // (line, hour, day, vehicle) distinct → vehicle-days per line-hour.
  Dictionary vehicles;
  std::vector<std::tuple<int32_t, int32_t, int32_t, int32_t>> lhdv;
  line_positions_.assign(n_lines * kHours, 0);
  for (const auto& b : buckets_) {
    const int32_t line = LineOf(b.mode, b.route);
    const auto local = LocalHourOf(b.bucket_us);
    const int32_t vehicle = vehicles.Add(b.feed + '\x1f' + b.vehicle);
    lhdv.emplace_back(line, local.hour, base::DaysSinceEpoch(local.date), vehicle);
    line_positions_[static_cast<std::size_t>(line) * kHours + local.hour] += b.positions;
  }
  std::sort(lhdv.begin(), lhdv.end());
  lhdv.erase(std::unique(lhdv.begin(), lhdv.end()), lhdv.end());
  line_vehicle_days_.assign(n_lines * kHours, 0);
  std::set<std::pair<int32_t, int32_t>> line_vehicle, mode_vehicle;
  // Which feeds carry each line and mode: quality is per feed, the page maps filters to feeds.
  std::set<std::pair<int32_t, int32_t>> line_feed, feed_mode;
  for (const auto& b : buckets_) {
    const int32_t line = LineOf(b.mode, b.route);
    line_feed.emplace(line, *feeds_.Find(b.feed));
    feed_mode.emplace(*feeds_.Find(b.feed), lines_[line].mode);
  }
  for (const auto& st : stops_) {
    const int32_t line = LineOf(st.mode, st.route);
    line_feed.emplace(line, *feeds_.Find(st.feed));
    feed_mode.emplace(*feeds_.Find(st.feed), lines_[line].mode);
  }
  std::set<int32_t> all_vehicles;
  for (const auto& [line, hour, day, vehicle] : lhdv) {
    ++line_vehicle_days_[static_cast<std::size_t>(line) * kHours + hour];
    line_vehicle.emplace(line, vehicle);
    mode_vehicle.emplace(lines_[line].mode, vehicle);
    all_vehicles.insert(vehicle);
  }
  std::vector<int64_t> per_line(n_lines, 0);
  for (const auto& [line, vehicle] : line_vehicle) {
    ++per_line[line];
  }
  std::map<std::pair<int32_t, int32_t>, int64_t> line_day_positions;
  for (const auto& b : buckets_) {
    line_day_positions[{LineOf(b.mode, b.route),
                        base::DaysSinceEpoch(LocalHourOf(b.bucket_us).date)}] += b.positions;
  }
  const auto line_days = FullDays(line_day_positions, n_lines);
  std::vector<int64_t> per_mode(modes_.size(), 0);
  for (const auto& [mode, vehicle] : mode_vehicle) {
    ++per_mode[mode];
  }
  // Service days per mode from fleet_hours (it has every mode's hours, even without a line).
  std::map<std::pair<int32_t, int32_t>, int64_t> mode_day_positions;
  std::map<std::pair<int32_t, int32_t>, int64_t> day_positions;
  for (const auto& f : fleet_) {
    mode_day_positions[{*modes_.Find(f.mode), f.day}] += f.positions;
    day_positions[{0, f.day}] += f.positions;
  }
  const auto mode_days = FullDays(mode_day_positions, modes_.size());
  Json s;
  s["vehicles"] = static_cast<int64_t>(all_vehicles.size());
  s["full_days"] = FullDays(day_positions, 1)[0];
  s["mode_vehicles"] = per_mode;
  s["mode_days"] = mode_days;
  s["line_vehicles"] = per_line;
  s["line_days"] = line_days;
  s["line_feeds"] = Json::array();
  for (const auto& [line, feed] : line_feed) {
    s["line_feeds"].push_back({line, feed});
  }
  s["feed_modes"] = Json::array();
  for (const auto& [feed, mode] : feed_mode) {
    s["feed_modes"].push_back({feed, mode});
  }
  return s;
}

Json Builder::FleetSection() const {
  std::vector<int64_t> vehicles(modes_.size() * kHours, 0), positions(modes_.size() * kHours, 0);
  for (const auto& f : fleet_) {
    const auto k = static_cast<std::size_t>(*modes_.Find(f.mode)) * kHours + f.hour;
    vehicles[k] += f.vehicles;
    positions[k] += f.positions;
  }
  // Per date, all modes: the overview's "positions per day" strip.
  std::vector<int64_t> day_positions(days_.size(), 0);
  for (const auto& f : fleet_) {
    day_positions[DayIndex(f.day)] += f.positions;
  }
  Json s;
  s["vehicle_days"] = vehicles;
  s["positions"] = positions;
  s["day_positions"] = day_positions;
  return s;
}

Json Builder::LineHoursSection() const {
  const auto n = lines_.size() * kHours;
  std::vector<int64_t> distance(n, 0), duration(n, 0), trips(n, 0);
  for (const auto& s : speed_lines_) {
    const auto k = static_cast<std::size_t>(LineOf(s.mode, s.route)) * kHours + s.hour;
    distance[k] += s.distance_mm;
    duration[k] += s.duration_us;
  }
  for (std::size_t i = 0; i < trips_.size(); ++i) {
    const auto& t = trips_[i];
    const auto k = static_cast<std::size_t>(LineOf(trip_modes_[i], t.route)) * kHours +
                   LocalHourOf(t.first_us).hour;
    ++trips[k];
  }
  for (auto& d : distance) {
    d = RoundDiv(d, 1000);  // mm → m
  }
  for (auto& d : duration) {
    d = RoundDiv(d, 1'000'000);  // µs → s
  }
  Json s;
  s["vehicle_days"] = line_vehicle_days_;
  s["positions"] = line_positions_;
  s["distance_m"] = distance;
  s["duration_s"] = duration;
  s["trips"] = trips;
  return s;
}

Json Builder::CellsSection() const {
  // Cell dictionary sorted by (y, x); cell-hours grouped by (mode, hour).
  std::set<std::pair<int32_t, int32_t>> cells;
  for (const auto& c : speed_cells_) {
    cells.emplace(c.y, c.x);
  }
  std::map<std::pair<int32_t, int32_t>, int32_t> cell_index;
  int32_t x0 = 0, y0 = 0;
  if (!cells.empty()) {
    x0 = std::min_element(cells.begin(), cells.end(), [](const auto& a, const auto& b) {
           return a.second < b.second;
         })->second;
    y0 = cells.begin()->first;
  }
  std::vector<int32_t> xs, ys;
  for (const auto& [y, x] : cells) {
    cell_index.emplace(std::make_pair(y, x), static_cast<int32_t>(xs.size()));
    xs.push_back(x - x0);
    ys.push_back(y - y0);
  }
  struct Entry {
    int32_t mode, hour, cell;
    int64_t distance_mm, duration_us, segments;
  };
  std::vector<Entry> entries;
  entries.reserve(speed_cells_.size());
  for (const auto& c : speed_cells_) {
    entries.push_back({*modes_.Find(c.mode), c.hour, cell_index.at({c.y, c.x}), c.distance_mm,
                       c.duration_us, c.segments});
  }
  std::sort(entries.begin(), entries.end(), [](const Entry& a, const Entry& b) {
    return std::tie(a.mode, a.hour, a.cell) < std::tie(b.mode, b.hour, b.cell);
  });
  std::vector<int32_t> group_mode, group_hour, group_len, cell_delta;
  std::vector<int64_t> distance, duration, segments;
  for (std::size_t i = 0; i < entries.size(); ++i) {
    const auto& e = entries[i];
    const bool new_group = i == 0 || e.mode != entries[i - 1].mode || e.hour != entries[i - 1].hour;
    if (new_group) {
      group_mode.push_back(e.mode);
      group_hour.push_back(e.hour);
      group_len.push_back(0);
    }
    ++group_len.back();
    cell_delta.push_back(new_group ? e.cell : e.cell - entries[i - 1].cell);
    distance.push_back(RoundDiv(e.distance_mm, 1000));
    duration.push_back(RoundDiv(e.duration_us, 1'000'000));
    segments.push_back(e.segments);
  }
  Json s;
  s["size_deg"] = options_.cell_size_deg;
  s["x0"] = x0;
  s["y0"] = y0;
  s["x"] = xs;
  s["y"] = ys;
  s["group_mode"] = group_mode;
  s["group_hour"] = group_hour;
  s["group_len"] = group_len;
  s["cell_delta"] = cell_delta;
  s["distance_m"] = distance;
  s["duration_s"] = duration;
  s["segments"] = segments;
  return s;
}

Json Builder::GeoSection() {
  // The origin: the south-west corner of everything drawn, rounded down to 0.01°.
  double min_lat = 90, min_lon = 180, max_lat = -90, max_lon = -180;
  auto extend = [&](double lat, double lon) {
    if (!std::isfinite(lat) || !std::isfinite(lon)) {
      return;
    }
    min_lat = std::min(min_lat, lat);
    max_lat = std::max(max_lat, lat);
    min_lon = std::min(min_lon, lon);
    max_lon = std::max(max_lon, lon);
  };
  if (options_.area != nullptr) {
    const auto& box = options_.area->bounding_box();
    extend(box.min_lat, box.min_lon);
    extend(box.max_lat, box.max_lon);
  }
  for (const auto& s : stops_) {
    extend(s.lat, s.lon);
  }
  for (const auto& c : speed_cells_) {
    extend(c.y * options_.cell_size_deg, c.x * options_.cell_size_deg);
    extend((c.y + 1) * options_.cell_size_deg, (c.x + 1) * options_.cell_size_deg);
  }
  const auto shapes = LineShapes();
  for (const auto& [line, shape] : shapes) {
    for (const auto& p : shape->points) {
      extend(p.lat, p.lon);
    }
  }
  Json s;
  if (min_lat > max_lat) {  // nothing to draw
    min_lat = max_lat = min_lon = max_lon = 0;
  }
  grid_.lat0 = std::floor(min_lat * 100) / 100;
  grid_.lon0 = std::floor(min_lon * 100) / 100;
  s["step_deg"] = kCoordStep;
  s["lat0"] = grid_.lat0;
  s["lon0"] = grid_.lon0;
  s["bbox"] = {grid_.Lat(min_lat), grid_.Lon(min_lon), grid_.Lat(max_lat), grid_.Lon(max_lon)};
  Json rings = Json::array();
  if (options_.area != nullptr) {
    for (const auto& ring : options_.area->rings()) {
      std::vector<std::array<int64_t, 2>> points;
      for (const auto& [lon, lat] : ring) {
        points.push_back({grid_.Lon(lon), grid_.Lat(lat)});
      }
      auto simple = SimplifyPolyline(points, kSimplifyTolerance);
      if (simple.size() >= 4) {
        rings.push_back(DeltaEncode(simple));
      }
    }
  }
  s["area"] = rings;
  std::vector<int32_t> shape_line;
  Json shape_points = Json::array();
  for (const auto& [line, shape] : shapes) {
    std::vector<std::array<int64_t, 2>> points;
    for (const auto& p : shape->points) {
      points.push_back({grid_.Lon(p.lon), grid_.Lat(p.lat)});
    }
    auto simple = SimplifyPolyline(points, kSimplifyTolerance);
    if (simple.size() >= 2) {
      shape_line.push_back(line);
      shape_points.push_back(DeltaEncode(simple));
    }
  }
  s["shape_line"] = shape_line;
  s["shapes"] = shape_points;
  return s;
}

/// Every distinct shape of each line's GTFS route, in line order then shape id order.
std::vector<std::pair<int32_t, const gtfs::Shape*>> Builder::LineShapes() const {
  std::vector<std::pair<int32_t, const gtfs::Shape*>> out;
  if (options_.feed == nullptr) {
    return out;
  }
  std::unordered_map<std::string, std::set<std::string>> shapes_of_route;
  for (const auto& trip : options_.feed->trips()) {
    if (!trip.shape_id.empty()) {
      shapes_of_route[trip.route_id].insert(trip.shape_id);
    }
  }
  for (std::size_t i = 0; i < lines_.size(); ++i) {
    if (lines_[i].gtfs_route == nullptr) {
      continue;
    }
    const auto it = shapes_of_route.find(lines_[i].gtfs_route->id);
    if (it == shapes_of_route.end()) {
      continue;
    }
    for (const auto& shape_id : it->second) {
      if (const auto* shape = options_.feed->FindShape(shape_id); shape != nullptr) {
        out.emplace_back(static_cast<int32_t>(i), shape);
      }
    }
  }
  return out;
}

Json Builder::StopsSection() {
  Dictionary vehicles;
  std::vector<int32_t> vehicle_feed;
  std::vector<int32_t> line, vehicle, start, duration;
  std::vector<int64_t> lat, lon;
  Json terminal = Json::array();
  Json place = Json::array();
  for (const auto& s : stops_) {
    const std::string key = s.feed + '\x1f' + s.vehicle;
    const auto before = vehicles.size();
    const int32_t v = vehicles.Add(key);
    if (vehicles.size() != before) {
      vehicle_feed.push_back(*feeds_.Find(s.feed));
      vehicle_ids_.push_back(s.vehicle);
    }
    const auto local = options_.time_zone.ToLocal(base::FromUnixMicros(s.start_us));
    const auto day = std::chrono::floor<std::chrono::days>(local);
    const auto minute = std::chrono::duration_cast<std::chrono::minutes>(local - day).count();
    line.push_back(LineOf(s.mode, s.route));
    vehicle.push_back(v);
    start.push_back(DayIndex(base::DaysSinceEpoch(day)) * (kHours * 60) +
                    static_cast<int32_t>(minute));
    duration.push_back(static_cast<int32_t>(RoundDiv(s.end_us - s.start_us, 1'000'000)));
    lat.push_back(grid_.Lat(s.lat));
    lon.push_back(grid_.Lon(s.lon));
    if (s.near_terminal) {
      terminal.push_back(*s.near_terminal ? 1 : 0);
    } else {
      terminal.push_back(nullptr);
    }
    if (s.place) {
      place.push_back(*s.place);
    } else {
      place.push_back(nullptr);
    }
  }
  Json s;
  s["vehicle_id"] = vehicle_ids_;
  s["vehicle_feed"] = vehicle_feed;
  s["line"] = line;
  s["vehicle"] = vehicle;
  s["start_min"] = start;
  s["duration_s"] = duration;
  s["lat"] = lat;
  s["lon"] = lon;
  s["near_terminal"] = terminal;
  s["place"] = place;  // 0 en_route, 1 terminal, 2 depot, null: unknown
  return s;
}

Json Builder::QualitySection() const {
  const auto n_feeds = feeds_.size();
  const auto n_days = days_.size();
  std::vector<int64_t> accepted(n_feeds * kHours, 0), vehicles(n_feeds * kHours, 0);
  std::vector<std::vector<int64_t>> reasons(reason_names_.size(),
                                            std::vector<int64_t>(n_feeds * kHours, 0));
  std::vector<int64_t> day_accepted(n_feeds * n_days, 0), day_errors(n_feeds * n_days, 0),
      day_duplicates(n_feeds * n_days, 0);
  for (const auto& q : quality_) {
    const auto feed = static_cast<std::size_t>(*feeds_.Find(q.feed));
    const auto k = feed * kHours + q.hour;
    const auto d = feed * n_days + DayIndex(q.day);
    accepted[k] += q.accepted;
    vehicles[k] += q.vehicles;
    day_accepted[d] += q.accepted;
    for (std::size_t r = 0; r < reason_names_.size(); ++r) {
      reasons[r][k] += q.reasons[r];
      (reason_names_[r] == "duplicate" ? day_duplicates : day_errors)[d] += q.reasons[r];
    }
  }
  Json s;
  s["accepted"] = accepted;
  s["vehicle_days"] = vehicles;
  // Every reason the schema knows, so the page can say "0" for the ones that never fired.
  s["reason_names"] = reason_names_;
  Json by_reason = Json::object();
  for (std::size_t r = 0; r < reason_names_.size(); ++r) {
    const bool any =
        std::any_of(reasons[r].begin(), reasons[r].end(), [](int64_t v) { return v != 0; });
    if (any) {
      by_reason[reason_names_[r]] = reasons[r];
    }
  }
  s["rejected"] = by_reason;
  s["day_accepted"] = day_accepted;
  s["day_errors"] = day_errors;
  s["day_duplicates"] = day_duplicates;
  std::vector<int32_t> feed, hour, latency;
  std::vector<int64_t> positions;
  for (const auto& l : latency_) {
    feed.push_back(*feeds_.Find(l.feed));
    hour.push_back(l.hour);
    latency.push_back(l.latency_s);
    positions.push_back(l.positions);
  }
  Json lat;
  lat["feed"] = feed;
  lat["hour"] = hour;
  lat["latency_s"] = latency;
  lat["positions"] = positions;
  s["latency"] = lat;
  return s;
}

Json Builder::DuplicateSlotsSection() const {
  Json s;
  s["total"] = static_cast<int64_t>(slots_.size());
  std::vector<int64_t> per_day(days_.size(), 0);
  for (const auto& slot : slots_) {
    if (const auto date = base::ParseDate(slot.date)) {
      const auto it = day_index_.find(base::DaysSinceEpoch(*date));
      if (it != day_index_.end()) {
        ++per_day[it->second];
      }
    }
  }
  s["per_day"] = per_day;
  std::vector<int32_t> feed, line;
  std::vector<std::string> date, trip;
  std::vector<int64_t> vehicles;
  for (std::size_t i = 0; i < slots_.size() && i < kMaxDuplicateSlots; ++i) {
    const auto& slot = slots_[i];
    feed.push_back(*feeds_.Find(slot.feed));
    date.push_back(slot.date);
    trip.push_back(slot.trip);
    line.push_back(LineOfRoute(slot.route));
    vehicles.push_back(slot.vehicles);
  }
  s["feed"] = feed;
  s["date"] = date;
  s["trip_id"] = trip;
  s["line"] = line;
  s["vehicles"] = vehicles;
  return s;
}

/// Each aircraft's latest position, one column per field, rows by feed and icao24: the
/// feed's index, the icao24 (vehicle id) and callsign (route id, "" when blank),
/// coordinates in whole 1e-4° (not from geo's origin: aircraft span continents), altitude
/// in whole metres (barometric, else geometric, as the decoder stored it), on ground
/// (1/0), speed in km/h to 0.1, true track in whole degrees (null when absent), the
/// position's time in Unix seconds and the aircraft's accepted positions; `country` (an
/// index into `countries`, sorted) and `last_contact` (Unix seconds) come from
/// `aircraft_positions` and are null when that table has no row for the position.
Json Builder::AircraftSection() const {
  std::vector<int32_t> feed;
  std::vector<std::string> icao24, callsign;
  std::vector<int64_t> lat, lon, time, positions;
  Json altitude = Json::array(), on_ground = Json::array(), speed = Json::array(),
       track = Json::array(), country = Json::array(), last_contact = Json::array();
  std::set<std::string> country_names;
  for (const auto& a : aircraft_) {
    if (a.origin_country) {
      country_names.insert(*a.origin_country);
    }
  }
  const std::vector<std::string> countries(country_names.begin(), country_names.end());
  auto rounded = [](const std::optional<double>& v, double scale) -> Json {
    if (!v) {
      return nullptr;
    }
    return std::round(*v * scale) / scale;
  };
  for (const auto& a : aircraft_) {
    feed.push_back(*feeds_.Find(a.feed));
    icao24.push_back(a.icao24);
    callsign.push_back(a.callsign);
    lat.push_back(std::llround(a.lat / kCoordStep));
    lon.push_back(std::llround(a.lon / kCoordStep));
    altitude.push_back(a.altitude_m ? Json(std::llround(*a.altitude_m)) : Json(nullptr));
    on_ground.push_back(a.on_ground ? Json(*a.on_ground ? 1 : 0) : Json(nullptr));
    speed.push_back(rounded(a.speed_kmh, 10));
    track.push_back(a.track_deg ? Json(std::llround(*a.track_deg)) : Json(nullptr));
    time.push_back(a.time_us >= 0 ? a.time_us / 1000000 : -((-a.time_us + 999999) / 1000000));
    positions.push_back(a.positions);
    country.push_back(a.origin_country ? Json(std::lower_bound(countries.begin(), countries.end(),
                                                               *a.origin_country) -
                                              countries.begin())
                                       : Json(nullptr));
    last_contact.push_back(a.last_contact ? Json(*a.last_contact) : Json(nullptr));
  }
  Json s;
  s["step_deg"] = kCoordStep;
  s["feed"] = feed;
  s["icao24"] = icao24;
  s["callsign"] = callsign;
  s["lat"] = lat;
  s["lon"] = lon;
  s["altitude_m"] = altitude;
  s["on_ground"] = on_ground;
  s["speed_kmh"] = speed;
  s["track_deg"] = track;
  s["time"] = time;
  s["positions"] = positions;
  s["countries"] = countries;
  s["country"] = country;
  s["last_contact"] = last_contact;
  return s;
}

}  // namespace frota::dashboard::detail
