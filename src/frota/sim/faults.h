// The faults the simulator injects, modelled on what the Rio feeds are known for.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string_view>

namespace frota::sim {

/// Every fault the simulator can inject. Record faults change one entity of a
/// response; poll faults a whole response or a line's entities in it; trip faults what
/// the feed says about a trip.
enum class Fault : std::uint8_t {
  // Record faults (each fresh entity gets at most one).
  kFutureClock,        // the vehicle's clock runs 40 s to 10 min ahead
  kGpsJump,            // the position lands 3-12 km away, still inside the city
  kOutsideCity,        // the position lands outside the city's boundary
  kMissingVehicleId,   // no entity id, vehicle id or label
  kMissingCoordinates, // no Position message
  kLatitudeOutOfRange, // latitude times ten (a lost decimal point)
  kLongitudeOutOfRange,
  kNullIsland,         // 0, 0
  kMissingTimestamp,   // no timestamp, in a response whose header has none either
  kTimestampInMilliseconds,
  kDelayedReport,      // (not drawn) a fix shown more than 300 s after it was taken
  // Poll faults.
  kRepeat,             // a line's entities repeat the previous response's
  kLateResponse,       // an old response archived late, its ingest time going backwards
  kHeaderlessResponse, // a response whose header has no timestamp
  // Trip faults.
  kNeverRun,           // a planned trip nobody runs
  kDuplicateSlot,      // a bus reports the slot of the previous departure of its route
  kFirstSeenFar,       // the trip id appears only 1.5 km after the terminal
  kReassignedWhileParked,  // during a layover the trip id briefly shows another slot
};
inline constexpr std::size_t kFaultCount = 18;

/// The snake_case name used in the truth file and by `frota evaluate`.
std::string_view FaultName(Fault fault);
std::optional<Fault> ParseFault(std::string_view name);

/// Record faults in the order a uniform draw picks them (cumulative rates).
inline constexpr std::array<Fault, 9> kDrawnRecordFaults = {
    Fault::kFutureClock,         Fault::kGpsJump,           Fault::kOutsideCity,
    Fault::kMissingVehicleId,    Fault::kMissingCoordinates, Fault::kLatitudeOutOfRange,
    Fault::kLongitudeOutOfRange, Fault::kNullIsland,        Fault::kTimestampInMilliseconds};

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
  double stall_mean_s = 300;     // exponential beyond the minimum
  // Per (line, poll): the line's entities repeat the previous response.
  double repeat = 0.5;
  // Responses archived late per day.
  std::int32_t late_responses = 2;
  std::int32_t late_response_age_polls = 60;  // 15 minutes old
  // Per planned trip (explicit trips only for never_run and duplicate_slot).
  double never_run = 0.01;
  double duplicate_slot = 0.03;
  double first_seen_far = 0.02;
  // Per layover of at least 6 minutes.
  double reassigned_while_parked = 0.03;
  // Real events (not faults): incidents per trip, GPS noise.
  double incident = 0.03;
  double gps_noise_m = 3;

  /// The rate of a drawn record fault.
  [[nodiscard]] double RecordRate(Fault fault) const;
  /// A day without faults (still with report delay and GPS noise).
  static FaultConfig None();
};

}  // namespace frota::sim
