#include "frota/sim/schedule.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <tuple>

#include "frota/base/time_zone.h"
#include "frota/geo/haversine.h"
#include "frota/sim/city.h"

namespace frota::sim {

namespace {

constexpr double kStopOnShapeM = 15;
constexpr double kStopGridDegrees = 0.002;

// Stops bucketed by a coarse lat/lon grid, to find those near a shape quickly.
class StopGrid {
 public:
  explicit StopGrid(const std::vector<gtfs::Stop>& stops) {
    for (std::size_t i = 0; i < stops.size(); ++i) {
      if (std::isfinite(stops[i].lat) && std::isfinite(stops[i].lon)) {
        cells_[Key(stops[i].lat, stops[i].lon)].push_back(static_cast<std::int32_t>(i));
      }
    }
  }

  // Stops within `margin_deg` of the box around a and b, each once, in index order.
  void Near(LatLon a, LatLon b, double margin_deg, std::vector<std::int32_t>& out) const {
    const auto [x0, y0] =
        Cell(std::min(a.lat, b.lat) - margin_deg, std::min(a.lon, b.lon) - margin_deg);
    const auto [x1, y1] =
        Cell(std::max(a.lat, b.lat) + margin_deg, std::max(a.lon, b.lon) + margin_deg);
    for (std::int64_t y = y0; y <= y1; ++y) {
      for (std::int64_t x = x0; x <= x1; ++x) {
        const auto it = cells_.find({x, y});
        if (it != cells_.end()) {
          out.insert(out.end(), it->second.begin(), it->second.end());
        }
      }
    }
  }

 private:
  using CellKey = std::pair<std::int64_t, std::int64_t>;
  static CellKey Cell(double lat, double lon) {
    return {static_cast<std::int64_t>(std::floor(lon / kStopGridDegrees)),
            static_cast<std::int64_t>(std::floor(lat / kStopGridDegrees))};
  }
  static CellKey Key(double lat, double lon) { return Cell(lat, lon); }
  std::map<CellKey, std::vector<std::int32_t>> cells_;
};

std::vector<double> StopsAlong(const ShapePath& path, const std::vector<gtfs::Stop>& stops,
                               const StopGrid& grid) {
  std::vector<std::int32_t> candidates;
  const double margin = 2 * kStopOnShapeM / MetresPerDegreeLat();
  const auto& points = path.points();
  for (std::size_t i = 0; i + 1 < points.size(); ++i) {
    grid.Near(points[i], points[i + 1], margin, candidates);
  }
  std::sort(candidates.begin(), candidates.end());
  candidates.erase(std::unique(candidates.begin(), candidates.end()), candidates.end());
  std::vector<double> found;
  const double length = path.length_m();
  for (const std::int32_t index : candidates) {
    const auto& stop = stops[static_cast<std::size_t>(index)];
    double s = 0;
    if (path.Project({stop.lat, stop.lon}, kStopOnShapeM, s) && s > 20 && s < length - 20) {
      found.push_back(s);
    }
  }
  std::sort(found.begin(), found.end());
  std::vector<double> distinct;
  for (const double s : found) {
    if (distinct.empty() || s - distinct.back() > 5) {
      distinct.push_back(s);
    }
  }
  return distinct;
}

}  // namespace

base::Result<DayPlan> PlanDay(const gtfs::StaticFeed& feed, base::LocalDate date,
                              const TrafficModel& traffic) {
  DayPlan plan;
  plan.service_date = date;
  plan.time_zone = std::string(feed.time_zone());
  if (plan.time_zone.empty()) {
    plan.time_zone = "America/Sao_Paulo";
  }
  FROTA_ASSIGN_OR_RETURN(const auto zone, base::TimeZone::Load(plan.time_zone));
  using std::chrono::hours;
  const auto noon = std::chrono::local_time<base::Micros>(date.time_since_epoch() + hours(12));
  plan.service_day_start = zone.FromLocal(noon) - hours(12);

  const std::vector<std::string> services = feed.ActiveServices(date);
  std::map<std::string, std::vector<const gtfs::Frequency*>, std::less<>> frequencies;
  for (const auto& frequency : feed.frequencies()) {
    frequencies[frequency.trip_id].push_back(&frequency);
  }
  const StopGrid grid(feed.stops());
  std::map<std::string, std::int32_t, std::less<>> shape_index;

  const auto shape_of = [&](const gtfs::Trip& trip) -> std::int32_t {
    if (trip.shape_id.empty()) {
      return -1;
    }
    if (const auto it = shape_index.find(trip.shape_id); it != shape_index.end()) {
      return it->second;
    }
    const gtfs::Shape* shape = feed.FindShape(trip.shape_id);
    std::int32_t index = -1;
    if (shape != nullptr && shape->points.size() >= 2) {
      std::vector<LatLon> points;
      points.reserve(shape->points.size());
      for (const auto& point : shape->points) {
        points.push_back({point.lat, point.lon});
      }
      DrivenShape driven;
      driven.id = shape->id;
      driven.route_id = trip.route_id;
      driven.path = ShapePath(std::move(points));
      if (driven.path.length_m() > 50) {
        driven.stop_s = StopsAlong(driven.path, feed.stops(), grid);
        index = static_cast<std::int32_t>(plan.shapes.size());
        plan.shapes.push_back(std::move(driven));
      }
    }
    shape_index.emplace(trip.shape_id, index);
    return index;
  };

  for (const auto& trip : feed.trips()) {
    if (!std::binary_search(services.begin(), services.end(), trip.service_id)) {
      continue;
    }
    const std::int32_t shape = shape_of(trip);
    if (shape < 0) {
      ++plan.trips_without_shape;
      continue;
    }
    const auto* first = feed.FindFirstStop(trip.id);
    const auto* last = feed.FindLastStop(trip.id);
    std::int32_t planned_duration = -1;
    if (first != nullptr && last != nullptr && first->departure_s >= 0 &&
        last->arrival_s > first->departure_s) {
      planned_duration = last->arrival_s - first->departure_s;
    }
    const auto& driven = plan.shapes[static_cast<std::size_t>(shape)];
    const auto duration_at = [&](std::int32_t departure_s) {
      if (planned_duration > 0) {
        return planned_duration;
      }
      const auto offsets = PlanRunningTimes(driven.path, {}, traffic, departure_s, 0);
      return std::max<std::int32_t>(offsets.empty() ? 60 : offsets.back(), 60);
    };
    PlannedTrip planned;
    planned.trip_id = trip.id;
    planned.route_id = trip.route_id;
    planned.direction_id = trip.direction_id;
    planned.shape = shape;
    if (const auto it = frequencies.find(trip.id); it != frequencies.end()) {
      planned.frequency_based = true;
      for (const gtfs::Frequency* frequency : it->second) {
        if (frequency->headway_s <= 0) {
          continue;
        }
        planned.window_start_s = frequency->start_s;
        planned.window_end_s = frequency->end_s;
        planned.headway_s = frequency->headway_s;
        for (std::int32_t t = frequency->start_s; t < frequency->end_s; t += frequency->headway_s) {
          planned.departure_s = t;
          planned.arrival_s = t + duration_at(t);
          planned.start_time = base::FormatGtfsTime(t);
          plan.trips.push_back(planned);
        }
      }
      continue;
    }
    if (first == nullptr || first->departure_s < 0) {
      ++plan.trips_without_shape;  // no time to depart at: cannot be driven either
      continue;
    }
    planned.departure_s = first->departure_s;
    planned.arrival_s = first->departure_s + duration_at(first->departure_s);
    planned.start_time = base::FormatGtfsTime(first->departure_s);
    plan.trips.push_back(std::move(planned));
  }
  std::sort(plan.trips.begin(), plan.trips.end(), [](const PlannedTrip& a, const PlannedTrip& b) {
    return std::tie(a.departure_s, a.trip_id, a.start_time) <
           std::tie(b.departure_s, b.trip_id, b.start_time);
  });
  return plan;
}

std::vector<std::vector<std::int32_t>> BuildBlocks(const std::vector<BlockInput>& trips,
                                                   const BlockOptions& options) {
  std::vector<std::int32_t> order(trips.size());
  for (std::size_t i = 0; i < order.size(); ++i) {
    order[i] = static_cast<std::int32_t>(i);
  }
  std::stable_sort(order.begin(), order.end(), [&](std::int32_t a, std::int32_t b) {
    return trips[static_cast<std::size_t>(a)].departure_s <
           trips[static_cast<std::size_t>(b)].departure_s;
  });
  struct Idle {
    std::int32_t block;
    std::int32_t free_s;
    LatLon at;
  };
  std::map<std::int32_t, std::vector<Idle>> idle_by_group;
  std::vector<std::vector<std::int32_t>> blocks;
  for (const std::int32_t index : order) {
    const BlockInput& trip = trips[static_cast<std::size_t>(index)];
    auto& idle = idle_by_group[trip.group];
    std::size_t best = idle.size();
    for (std::size_t k = 0; k < idle.size(); ++k) {
      const Idle& candidate = idle[k];
      const std::int32_t wait = trip.departure_s - candidate.free_s;
      if (wait < options.min_layover_s || wait > options.max_idle_s) {
        continue;
      }
      if (geo::HaversineM(candidate.at.lat, candidate.at.lon, trip.start.lat, trip.start.lon) >
          options.max_terminal_gap_m) {
        continue;
      }
      if (best == idle.size() || candidate.free_s < idle[best].free_s ||
          (candidate.free_s == idle[best].free_s && candidate.block < idle[best].block)) {
        best = k;
      }
    }
    std::int32_t block = 0;
    if (best < idle.size()) {
      block = idle[best].block;
      idle.erase(idle.begin() + static_cast<std::ptrdiff_t>(best));
    } else {
      block = static_cast<std::int32_t>(blocks.size());
      blocks.emplace_back();
    }
    blocks[static_cast<std::size_t>(block)].push_back(index);
    idle.push_back({block, trip.arrival_s, trip.end});
    // Vehicles idle too long have pulled in: forget them so the list stays short.
    std::erase_if(idle,
                  [&](const Idle& v) { return trip.departure_s - v.free_s > options.max_idle_s; });
  }
  return blocks;
}

std::int32_t PeakVehicles(const std::vector<BlockInput>& trips,
                          const std::vector<std::vector<std::int32_t>>& blocks,
                          std::int32_t before_s, std::int32_t after_s) {
  std::vector<std::pair<std::int32_t, std::int32_t>> events;  // (time, +1 / -1)
  for (const auto& block : blocks) {
    if (block.empty()) {
      continue;
    }
    events.emplace_back(trips[static_cast<std::size_t>(block.front())].departure_s - before_s, 1);
    events.emplace_back(trips[static_cast<std::size_t>(block.back())].arrival_s + after_s, -1);
  }
  std::sort(events.begin(), events.end(), [](const auto& a, const auto& b) {
    return a.first != b.first ? a.first < b.first : a.second < b.second;
  });
  std::int32_t current = 0;
  std::int32_t peak = 0;
  for (const auto& [time, delta] : events) {
    current += delta;
    peak = std::max(peak, current);
  }
  return peak;
}

}  // namespace frota::sim
