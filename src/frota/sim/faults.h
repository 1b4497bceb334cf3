// The faults the simulator injects, modelled on what the Rio feeds are known for.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

namespace frota::sim {

/// Every fault the simulator can inject. Record faults change one entity of a
/// response; poll faults a whole response or a line's entities in it; trip faults what
/// the feed says about a trip.
enum class Fault : std::uint8_t {
  // Record faults (each fresh entity gets at most one).
  kFutureClock,         // the vehicle's clock runs 40 s to 10 min ahead
  kGpsJump,             // the position lands 3-12 km away, still inside the city
  kOutsideCity,         // the position lands outside the city's boundary
  kMissingVehicleId,    // no entity id, vehicle id or label
  kMissingCoordinates,  // no Position message
  kLatitudeOutOfRange,  // latitude times ten (a lost decimal point)
  kLongitudeOutOfRange,
  kNullIsland,        // 0, 0
  kMissingTimestamp,  // no timestamp, in a response whose header has none either
  kTimestampInMilliseconds,
  kDelayedReport,  // (not drawn) a fix shown more than 300 s after it was taken
  // Poll faults.
  kRepeat,              // a line's entities repeat the previous response's
  kLateResponse,        // an old response archived late, its ingest time going backwards
  kHeaderlessResponse,  // a response whose header has no timestamp
  // Trip faults.
  kNeverRun,               // a planned trip nobody runs
  kDuplicateSlot,          // a bus reports the slot of the previous departure of its route
  kTaggedLate,             // the trip id appears only 1.2-3 km after the terminal
  kReassignedWhileParked,  // during a layover the trip id briefly shows another slot
  kNeverTagged,            // no position of the trip carries its trip id (the route is there)
  // Feed faults: what the feed as a whole, or a line of it, fails to deliver.
  kFeedOutage,  // no response archived at all: the polls fail
  kLineSilent,  // a line's entities missing from the responses while the feed is up
  kStalePlan,   // the GTFS frota is given differs from what a route operates
};
inline constexpr std::size_t kFaultCount = 22;

/// The snake_case name used in the truth file and by `frota evaluate`.
std::string_view FaultName(Fault fault);
/// Also reads "first_seen_far", the name tagged_late had in truth files of version 1.
std::optional<Fault> ParseFault(std::string_view name);

/// A feed-wide outage drawn per day: it starts uniformly between the two times (seconds
/// of the service day, local) and lasts uniformly between the two durations.
struct OutageSpec {
  double earliest_start_s = 0;
  double latest_start_s = 0;
  double min_duration_s = 0;
  double max_duration_s = 0;
};

/// Record faults in the order a uniform draw picks them (cumulative rates).
inline constexpr std::array<Fault, 9> kDrawnRecordFaults = {Fault::kFutureClock,
                                                            Fault::kGpsJump,
                                                            Fault::kOutsideCity,
                                                            Fault::kMissingVehicleId,
                                                            Fault::kMissingCoordinates,
                                                            Fault::kLatitudeOutOfRange,
                                                            Fault::kLongitudeOutOfRange,
                                                            Fault::kNullIsland,
                                                            Fault::kTimestampInMilliseconds};

/// How often each fault happens. Defaults are the Rio-like day of docs/simulator.md.
struct FaultConfig {
  // Per fresh entity.
  double future_clock = 0.002;
  double gps_jump = 0.001;
  double outside_city = 0.001;
  double missing_vehicle_id = 0.0002;
  double missing_coordinates = 0.0002;
  double latitude_out_of_range = 0.0002;
  double longitude_out_of_range = 0.0002;
  double null_island = 0.0002;
  double timestamp_in_milliseconds = 0.0002;
  // Responses whose header has no timestamp, and the share of their entities without one.
  double headerless_response = 0.02;
  double missing_timestamp = 0.05;
  // Report delay. Each bus takes a GPS fix every 15 s on its own clock and sends it; it
  // reaches the server after floor + log-normal(median, sigma) seconds, and a poll shows
  // the newest fix that has arrived: ingest - GPS time has a median near 33 s. The
  // long tail comes from stalled connections: while a bus's link is down the server keeps
  // showing its last fix, older at every poll, until the link comes back.
  double delivery_floor_s = 3;
  double delivery_median_s = 22;
  double delivery_sigma = 0.35;
  double stalls_per_hour = 0.5;  // per bus in service
  double stall_min_s = 30;
  double stall_mean_s = 300;  // exponential beyond the minimum
  // Per (line, poll): the line's entities repeat the previous response.
  double repeat = 0.5;
  // Responses archived late per day.
  std::int32_t late_responses = 2;
  std::int32_t late_response_age_polls = 60;  // 15 minutes old
  // Per planned trip (explicit trips only for never_run and duplicate_slot).
  double never_run = 0.01;
  double duplicate_slot = 0.03;
  // Per trip run on a shape of at least 1.5 km: the trip id first shows 1.2-3 km out
  // (never past 300 m before the end); the real BRT feed tags most trips late.
  double tagged_late = 0.3;
  double tagged_late_min_m = 1200;
  double tagged_late_max_m = 3000;
  // Per trip run: no position of it carries its trip id (drawn before tagged_late).
  double never_tagged = 0.03;
  // Per layover of at least 6 minutes.
  double reassigned_while_parked = 0.03;
  // Feed-wide outages: one in the morning peak (8-20 min from 07:00-08:30) and one
  // midday (40-90 min from 11:00-13:00); each outage at least 5 min long is a coverage
  // gap for frota.
  std::vector<OutageSpec> feed_outages = {{7 * 3600, 8.5 * 3600, 8 * 60, 20 * 60},
                                          {11 * 3600, 13 * 3600, 40 * 60, 90 * 60}};
  // Lines silent while the feed is up: this many per day, each a route with departures
  // in the window, for 10-40 minutes starting in 06:00-21:00.
  std::int32_t line_silences = 3;
  double line_silent_min_s = 10 * 60;
  double line_silent_max_s = 40 * 60;
  // Routes whose operated departures differ from the GTFS written for frota: each of
  // their trips leaves up to this many seconds early or late (uniform).
  std::int32_t stale_plan_routes = 2;
  double stale_plan_early_s = 180;
  double stale_plan_late_s = 300;
  // Terminal layovers: the position of a bus standing at a terminal wanders this far
  // (a real event, not a fault): a slow circle of this diameter per stand.
  double terminal_drift_min_m = 20;
  double terminal_drift_max_m = 150;
  // Real events (not faults): incidents per trip, GPS noise.
  double incident = 0.03;
  double gps_noise_m = 3;

  /// The rate of a drawn record fault.
  [[nodiscard]] double RecordRate(Fault fault) const;
  /// A day without faults (still with report delay and GPS noise).
  static FaultConfig None();
};

}  // namespace frota::sim
