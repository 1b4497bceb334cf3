// The rules' parameters (semantics.md): defaults are the contract's numbers.
#pragma once

#include <chrono>
#include <functional>
#include <memory>
#include <optional>
#include <string_view>

#include "frota/base/time_zone.h"

namespace frota::geo {
class Area;
}

namespace frota::job {

using std::chrono::microseconds;
using std::chrono::seconds;

/// Every number of semantics.md sections 2-5, plus the context the jobs need.
///
/// The pointed-to area is owned by the caller and must outlive every Pipeline that uses
/// this config; it and `near_terminal` are called from every shard's thread, so both
/// must be safe to call concurrently (the static GTFS's TerminalIndex is).
struct JobConfig {
  // Section 2: validation.
  microseconds future_tolerance = seconds(30);  // rule 2
  microseconds stale_limit = seconds(300);      // rule 3
  const geo::Area* area = nullptr;              // rule 4; null: rule off
  double jump_kmh = 120;                        // rule 6
  double aircraft_jump_kmh = 1300;              // rule 6, mode aircraft
  // Section 3: time and progress.
  microseconds max_lateness = seconds(360);  // 5 min age limit + 30 s slack, rounded up
  microseconds idle_timeout = seconds(120);
  // Section 4: jobs.
  microseconds segment_max_gap = seconds(300);  // speed
  double stop_radius_m = 50;
  microseconds stop_min_duration = seconds(300);
  microseconds stop_max_gap = seconds(300);
  microseconds trip_max_gap = seconds(900);
  double terminal_radius_m = 250;
  /// Whether (lat, lon) lies within terminal_radius_m of a terminal of the route; nullopt
  /// when the route is unknown. Empty: no static GTFS, near_terminal is null.
  std::function<std::optional<bool>(std::string_view route_id, double lat, double lon)>
      near_terminal;
  // Section 1: hours and service dates are local to the feed.
  std::shared_ptr<const base::TimeZone> time_zone =
      std::make_shared<const base::TimeZone>(base::TimeZone::Utc());
};

}  // namespace frota::job
