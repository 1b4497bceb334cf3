#include "frota/sim/fleet.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <numbers>

#include "frota/geo/grid.h"
#include "frota/geo/haversine.h"
#include "frota/sim/random.h"

namespace frota::sim {

namespace {

constexpr double kMinTurnaroundS = 60;
// A terminal dispatches a bus 0 to this many seconds after its timetable time (uniform):
// departures are never exactly on the minute, nor their headways all equal.
constexpr double kDispatchMaxS = 120;
constexpr double kTerminalRadiusM = 250;

// Local date and hour of instants, remembering the last hour's span.
class LocalHours {
 public:
  LocalHours(const base::TimeZone& zone, base::Timestamp origin) : zone_(zone), origin_(origin) {}
  base::LocalHour At(double t) {
    const base::Timestamp instant =
        origin_ + base::Micros(static_cast<std::int64_t>(std::floor(t * 1e6)));
    if (!(instant >= span_.from && instant < span_.until)) {
      span_ = zone_.LocalHourSpan(instant);
    }
    return span_.hour;
  }

 private:
  const base::TimeZone& zone_;
  base::Timestamp origin_;
  base::TimeZone::HourSpan span_{{}, base::Timestamp::max(), base::Timestamp::min()};
};

// Builds one bus's legs while it drives.
class Driver {
 public:
  Driver(SimVehicle& vehicle, double t) : vehicle_(vehicle), t_(t) {}
  [[nodiscard]] double t() const { return t_; }
  void Stand(double until, std::int32_t shape, float s, LegKind kind) {
    if (until <= t_) {
      return;
    }
    vehicle_.legs.push_back({until, odo_, s, s, shape, kind});
    t_ = until;
  }
  void Move(double duration, std::int32_t shape, float s0, float s1) {
    odo_ += std::abs(static_cast<double>(s1) - static_cast<double>(s0));
    t_ += std::max(duration, 1e-3);
    vehicle_.legs.push_back({t_, odo_, s0, s1, shape, LegKind::kMoving});
  }

 private:
  SimVehicle& vehicle_;
  double t_;
  double odo_ = 0;
};

std::size_t LegAt(const SimVehicle& vehicle, double t) {
  const auto it = std::lower_bound(vehicle.legs.begin(), vehicle.legs.end(), t,
                                   [](const Leg& leg, double value) { return leg.t_end < value; });
  return std::min<std::size_t>(static_cast<std::size_t>(it - vehicle.legs.begin()),
                               vehicle.legs.size() - 1);
}

}  // namespace

std::string_view LegKindName(LegKind kind) {
  switch (kind) {
    case LegKind::kMoving:
      return "moving";
    case LegKind::kDwell:
      return "dwell";
    case LegKind::kIncident:
      return "incident";
    case LegKind::kLayover:
      return "layover";
    case LegKind::kPreService:
      return "pre_service";
    case LegKind::kPostService:
      return "post_service";
  }
  return "moving";
}

VehicleSample SampleVehicle(const SimVehicle& vehicle, const DayPlan& plan, double t) {
  VehicleSample sample;
  const std::size_t i = LegAt(vehicle, t);
  const Leg& leg = vehicle.legs[i];
  const double t0 = i == 0 ? vehicle.t_on : vehicle.legs[i - 1].t_end;
  const double span = leg.t_end - t0;
  const double f = span > 0 ? std::clamp((t - t0) / span, 0.0, 1.0) : 1.0;
  const double s = leg.s_start + f * (static_cast<double>(leg.s_end) - leg.s_start);
  const ShapePath& path = plan.shapes[static_cast<std::size_t>(leg.shape)].path;
  sample.position = path.At(s);
  const double moved = std::abs(static_cast<double>(leg.s_end) - leg.s_start);
  sample.speed_mps = span > 0 ? moved / span : 0;
  sample.bearing_deg = path.BearingAt(s);
  sample.odometer_m = leg.odo_end - (1 - f) * moved;
  const auto label =
      std::upper_bound(vehicle.labels.begin(), vehicle.labels.end(), t,
                       [](double value, const LabelChange& c) { return value < c.t; });
  sample.slot = label == vehicle.labels.begin() ? -1 : std::prev(label)->slot;
  if (leg.kind == LegKind::kLayover || leg.kind == LegKind::kPreService ||
      leg.kind == LegKind::kPostService) {
    sample.terminal_stand = leg.s_start <= 0 || leg.s_start >= path.length_m() - 1;
    sample.stand_start = t0;
  }
  return sample;
}

std::pair<double, double> GpsError(const SimVehicle& vehicle, double t, double sigma_m) {
  // Three sinusoids per axis of amplitude sigma*sqrt(2/3): variance sigma^2 per axis,
  // correlated over minutes like real GPS error, and a pure function of time.
  const double amplitude = sigma_m * std::sqrt(2.0 / 3.0);
  double east = 0;
  double north = 0;
  for (std::size_t k = 0; k < 3; ++k) {
    east += amplitude *
            std::sin(2 * std::numbers::pi * t / vehicle.noise_period[k] + vehicle.noise_phase[k]);
    north += amplitude * std::sin(2 * std::numbers::pi * t / vehicle.noise_period[k + 3] +
                                  vehicle.noise_phase[k + 3]);
  }
  return {east, north};
}

Fleet BuildFleet(const DayPlan& plan, const TrafficModel& traffic, const FaultConfig& faults,
                 std::uint64_t seed, const base::TimeZone& zone) {
  Fleet fleet;
  for (const auto& trip : plan.trips) {
    fleet.route_ids.push_back(trip.route_id);
  }
  std::sort(fleet.route_ids.begin(), fleet.route_ids.end());
  fleet.route_ids.erase(std::unique(fleet.route_ids.begin(), fleet.route_ids.end()),
                        fleet.route_ids.end());
  const auto route_index = [&](const std::string& id) {
    return static_cast<std::int32_t>(
        std::lower_bound(fleet.route_ids.begin(), fleet.route_ids.end(), id) -
        fleet.route_ids.begin());
  };

  // Planned trips nobody runs (explicit trips only: a frequency instance has no slot of
  // its own to miss).
  std::vector<bool> runs(plan.trips.size(), true);
  for (std::size_t i = 0; i < plan.trips.size(); ++i) {
    if (!plan.trips[i].frequency_based) {
      ++fleet.explicit_trips;
      if (Rng::For(seed, "never_run", i).Bernoulli(faults.never_run)) {
        runs[i] = false;
        fleet.never_run.push_back(static_cast<std::int32_t>(i));
      }
    }
  }

  // Blocks over the trips that run.
  std::vector<std::int32_t> run_slots;
  std::vector<BlockInput> inputs;
  for (std::size_t i = 0; i < plan.trips.size(); ++i) {
    if (!runs[i]) {
      continue;
    }
    const PlannedTrip& trip = plan.trips[i];
    const ShapePath& path = plan.shapes[static_cast<std::size_t>(trip.shape)].path;
    run_slots.push_back(static_cast<std::int32_t>(i));
    inputs.push_back({route_index(trip.route_id), trip.departure_s, trip.arrival_s,
                      path.points().front(), path.points().back()});
  }
  auto blocks = BuildBlocks(inputs, BlockOptions{});
  std::stable_sort(blocks.begin(), blocks.end(), [&](const auto& a, const auto& b) {
    return inputs[static_cast<std::size_t>(a.front())].group <
           inputs[static_cast<std::size_t>(b.front())].group;
  });

  // The previous run departure of the same route and direction, for duplicate_slot, and
  // the next one, for reassignments.
  std::map<std::pair<std::string, int>, std::vector<std::int32_t>> by_line;
  for (const std::int32_t slot : run_slots) {
    const auto& trip = plan.trips[static_cast<std::size_t>(slot)];
    by_line[{trip.route_id, trip.direction_id}].push_back(slot);
  }
  const auto neighbour = [&](std::int32_t slot, int step) -> std::int32_t {
    const auto& trip = plan.trips[static_cast<std::size_t>(slot)];
    const auto& line = by_line[{trip.route_id, trip.direction_id}];
    const auto it = std::find(line.begin(), line.end(), slot);
    const auto at = (it - line.begin()) + step;
    return at < 0 || at >= static_cast<std::ptrdiff_t>(line.size())
               ? -1
               : line[static_cast<std::size_t>(at)];
  };

  // Terminal points per route, for the truth's near_terminal.
  std::vector<std::vector<LatLon>> terminals(fleet.route_ids.size());
  for (const auto& trip : plan.trips) {
    const auto& points = plan.shapes[static_cast<std::size_t>(trip.shape)].path.points();
    auto& list = terminals[static_cast<std::size_t>(route_index(trip.route_id))];
    for (const LatLon& p : {points.front(), points.back()}) {
      if (std::none_of(list.begin(), list.end(),
                       [&](const LatLon& q) { return q.lat == p.lat && q.lon == p.lon; })) {
        list.push_back(p);
      }
    }
  }

  static constexpr std::string_view kLetters = "ABCD";
  for (std::size_t v = 0; v < blocks.size(); ++v) {
    const auto& block = blocks[v];
    SimVehicle vehicle;
    vehicle.route = inputs[static_cast<std::size_t>(block.front())].group;
    vehicle.id = fmt::format(
        "{}{:05d}", kLetters[static_cast<std::size_t>(vehicle.route) % kLetters.size()], 10000 + v);
    Rng rng = Rng::For(seed, "vehicle", v);
    for (std::size_t k = 0; k < 6; ++k) {
      static constexpr std::array<double, 3> kLow = {120, 300, 900};
      static constexpr std::array<double, 3> kHigh = {300, 900, 2400};
      vehicle.noise_period[k] = rng.Uniform(kLow[k % 3], kHigh[k % 3]);
      vehicle.noise_phase[k] = rng.Uniform(0, 2 * std::numbers::pi);
    }
    const std::int32_t first_slot = run_slots[static_cast<std::size_t>(block.front())];
    const PlannedTrip& first = plan.trips[static_cast<std::size_t>(first_slot)];
    vehicle.t_on = first.departure_s - rng.Uniform(360, 840);
    vehicle.first_fix =
        static_cast<std::int64_t>(std::ceil(vehicle.t_on)) + rng.UniformInt(0, kFixPeriodS - 1);
    vehicle.labels.push_back({vehicle.t_on, -1});
    Driver driver(vehicle, vehicle.t_on);
    // Terminals dispatch a little after the timetable, never exactly on it (kDispatchMaxS).
    const auto dispatch_delay = [seed](std::int32_t slot) {
      return Rng::For(seed, "dispatch", static_cast<std::uint64_t>(slot)).Uniform(0, kDispatchMaxS);
    };
    driver.Stand(first.departure_s + dispatch_delay(first_slot), first.shape, 0,
                 LegKind::kPreService);

    for (std::size_t k = 0; k < block.size(); ++k) {
      const std::int32_t slot = run_slots[static_cast<std::size_t>(block[k])];
      const PlannedTrip& trip = plan.trips[static_cast<std::size_t>(slot)];
      const DrivenShape& shape = plan.shapes[static_cast<std::size_t>(trip.shape)];
      const double length = shape.path.length_m();
      Rng trip_rng = Rng::For(seed, "trip", static_cast<std::uint64_t>(slot));
      const double trip_factor = trip_rng.Uniform(0.9, 1.1);
      const bool long_trip = length >= kTaggedLateMinShapeM;
      const bool never_tagged = trip_rng.Bernoulli(faults.never_tagged);
      const bool tagged_late = !never_tagged && long_trip && trip_rng.Bernoulli(faults.tagged_late);
      const double tag_at_m = std::min(
          trip_rng.Uniform(faults.tagged_late_min_m, faults.tagged_late_max_m), length - 300);
      const bool duplicate = !trip.frequency_based && trip_rng.Bernoulli(faults.duplicate_slot);
      const bool incident = length >= 3000 && trip_rng.Bernoulli(faults.incident);
      const double incident_s = trip_rng.Uniform(1200, std::max(1201.0, length - 1200));
      const double incident_u = trip_rng.Uniform();
      const double incident_duration = 60 * (5 + 115 * incident_u * incident_u * incident_u);
      fleet.long_run_trips += long_trip && !never_tagged ? 1 : 0;
      fleet.explicit_run_trips += trip.frequency_based ? 0 : 1;

      // Layover before this trip (the first one had the pull-out standing instead).
      if (k > 0) {
        const double arrival = driver.t();
        const double departure =
            std::max<double>(trip.departure_s + dispatch_delay(slot), arrival + kMinTurnaroundS);
        if (departure - arrival >= 360) {
          ++fleet.long_layovers;
          Rng layover_rng = Rng::For(seed, "reassign", static_cast<std::uint64_t>(slot));
          // The next departure of the line (the last one of the day takes the previous).
          const std::int32_t next = neighbour(slot, 1);
          const std::int32_t other = next >= 0 ? next : neighbour(slot, -1);
          if (layover_rng.Bernoulli(faults.reassigned_while_parked) && other >= 0) {
            const double from = arrival + 60;
            const double until = from + layover_rng.Uniform(20, 45);
            const std::int32_t parked_slot = vehicle.labels.back().slot;
            vehicle.labels.push_back({from, other});
            vehicle.labels.push_back({until, parked_slot});
            fleet.reassignments.push_back({static_cast<std::int32_t>(v), other, from, until});
          }
        }
        driver.Stand(departure, trip.shape, 0, LegKind::kLayover);
      }

      const double t_departure = driver.t();
      std::int32_t reported = slot;
      if (duplicate) {
        // The previous departure's slot; the first departure of a line takes the next one's.
        const std::int32_t previous = neighbour(slot, -1);
        const std::int32_t other = previous >= 0 ? previous : neighbour(slot, 1);
        if (other >= 0) {
          reported = other;
        }
      }
      fleet.departures.push_back({static_cast<std::int32_t>(v), slot, reported, t_departure,
                                  t_departure, tagged_late, tagged_late ? tag_at_m : 0,
                                  never_tagged});
      const std::size_t departure_index = fleet.departures.size() - 1;
      vehicle.labels.push_back({t_departure, tagged_late || never_tagged ? -1 : reported});

      // Stretches between stops (and the incident), each at its own speed.
      std::vector<std::pair<double, LegKind>> marks;
      for (const double s : shape.stop_s) {
        marks.emplace_back(s, LegKind::kDwell);
      }
      if (incident) {
        marks.emplace_back(incident_s, LegKind::kIncident);
      }
      std::stable_sort(marks.begin(), marks.end(),
                       [](const auto& a, const auto& b) { return a.first < b.first; });
      marks.emplace_back(length, LegKind::kLayover);
      double s = 0;
      bool late_labelled = !tagged_late;
      // The moment the progress reaches kExitProgressM: the first moving leg across it.
      const auto note_exit = [&](double from_s, double to_s, double t0) {
        if (from_s < kExitProgressM && to_s >= kExitProgressM && to_s > from_s) {
          fleet.departures[departure_index].t_exit =
              t0 + (driver.t() - t0) * (kExitProgressM - from_s) / (to_s - from_s);
        }
      };
      for (const auto& [mark, kind] : marks) {
        const double target = std::clamp(mark, s, length);
        // tagged_late: the trip id appears once the bus is tag_at_m out.
        if (!late_labelled && target >= tag_at_m) {
          const double before = tag_at_m - s;
          const LatLon mid = shape.path.At((s + tag_at_m) / 2);
          const int hour = static_cast<int>(std::floor(driver.t() / 3600)) % 24;
          const double v_mps =
              traffic.SpeedMps(hour, mid) * trip_factor * trip_rng.Uniform(0.9, 1.1);
          const double t0 = driver.t();
          driver.Move(before / v_mps, trip.shape, static_cast<float>(s),
                      static_cast<float>(tag_at_m));
          note_exit(s, tag_at_m, t0);
          s = tag_at_m;
          vehicle.labels.push_back({driver.t(), reported});
          late_labelled = true;
        }
        if (target > s) {
          const LatLon mid = shape.path.At((s + target) / 2);
          const int hour = static_cast<int>(std::floor(driver.t() / 3600)) % 24;
          const double v_mps =
              traffic.SpeedMps(hour, mid) * trip_factor * trip_rng.Uniform(0.9, 1.1);
          const double t0 = driver.t();
          driver.Move((target - s) / v_mps, trip.shape, static_cast<float>(s),
                      static_cast<float>(target));
          note_exit(s, target, t0);
          s = target;
        }
        if (kind == LegKind::kDwell) {
          if (trip_rng.Bernoulli(0.8)) {
            driver.Stand(driver.t() + trip_rng.Uniform(10, 40), trip.shape, static_cast<float>(s),
                         LegKind::kDwell);
          }
        } else if (kind == LegKind::kIncident) {
          driver.Stand(driver.t() + incident_duration, trip.shape, static_cast<float>(s),
                       LegKind::kIncident);
        }
      }
    }
    const Leg& last = vehicle.legs.back();
    driver.Stand(driver.t() + rng.Uniform(120, 600), last.shape, last.s_end, LegKind::kPostService);
    vehicle.t_off = driver.t();
    // Link stalls, a Poisson process over the time in service.
    if (faults.stalls_per_hour > 0) {
      Rng stall_rng = Rng::For(seed, "stall", v);
      for (double t = vehicle.t_on + stall_rng.Exponential(3600 / faults.stalls_per_hour);
           t < vehicle.t_off; t += stall_rng.Exponential(3600 / faults.stalls_per_hour)) {
        const double until = t + faults.stall_min_s + stall_rng.Exponential(faults.stall_mean_s);
        vehicle.stalls.emplace_back(t, until);
        t = until;
      }
    }
    fleet.vehicles.push_back(std::move(vehicle));
  }

  // Truth: stops (stationary stretches), and movement per cell and hour.
  LocalHours hours(zone, plan.service_day_start);
  for (std::size_t v = 0; v < fleet.vehicles.size(); ++v) {
    const SimVehicle& vehicle = fleet.vehicles[v];
    for (std::size_t i = 0; i < vehicle.legs.size();) {
      if (vehicle.legs[i].kind == LegKind::kMoving) {
        ++i;
        continue;
      }
      const double t_start = i == 0 ? vehicle.t_on : vehicle.legs[i - 1].t_end;
      std::size_t j = i;
      LegKind kind = vehicle.legs[i].kind;
      double longest = 0;
      while (j < vehicle.legs.size() && vehicle.legs[j].kind != LegKind::kMoving) {
        const double start = j == 0 ? vehicle.t_on : vehicle.legs[j - 1].t_end;
        if (vehicle.legs[j].t_end - start > longest) {
          longest = vehicle.legs[j].t_end - start;
          kind = vehicle.legs[j].kind;
        }
        ++j;
      }
      const double t_end = vehicle.legs[j - 1].t_end;
      if (t_end - t_start >= kTrueStopMinS) {
        TrueStop stop;
        stop.vehicle = static_cast<std::int32_t>(v);
        stop.t_start = t_start;
        stop.t_end = t_end;
        stop.position = SampleVehicle(vehicle, plan, t_start + 1e-3).position;
        stop.kind = kind;
        for (const LatLon& terminal : terminals[static_cast<std::size_t>(vehicle.route)]) {
          if (geo::HaversineM(stop.position.lat, stop.position.lon, terminal.lat, terminal.lon) <=
              kTerminalRadiusM) {
            stop.near_terminal = true;
          }
        }
        fleet.stops.push_back(stop);
      }
      i = j;
    }
    double previous_odo = -1;
    CellHourKey last_key{0, -1, 0, 0};
    CellHourSums* sums = nullptr;
    for (auto fix = vehicle.first_fix; static_cast<double>(fix) <= vehicle.t_off;
         fix += kFixPeriodS) {
      const auto t = static_cast<double>(fix);
      const VehicleSample sample = SampleVehicle(vehicle, plan, t);
      if (previous_odo >= 0) {
        const auto hour = hours.At(t);
        const auto cell = geo::CellOf(sample.position.lat, sample.position.lon);
        const CellHourKey key{base::DaysSinceEpoch(hour.date), hour.hour, cell.x, cell.y};
        if (sums == nullptr || key != last_key) {
          sums = &fleet.cell_hours[key];
          last_key = key;
        }
        ++sums->segments;
        sums->distance_m += sample.odometer_m - previous_odo;
        sums->duration_s += static_cast<double>(kFixPeriodS);
      }
      previous_odo = sample.odometer_m;
    }
  }

  // Peak buses in service.
  std::vector<std::pair<double, int>> events;
  for (const auto& vehicle : fleet.vehicles) {
    events.emplace_back(vehicle.t_on, 1);
    events.emplace_back(vehicle.t_off, -1);
  }
  std::sort(events.begin(), events.end());
  int current = 0;
  for (const auto& [t, delta] : events) {
    current += delta;
    fleet.peak_vehicles = std::max(fleet.peak_vehicles, current);
  }
  return fleet;
}

}  // namespace frota::sim
