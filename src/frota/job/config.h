// The rules' parameters (semantics.md): defaults are the contract's numbers.
#pragma once

#include <array>
#include <chrono>
#include <cstddef>
#include <functional>
#include <memory>
#include <optional>
#include <string_view>

#include "frota/base/time_zone.h"
#include "frota/model/mode.h"

namespace frota::geo {
class Area;
}

namespace frota::job {

using std::chrono::microseconds;
using std::chrono::seconds;

/// Every number of semantics.md sections 2-5, plus the context the jobs need. Those of
/// sections 2-3 are the configurable rules (rules.h: keys, parsing, the record of them).
///
/// The pointed-to area is owned by the caller and must outlive every Pipeline that uses
/// this config; it and `near_terminal` are called from every shard's thread, so both
/// must be safe to call concurrently (the static GTFS's TerminalIndex is).
struct JobConfig {
  // Section 2: validation.
  microseconds future_tolerance = seconds(30);  // rule 2
  microseconds stale_limit = seconds(300);      // rule 3
  const geo::Area* area = nullptr;              // rule 4; null: rule off
  /// Rule 6: the largest implied speed, by mode (indexed by model::Mode).
  std::array<double, std::size(model::kAllModes)> max_speed_kmh = {120, 120, 120, 120, 1300, 120};
  // Section 3: time and progress.
  microseconds watermark_slack = seconds(30);
  microseconds idle_timeout = seconds(120);
  // Section 4: jobs.
  microseconds segment_max_gap = seconds(300);  // speed
  /// speed: a segment implying more than this (by mode) is a GPS glitch that rule 6 let
  /// through (a 2 km leap in a minute stays under its 120 km/h): counted, not summed.
  /// Bus and BRT: 90 km/h, above any Rio bus lane's limit; the others: rule 6's limit.
  std::array<double, std::size(model::kAllModes)> max_segment_speed_kmh = {90,  90,   120,
                                                                           120, 1300, 120};
  double stop_radius_m = 50;
  microseconds stop_min_duration = seconds(300);
  microseconds stop_max_gap = seconds(300);
  microseconds trip_max_gap = seconds(900);
  double terminal_radius_m = 250;
  /// Whether (lat, lon) lies within terminal_radius_m of a terminal of the route; nullopt
  /// when the route is unknown. Empty: no static GTFS, near_terminal is null.
  std::function<std::optional<bool>(std::string_view route_id, double lat, double lon)>
      near_terminal;
  /// trips: whether a trip is a schedule slot the plan defines (semantics §4 quality): a
  /// scheduled trip of the static GTFS, or one of its frequency trips when the feed gave
  /// the start time. Empty: no static GTFS, plan_slot is null. Called from every shard's
  /// thread, like near_terminal.
  std::function<bool(std::string_view trip_id, bool start_time_given)> plan_slot;
  // Section 1: hours and service dates are local to the feed.
  std::shared_ptr<const base::TimeZone> time_zone =
      std::make_shared<const base::TimeZone>(base::TimeZone::Utc());

  [[nodiscard]] double MaxSpeedKmh(model::Mode mode) const {
    return max_speed_kmh[static_cast<std::size_t>(mode)];
  }
  [[nodiscard]] double MaxSegmentSpeedKmh(model::Mode mode) const {
    return max_segment_speed_kmh[static_cast<std::size_t>(mode)];
  }
  /// The watermark's lag behind the largest event time (semantics.md section 3): the
  /// stale limit + the future tolerance + the slack, rounded up to a whole minute (6 min
  /// with the defaults). A record that passes rules 2-3 is at most stale_limit older
  /// than its ingest time, so no rule setting can make it `late`.
  [[nodiscard]] microseconds max_lateness() const {
    constexpr microseconds kMinute = std::chrono::minutes(1);
    const microseconds sum = stale_limit + future_tolerance + watermark_slack;
    return (sum + kMinute - microseconds(1)) / kMinute * kMinute;
  }
};

}  // namespace frota::job
