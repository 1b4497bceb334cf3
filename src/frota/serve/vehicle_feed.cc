#include "frota/serve/vehicle_feed.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <set>

#include "frota/geo/haversine.h"
#include "frota/gtfs/service_day.h"

namespace frota::serve {

namespace {

// Stops are found through cells of 0.001 degrees (about 110 m of latitude): a position's
// own cell and its eight neighbours hold every stop within kAtStopM.
constexpr double kCellDegrees = 0.001;
// A scheduled trip of the pattern is the run's when it leaves within this of the
// departure the detector found ("close enough to the scheduled trip to be associated
// with it", GTFS-Realtime reference, ScheduleRelationship SCHEDULED).
constexpr std::int32_t kScheduledMatchS = 30 * 60;
// A run is over when its trip's planned duration has passed this many times over, plus
// kRunSlackS (layovers, delays).
constexpr double kRunDurationFactor = 1.5;
constexpr std::int32_t kRunSlackS = 30 * 60;
constexpr double kKmhPerMps = 3.6;
// Shapes' segments are indexed by cells of this size: a segment is listed in every cell
// its bounding box touches, so a point's cell lists every segment within kOnShapeM of it
// once the box is grown by that much.
constexpr double kShapeCellDegrees = 0.01;
constexpr double kMetresPerDegree = 111'195;

// Metres from (lat, lon) to the segment a-b, on a local flat projection (segments are
// short: shape points a few metres to a few hundred apart).
double SegmentDistanceM(double lat, double lon, const gtfs::ShapePoint& a,
                        const gtfs::ShapePoint& b) {
  const double kx = kMetresPerDegree * std::cos(lat * 3.141592653589793 / 180);
  const double ax = (a.lon - lon) * kx;
  const double ay = (a.lat - lat) * kMetresPerDegree;
  const double bx = (b.lon - lon) * kx;
  const double by = (b.lat - lat) * kMetresPerDegree;
  const double dx = bx - ax;
  const double dy = by - ay;
  const double length2 = dx * dx + dy * dy;
  const double t = length2 > 0 ? std::clamp(-(ax * dx + ay * dy) / length2, 0.0, 1.0) : 0.0;
  return std::hypot(ax + t * dx, ay + t * dy);
}

std::int32_t ShapeCell(double degrees) {
  return static_cast<std::int32_t>(std::floor(degrees / kShapeCellDegrees));
}

std::pair<std::int32_t, std::int32_t> Cell(double lat, double lon) {
  return {static_cast<std::int32_t>(std::floor(lat / kCellDegrees)),
          static_cast<std::int32_t>(std::floor(lon / kCellDegrees))};
}

// What a feed wrote as start_date / start_time, kept only in the GTFS-Realtime form.
bool IsGtfsDate(std::string_view text) {
  return text.size() == 8 &&
         std::all_of(text.begin(), text.end(), [](char c) { return c >= '0' && c <= '9'; });
}

bool IsGtfsTime(std::string_view text) {
  return text.size() >= 7 && text.size() <= 8 && base::ParseGtfsTime(text).has_value();
}

std::int32_t SecondsSince(base::Timestamp from, base::Timestamp t) {
  return static_cast<std::int32_t>((base::ToUnixMicros(t) - base::ToUnixMicros(from)) / 1'000'000);
}

// exact_times = 1: the scheduled start of the window nearest to `at` (E019: a multiple of
// headway_secs after the window's start, before its end).
std::int32_t ExactStart(const std::vector<const gtfs::Frequency*>& windows, std::int32_t at) {
  std::int32_t best = windows.front()->start_s;
  std::int32_t best_gap = std::numeric_limits<std::int32_t>::max();
  for (const gtfs::Frequency* w : windows) {
    const std::int32_t last = w->end_s - 1 - (w->end_s - 1 - w->start_s) % w->headway_s;
    const std::int32_t clamped = std::clamp(at, w->start_s, std::max(w->start_s, last));
    const std::int32_t steps = (clamped - w->start_s + w->headway_s / 2) / w->headway_s;
    const std::int32_t start = std::min(w->start_s + steps * w->headway_s, last);
    if (std::abs(start - at) < best_gap) {
      best_gap = std::abs(start - at);
      best = start;
    }
  }
  return best;
}

}  // namespace

base::Result<VehicleFeed> VehicleFeed::ForGtfs(std::shared_ptr<const gtfs::StaticFeed> gtfs) {
  VehicleFeed feed;
  FROTA_ASSIGN_OR_RETURN(feed.zone_, base::TimeZone::Load(gtfs->time_zone()));
  feed.gtfs_ = std::move(gtfs);
  feed.resolver_ = std::make_shared<const gtfs::RouteResolver>(*feed.gtfs_);
  feed.services_ = std::make_shared<ServiceCache>();
  feed.Index();
  return feed;
}

void VehicleFeed::Index() {
  for (const gtfs::Trip& trip : gtfs_->trips()) {
    trips_[trip.id].trip = &trip;
  }
  for (const gtfs::Frequency& f : gtfs_->frequencies()) {
    if (const auto it = trips_.find(f.trip_id); it != trips_.end() && f.headway_s > 0) {
      it->second.frequencies.push_back(&f);
    }
  }
  const auto& firsts = gtfs_->first_stop_departures();
  const auto& lasts = gtfs_->last_stop_arrivals();
  for (std::size_t i = 0; i < firsts.size(); ++i) {
    if (const auto it = trips_.find(firsts[i].trip_id); it != trips_.end()) {
      it->second.first_departure_s = firsts[i].departure_s;
      if (firsts[i].departure_s >= 0 && lasts[i].arrival_s >= firsts[i].departure_s) {
        it->second.duration_s = lasts[i].arrival_s - firsts[i].departure_s;
      }
    }
  }
  for (auto& [id, info] : trips_) {
    if (const gtfs::Shape* shape = gtfs_->FindShape(info.trip->shape_id);
        shape != nullptr && shape->points.size() >= 2) {
      info.shape = &IndexShape(*shape);
    }
    std::sort(
        info.frequencies.begin(), info.frequencies.end(),
        [](const gtfs::Frequency* a, const gtfs::Frequency* b) { return a->start_s < b->start_s; });
    const gtfs::Trip& trip = *info.trip;
    patterns_[{trip.route_id, trip.shape_id, trip.direction_id}].push_back(&info);
    const bool zero = !info.frequencies.empty() && !info.frequencies.front()->exact_times;
    auto [route, inserted] = routes_.try_emplace(trip.route_id, RouteInfo{zero});
    route->second.frequency_based = route->second.frequency_based && zero;
  }
  for (auto& [key, list] : patterns_) {
    std::sort(list.begin(), list.end(),
              [](const TripInfo* a, const TripInfo* b) { return a->trip->id < b->trip->id; });
  }
  for (const gtfs::Stop& stop : gtfs_->stops()) {
    if (stop.location_type == 0 && !std::isnan(stop.lat) && !std::isnan(stop.lon)) {
      stop_cells_[Cell(stop.lat, stop.lon)].push_back(&stop);
    }
  }
}

const VehicleFeed::ShapeIndex& VehicleFeed::IndexShape(const gtfs::Shape& shape) {
  auto [it, inserted] = shapes_.try_emplace(shape.id);
  ShapeIndex& index = it->second;
  if (!inserted) {
    return index;
  }
  index.shape = &shape;
  const double margin = kOnShapeM / kMetresPerDegree * 2;  // also east-west, to 60 degrees
  for (std::uint32_t k = 0; k + 1 < shape.points.size(); ++k) {
    const gtfs::ShapePoint& a = shape.points[k];
    const gtfs::ShapePoint& b = shape.points[k + 1];
    for (std::int32_t r = ShapeCell(std::min(a.lat, b.lat) - margin);
         r <= ShapeCell(std::max(a.lat, b.lat) + margin); ++r) {
      for (std::int32_t c = ShapeCell(std::min(a.lon, b.lon) - margin);
           c <= ShapeCell(std::max(a.lon, b.lon) + margin); ++c) {
        index.cells[{r, c}].push_back(k);
      }
    }
  }
  return index;
}

bool VehicleFeed::OnShape(const TripInfo& trip, double lat, double lon) {
  if (trip.shape == nullptr) {
    return true;  // nothing says where the trip runs
  }
  const auto cell = trip.shape->cells.find({ShapeCell(lat), ShapeCell(lon)});
  if (cell == trip.shape->cells.end()) {
    return false;
  }
  const auto& points = trip.shape->shape->points;
  return std::any_of(cell->second.begin(), cell->second.end(), [&](std::uint32_t k) {
    return SegmentDistanceM(lat, lon, points[k], points[k + 1]) <= kOnShapeM;
  });
}

const std::string* VehicleFeed::RouteShortName(std::string_view route_id) const {
  const gtfs::Route* route = gtfs_ ? gtfs_->FindRoute(route_id) : nullptr;
  return route != nullptr && !route->short_name.empty() ? &route->short_name : nullptr;
}

bool VehicleFeed::Runs(const TripInfo& trip, base::LocalDate date) const {
  const std::lock_guard lock(services_->mutex);
  auto it = services_->by_date.find(date);
  if (it == services_->by_date.end()) {
    const auto active = gtfs_->ActiveServices(date);
    it =
        services_->by_date.emplace(date, std::set<std::string>(active.begin(), active.end())).first;
  }
  return it->second.contains(trip.trip->service_id);
}

codec::TripSchedule VehicleFeed::ScheduleOf(const TripInfo& trip) const {
  const bool exact_zero = !trip.frequencies.empty() && !trip.frequencies.front()->exact_times;
  return exact_zero ? codec::TripSchedule::kUnscheduled : codec::TripSchedule::kScheduled;
}

const VehicleFeed::TripInfo* VehicleFeed::TripOf(const Departure& d,
                                                 std::int32_t departure_s) const {
  if (!d.trip_id.empty()) {
    const auto it = trips_.find(d.trip_id);
    if (it != trips_.end() && it->second.trip->route_id == d.route_id) {
      return &it->second;
    }
  }
  const auto pattern = patterns_.find({d.route_id, d.shape_id, d.direction_id});
  if (pattern == patterns_.end()) {
    return nullptr;
  }
  // Trips running on the service date first; a date outside the calendar (a capture older
  // than its GTFS) still names the pattern's trip.
  const TripInfo* best = nullptr;
  std::int32_t best_gap = std::numeric_limits<std::int32_t>::max();
  bool best_runs = false;
  for (const TripInfo* info : pattern->second) {
    const bool runs = Runs(*info, d.service_date);
    std::int32_t gap = std::numeric_limits<std::int32_t>::max() - 1;
    if (!info->frequencies.empty()) {
      gap = 0;
      for (const gtfs::Frequency* f : info->frequencies) {
        const std::int32_t outside =
            departure_s < f->start_s ? f->start_s - departure_s
                                     : (departure_s >= f->end_s ? departure_s - f->end_s + 1 : 0);
        gap = f == info->frequencies.front() ? outside : std::min(gap, outside);
      }
    } else if (info->first_departure_s >= 0) {
      gap = std::abs(info->first_departure_s - departure_s);
      if (gap > kScheduledMatchS) {
        continue;
      }
    }
    if ((runs && !best_runs) || (runs == best_runs && gap < best_gap)) {
      best = info;
      best_gap = gap;
      best_runs = runs;
    }
  }
  return best;
}

std::optional<VehicleFeed::Run> VehicleFeed::RunOf(const Departure& d, base::Timestamp at) const {
  const base::Timestamp day_start = gtfs::ServiceDayStart(*zone_, d.service_date);
  const std::int32_t departure_s = SecondsSince(day_start, d.departure_time);
  const TripInfo* info = TripOf(d, departure_s);
  const auto lookback = static_cast<std::int32_t>(std::chrono::seconds(kLookback).count());
  const std::int32_t longest =
      info != nullptr && info->duration_s > 0
          ? std::min(lookback,
                     static_cast<std::int32_t>(info->duration_s * kRunDurationFactor) + kRunSlackS)
          : static_cast<std::int32_t>(std::chrono::seconds(kLongestRun).count());
  if (SecondsSince(d.departure_time, at) > longest) {
    return std::nullopt;
  }
  Run run;
  run.route_id = d.route_id;
  run.direction_id = d.direction_id;
  if (info == nullptr) {
    if (const auto route = routes_.find(d.route_id); route != routes_.end()) {
      run.schedule = route->second.frequency_based ? codec::TripSchedule::kUnscheduled
                                                   : codec::TripSchedule::kScheduled;
    }
    return run;
  }
  run.trip = info;
  run.route_id = info->trip->route_id;
  run.direction_id = info->trip->direction_id;
  run.schedule = ScheduleOf(*info);
  run.start_date = base::FormatGtfsDate(d.service_date);
  if (info->frequencies.empty()) {
    run.start_time = info->first_departure_s >= 0 ? base::FormatGtfsTime(info->first_departure_s)
                                                  : std::string();
  } else if (info->frequencies.front()->exact_times) {
    run.start_time = base::FormatGtfsTime(ExactStart(info->frequencies, departure_s));
  } else {
    run.start_time = base::FormatGtfsTime(departure_s);
  }
  return run;
}

const gtfs::Stop* VehicleFeed::StopAt(double lat, double lon) const {
  const auto [row, column] = Cell(lat, lon);
  const gtfs::Stop* best = nullptr;
  double best_m = kAtStopM;
  for (std::int32_t dr = -1; dr <= 1; ++dr) {
    for (std::int32_t dc = -1; dc <= 1; ++dc) {
      const auto it = stop_cells_.find({row + dr, column + dc});
      if (it == stop_cells_.end()) {
        continue;
      }
      for (const gtfs::Stop* stop : it->second) {
        const double m = geo::HaversineM(lat, lon, stop->lat, stop->lon);
        if (m <= best_m) {
          best_m = m;
          best = stop;
        }
      }
    }
  }
  return best;
}

void VehicleFeed::DescribeTrip(const model::Position& p, const Departure* departure,
                               codec::VehicleEntity& out) const {
  if (!gtfs_) {
    out.route_id = p.route_id;
    out.trip_id = p.trip_id;
    out.direction_id = p.direction_id;
    if (IsGtfsDate(p.trip_start_date)) {
      out.start_date = p.trip_start_date;
    }
    if (IsGtfsTime(p.trip_start_time)) {
      out.start_time = p.trip_start_time;
    }
    return;
  }
  if (departure != nullptr) {
    if (auto run = RunOf(*departure, p.event_time)) {
      if (run->trip != nullptr && !OnShape(*run->trip, p.lat, p.lon)) {
        // Off its trip's path: the route and direction only.
        run->trip = nullptr;
        run->start_date.clear();
        run->start_time.clear();
      }
      out.trip_id = run->trip != nullptr ? run->trip->trip->id : std::string();
      out.route_id = std::move(run->route_id);
      out.direction_id = run->direction_id;
      out.start_date = std::move(run->start_date);
      out.start_time = std::move(run->start_time);
      out.schedule = run->schedule;
      return;
    }
  }
  // No run found: the trip the feed named, when the GTFS has it and it says enough.
  if (const auto it = trips_.find(p.trip_id); !p.trip_id.empty() && it != trips_.end()) {
    const TripInfo& info = it->second;
    out.route_id = info.trip->route_id;
    out.direction_id = info.trip->direction_id;
    out.schedule = ScheduleOf(info);
    // A frequency-based trip is one instance only with its start (E006), and that start
    // is the departure the detector found, once and for all (the reference: "once
    // established, the start_time ... should be considered immutable"): before it is
    // found, the route and direction alone, whatever start the feed wrote.
    if (info.frequencies.empty()) {
      // A scheduled trip: its start_time, when given, must be the GTFS one (E023).
      out.trip_id = info.trip->id;
      if (IsGtfsDate(p.trip_start_date)) {
        out.start_date = p.trip_start_date;
      }
      if (IsGtfsTime(p.trip_start_time) &&
          base::ParseGtfsTime(p.trip_start_time) == info.first_departure_s) {
        out.start_time = p.trip_start_time;
      }
    }
    return;
  }
  // The route alone, resolved as the jobs resolve it; the feed's code when nothing does.
  if (const gtfs::Route* route = resolver_->Find(p.route_id)) {
    out.route_id = route->id;
    if (const auto info = routes_.find(route->id); info != routes_.end()) {
      out.schedule = info->second.frequency_based ? codec::TripSchedule::kUnscheduled
                                                  : codec::TripSchedule::kScheduled;
    }
  } else {
    out.route_id = p.route_id;
  }
}

std::vector<codec::VehicleEntity> VehicleFeed::Describe(
    const std::vector<Vehicle>& vehicles, const std::vector<Departure>& departures) const {
  std::vector<codec::VehicleEntity> out;
  out.reserve(vehicles.size());
  for (const Vehicle& v : vehicles) {
    const model::Position& p = v.position;
    if (v.mode == "aircraft") {
      continue;
    }
    // The vehicle's last departure at or before the position, if it is on the same line.
    const Departure* departure = nullptr;
    const auto key = std::tie(p.feed_id, p.vehicle_id);
    auto it = std::upper_bound(
        departures.begin(), departures.end(), p.event_time,
        [&](base::Timestamp t, const Departure& d) {
          return key < std::tie(d.feed_id, d.vehicle_id) ||
                 (key == std::tie(d.feed_id, d.vehicle_id) && t < d.departure_time);
        });
    if (it != departures.begin()) {
      const Departure& d = *std::prev(it);
      if (std::tie(d.feed_id, d.vehicle_id) == key && d.feed_route_id == p.route_id) {
        departure = &d;
      }
    }
    codec::VehicleEntity e;
    e.entity_id = p.feed_id + "/" + p.vehicle_id;
    e.vehicle_id = e.entity_id;
    e.vehicle_label = p.vehicle_id;
    DescribeTrip(p, departure, e);
    e.lat = p.lat;
    e.lon = p.lon;
    if (p.bearing_deg >= 0 && p.bearing_deg < 360) {
      e.bearing_deg = p.bearing_deg;
    }
    if (p.reported_speed_kmh >= 0) {
      e.speed_mps = static_cast<float>(p.reported_speed_kmh / kKmhPerMps);
    }
    if (gtfs_ && p.reported_speed_kmh <= kStoppedKmh) {
      if (const gtfs::Stop* stop = StopAt(p.lat, p.lon)) {
        e.stop_id = stop->id;
        e.status = codec::StopStatus::kStoppedAt;
      }
    }
    e.time = p.event_time;
    out.push_back(std::move(e));
  }
  return out;
}

base::Result<std::shared_ptr<const VehicleFeed>> LoadVehicleFeed(const std::string& gtfs_path) {
  if (gtfs_path.empty()) {
    return std::make_shared<const VehicleFeed>();
  }
  FROTA_ASSIGN_OR_RETURN(auto loaded, gtfs::StaticFeed::Load(gtfs_path));
  FROTA_ASSIGN_OR_RETURN(
      auto feed, VehicleFeed::ForGtfs(std::make_shared<const gtfs::StaticFeed>(std::move(loaded))));
  return std::make_shared<const VehicleFeed>(std::move(feed));
}

std::string EncodeVehicleFeed(const VehicleFeed& feed, const std::vector<Vehicle>& vehicles,
                              const std::vector<Departure>& departures,
                              base::Timestamp header_time) {
  return codec::EncodeVehicleFeed(feed.Describe(vehicles, departures), header_time);
}

}  // namespace frota::serve
