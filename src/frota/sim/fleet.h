// The simulated buses of one day: who drives which trips, where each bus is at any second.
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "frota/base/time_zone.h"
#include "frota/sim/faults.h"
#include "frota/sim/schedule.h"
#include "frota/sim/traffic.h"

namespace frota::sim {

enum class LegKind : std::uint8_t {
  kMoving,
  kDwell,
  kIncident,
  kLayover,
  kPreService,
  kPostService
};
std::string_view LegKindName(LegKind kind);

/// A stretch of a bus's day: moving linearly along `shape` from s_start to s_end, or
/// standing (s_start == s_end). It starts where the previous leg ended in time.
struct Leg {
  double t_end = 0;    // seconds after DayPlan::service_day_start
  double odo_end = 0;  // metres driven since pull-out, at t_end
  float s_start = 0;
  float s_end = 0;
  std::int32_t shape = 0;
  LegKind kind = LegKind::kMoving;
};

/// From `t` on, the feed reports the trip of plan slot `slot` (-1: route only).
struct LabelChange {
  double t = 0;
  std::int32_t slot = -1;
};

/// One bus: its block of trips turned into legs, and what the feed says it runs.
struct SimVehicle {
  std::string id;
  std::int32_t route = 0;  // index into Fleet::route_ids
  double t_on = 0;         // pull-out: first second it reports
  double t_off = 0;        // pull-in
  std::vector<Leg> legs;
  std::vector<LabelChange> labels;
  std::array<double, 6> noise_period{};  // GPS error: three sinusoids per axis
  std::array<double, 6> noise_phase{};
  /// GPS fixes: every kFixPeriodS from first_fix (whole seconds after service_day_start)
  /// up to t_off.
  std::int64_t first_fix = 0;
  /// Times its link to the server is down: fixes taken then arrive when it comes back.
  std::vector<std::pair<double, double>> stalls;
};

inline constexpr std::int64_t kFixPeriodS = 15;
/// Semantics §7: a departure is the last position within 1,000 m of the pattern's first
/// point before the progress along the pattern passes 1,000 m. On a true trajectory (a
/// straight line is never longer than the path) that is the moment the progress reaches it.
inline constexpr double kExitProgressM = 1000;

/// Where a bus truly is at an instant.
struct VehicleSample {
  LatLon position;  // true, without GPS error
  double speed_mps = 0;
  double bearing_deg = 0;
  double odometer_m = 0;
  std::int32_t slot = -1;
  /// Standing at a terminal (pull-out, layover, pull-in) since `stand_start` (the leg's
  /// start): where the GPS drifts.
  bool terminal_stand = false;
  double stand_start = 0;
};

/// A time a bus truly stood still for at least kTrueStopMinS.
struct TrueStop {
  std::int32_t vehicle = 0;
  double t_start = 0;
  double t_end = 0;
  LatLon position;
  LegKind kind = LegKind::kLayover;
  bool near_terminal = false;
};
inline constexpr double kTrueStopMinS = 240;

/// A trip that ran: when its bus left the first terminal.
struct TrueDeparture {
  std::int32_t vehicle = 0;
  std::int32_t slot = 0;           // the plan trip it ran
  std::int32_t reported_slot = 0;  // the slot the feed reports (differs for duplicate_slot)
  double t = 0;                    // it leaves the terminal (the end of its layover)
  // Its progress along the pattern reaches kExitProgressM: semantics §7's departure
  // moment on the true trajectory (a pattern shorter than that: t).
  double t_exit = 0;
  bool tagged_late = false;  // the trip id first shows tagged_late_m out
  double tagged_late_m = 0;
  bool never_tagged = false;  // the trip id never shows
};

struct Reassignment {
  std::int32_t vehicle = 0;
  std::int32_t slot = 0;  // reported briefly instead of the trip it is parked with
  double t_start = 0;
  double t_end = 0;
};

/// Sums of the true movement per (local date, hour, cell): semantics §4's segments over
/// every GPS fix of every bus, without error or fault, and with the distance along the
/// road instead of the chord.
struct CellHourKey {
  std::int32_t local_days = 0;
  std::int32_t hour = 0;
  std::int32_t cell_x = 0;
  std::int32_t cell_y = 0;
  auto operator<=>(const CellHourKey&) const = default;
};
struct CellHourSums {
  std::int64_t segments = 0;
  double distance_m = 0;
  double duration_s = 0;
};

/// Every bus of the day and the ground truth of their movement.
struct Fleet {
  std::vector<std::string> route_ids;  // sorted
  std::vector<SimVehicle> vehicles;    // sorted by (route, id): the order of a response
  std::vector<TrueStop> stops;
  std::vector<TrueDeparture> departures;
  std::vector<std::int32_t> never_run;  // plan slots nobody runs
  std::vector<Reassignment> reassignments;
  std::map<CellHourKey, CellHourSums> cell_hours;
  std::int32_t peak_vehicles = 0;
  // Opportunities of the trip faults, for their rates.
  std::int64_t explicit_trips = 0;      // never_run: planned explicit trips
  std::int64_t explicit_run_trips = 0;  // duplicate_slot
  std::int64_t long_run_trips = 0;      // tagged_late: trips of shapes >= 1.5 km, not never_tagged
  std::int64_t long_layovers = 0;       // reassigned_while_parked: layovers >= 6 min
};

/// Shortest shape on which a trip may be tagged late.
inline constexpr double kTaggedLateMinShapeM = 1500;

/// Runs the plan: drops never-run trips, chains the rest into blocks, and drives each
/// bus through its trips (speeds per traffic model with per-trip and per-stretch
/// variation, dwell at stops, layovers, incidents), recording the truth.
Fleet BuildFleet(const DayPlan& plan, const TrafficModel& traffic, const FaultConfig& faults,
                 std::uint64_t seed, const base::TimeZone& zone);

/// The bus's true state at `t` (seconds after service_day_start), t_on <= t <= t_off.
VehicleSample SampleVehicle(const SimVehicle& vehicle, const DayPlan& plan, double t);

/// The GPS error of the bus at `t`, metres east and north (smooth, correlated in time).
std::pair<double, double> GpsError(const SimVehicle& vehicle, double t, double sigma_m);

}  // namespace frota::sim
