#include "frota/sim/faults.h"

namespace frota::sim {

namespace {
constexpr std::array<std::string_view, kFaultCount> kNames = {
    "future_clock",
    "gps_jump",
    "outside_city",
    "missing_vehicle_id",
    "missing_coordinates",
    "latitude_out_of_range",
    "longitude_out_of_range",
    "null_island",
    "missing_timestamp",
    "timestamp_in_milliseconds",
    "delayed_report",
    "repeat",
    "late_response",
    "headerless_response",
    "never_run",
    "duplicate_slot",
    "tagged_late",
    "reassigned_while_parked",
    "never_tagged",
    "feed_outage",
    "line_silent",
    "stale_plan",
};
}  // namespace

std::string_view FaultName(Fault fault) { return kNames[static_cast<std::size_t>(fault)]; }

std::optional<Fault> ParseFault(std::string_view name) {
  for (std::size_t i = 0; i < kNames.size(); ++i) {
    if (kNames[i] == name) {
      return static_cast<Fault>(i);
    }
  }
  if (name == "first_seen_far") {
    return Fault::kTaggedLate;
  }
  return std::nullopt;
}

double FaultConfig::RecordRate(Fault fault) const {
  switch (fault) {
    case Fault::kFutureClock:
      return future_clock;
    case Fault::kGpsJump:
      return gps_jump;
    case Fault::kOutsideCity:
      return outside_city;
    case Fault::kMissingVehicleId:
      return missing_vehicle_id;
    case Fault::kMissingCoordinates:
      return missing_coordinates;
    case Fault::kLatitudeOutOfRange:
      return latitude_out_of_range;
    case Fault::kLongitudeOutOfRange:
      return longitude_out_of_range;
    case Fault::kNullIsland:
      return null_island;
    case Fault::kTimestampInMilliseconds:
      return timestamp_in_milliseconds;
    default:
      return 0;
  }
}

FaultConfig FaultConfig::None() {
  FaultConfig config;
  for (double* rate :
       {&config.future_clock, &config.gps_jump, &config.outside_city, &config.missing_vehicle_id,
        &config.missing_coordinates, &config.latitude_out_of_range, &config.longitude_out_of_range,
        &config.null_island, &config.timestamp_in_milliseconds, &config.headerless_response,
        &config.missing_timestamp, &config.stalls_per_hour, &config.repeat, &config.never_run,
        &config.duplicate_slot, &config.tagged_late, &config.never_tagged,
        &config.reassigned_while_parked}) {
    *rate = 0;
  }
  config.late_responses = 0;
  config.feed_outages.clear();
  config.line_silences = 0;
  config.stale_plan_routes = 0;
  return config;
}

}  // namespace frota::sim
