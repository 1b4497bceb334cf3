// Departures from a route's origin terminal (semantics §7): one geometric detector, with trip ids
// choosing the pattern where the feed has them.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "frota/base/bytes.h"
#include "frota/base/status.h"
#include "frota/base/time.h"
#include "frota/base/time_zone.h"
#include "frota/gtfs/route_resolver.h"
#include "frota/gtfs/static_feed.h"

namespace frota::regularity {

/// A vehicle leaving the origin terminal of one of its route's patterns.
struct Departure {
  std::string feed_id;
  std::string vehicle_id;
  std::string feed_route_id;       // as the feed names the route ("53B")
  std::string route_id;            // the GTFS route ("B0053AABBA")
  int direction_id = -1;           // the pattern's trips'
  std::string trip_id;             // the feed's trip tag that chose the pattern; empty if none
  std::string trip_start_date;     // that tag's start date (YYYYMMDD); empty if none
  std::string shape_id;            // the pattern (a shape id, or "stops:" + its first stop id)
  base::LocalDate service_date;    // the tag's start date, else the local date (the service
                                   // plan may move it to the day before for a night service)
  base::Timestamp departure_time;  // the last position within terminal_radius_m of the
                                   // pattern's first point before the progress passed
  bool inferred = false;           // the pattern came from geometry, no trip tag chose it
  bool tagged_late = false;        // the tag's first position lay beyond terminal_radius_m
  double distance_m = 0;           // the departure position's distance from the first point
  // The vehicle's own silence hid when it left: more than max_exit_gap between its last
  // position at the terminal (or before it) and its first out on the pattern
  // (docs/semantics-notes.md). departure_time is then max_exit_gap before that first
  // position; such a departure is no `departures` row and no headway, but the line's
  // headway across it is left out as a coverage gap.
  bool hidden = false;
};

/// The numbers of the departure rule (semantics §7, docs/departures.md).
struct DepartureOptions {
  /// "Within 1,000 m of the pattern's first point".
  double terminal_radius_m = 1000;
  /// "Before the vehicle's progress along the pattern passes 1,000 m".
  double progress_m = 1000;
  /// A position is on a pattern when it lies this close to the pattern's line.
  double corridor_m = 200;
  /// After a departure, the vehicle must get this far from that terminal before it can
  /// depart from it again (GPS drift at the circle's edge is not a second departure).
  double rearm_m = 1500;
  /// The last position at the terminal and the first past progress_m are at most this far
  /// apart in time; a longer silence hides when the vehicle left (Departure::hidden).
  std::chrono::seconds max_exit_gap{std::chrono::minutes(10)};
  /// A trip tag that starts after the vehicle left names the departure of the
  /// `tag_window` before it.
  std::chrono::seconds tag_window{std::chrono::minutes(30)};
  /// One trip tag's positions more than this apart are two runs of it (the trips job's
  /// rule, semantics §4: a frequency-based trip id is the same all day).
  std::chrono::seconds tag_split{std::chrono::seconds(900)};
  /// Several patterns leave one terminal: the one the next positions follow best, over
  /// this distance along it or this time, wins.
  double choice_m = 3000;
  std::chrono::seconds choice_window{std::chrono::minutes(15)};
  /// false: trip tags are ignored and every pattern is inferred (`--compare-inferred`).
  bool use_trip_ids = true;
};

/// One accepted position of a vehicle, as the detector reads it.
struct Fix {
  base::Timestamp time;
  double lat = 0;
  double lon = 0;
  std::string_view route_id;         // the feed's route name
  std::string_view trip_id;          // empty when untagged
  std::string_view trip_start_date;  // YYYYMMDD, may be empty
};

/// Finds departures in a vehicle's positions (semantics §7). A pattern is a shape of the
/// route (its trips' direction), or for a trip without a shape the radial distance from
/// its first stop. A vehicle departs along pattern P at the last position within
/// terminal_radius_m of P's first point before a position on P (within corridor_m of
/// it) lies progress_m or more along P, that last position being less than progress_m
/// along P (progress passes the mark going out, not coming in). The candidate patterns at a
/// position are the shapes of the route the feed names (gtfs::RouteResolver) and the pattern of the
/// trip it is tagged with (a trip without a shape takes part only through its tag). When several
/// patterns leave one terminal together, the trip tag in force chooses (the tag of the first
/// position past progress_m, else a tag of the same vehicle that starts in the tag_window after the
/// departure), else the pattern the next positions follow best. Each run of a tag (trip, start
/// date) of a vehicle, split as the trips job splits trips, chooses at most one departure.
///
/// Lifecycle: built once per GTFS feed, which must outlive it; AddVehicle() per vehicle;
/// const members are safe to call from any number of threads.
class DepartureDetector {
 public:
  DepartureDetector(const gtfs::StaticFeed& feed, const gtfs::RouteResolver& routes,
                    const base::TimeZone& zone, DepartureOptions options = {});
  ~DepartureDetector();
  DepartureDetector(const DepartureDetector&) = delete;
  DepartureDetector& operator=(const DepartureDetector&) = delete;

  /// Whether positions naming `feed_route_id` (or tagged `trip_id`) can depart: the
  /// route resolves to one with a shape, or the tag names a known trip.
  [[nodiscard]] bool CanDetect(std::string_view feed_route_id, std::string_view trip_id = {}) const;

  /// The full shape of the pattern `pattern_id` (Departure::shape_id); null for a pattern
  /// without a shape (a trip's first stop) or an unknown id.
  [[nodiscard]] const gtfs::Shape* ShapeOfPattern(std::string_view pattern_id) const;
  /// The pattern of trip `trip_id`: its route, direction and full shape (null without one).
  struct TripPattern {
    const gtfs::Route* route = nullptr;
    int direction_id = -1;
    const gtfs::Shape* shape = nullptr;
  };
  [[nodiscard]] std::optional<TripPattern> PatternOfTripId(std::string_view trip_id) const;

  /// Appends the departures of one vehicle, given all its positions in time order.
  void AddVehicle(std::string_view feed_id, std::string_view vehicle_id, std::span<const Fix> fixes,
                  std::vector<Departure>& out) const;

  struct Pattern;

 private:
  friend class VehicleTrack;
  const std::vector<const Pattern*>* PatternsOfRoute(std::string_view feed_route_id) const;
  const Pattern* PatternOfTrip(std::string_view trip_id) const;

  const gtfs::RouteResolver& routes_;
  const base::TimeZone& zone_;
  DepartureOptions options_;
  std::vector<std::unique_ptr<Pattern>> patterns_;
  std::unordered_map<const gtfs::Route*, std::vector<const Pattern*>> by_route_;
  std::unordered_map<std::string, const Pattern*> by_trip_;
  std::unordered_map<std::string_view, const gtfs::Shape*> shapes_;  // by shape id
};

/// One vehicle's positions as they arrive, and the departures the detector finds in them,
/// found as soon as the positions allow and nothing kept that the rule will not read
/// again: the streaming form of DepartureDetector::AddVehicle, which runs one over a whole
/// day. Add() takes positions in any order at or after the last Advance()'s known_until;
/// Advance(known_until), once every position before known_until has arrived, runs the rule
/// over each position whose look-ahead (max(tag_window, choice_window)) ends before it and
/// appends the departures, in AddVehicle's order. A departure not yet found leaves at or
/// after known_until − look-ahead − max_exit_gap.
///
/// Not thread-safe; the detector and the texts of the fixes must outlive it.
class VehicleTrack {
 public:
  VehicleTrack(const DepartureDetector& detector, std::string feed_id, std::string vehicle_id);
  ~VehicleTrack();
  VehicleTrack(VehicleTrack&&) noexcept;
  VehicleTrack& operator=(VehicleTrack&&) noexcept;

  void Add(const Fix& fix);
  void Advance(base::Timestamp known_until, std::vector<Departure>& out);
  /// The positions kept (those the rule may still read).
  [[nodiscard]] std::size_t kept() const;

  /// Its state, for VehicleTrack::Restore with the same detector (the same GTFS).
  void Snapshot(base::ByteWriter& w) const;
  /// `intern` gives the texts read back storage that outlives the track.
  base::Status Restore(base::ByteReader& r,
                       const std::function<std::string_view(std::string_view)>& intern);

 private:
  struct State;
  std::unique_ptr<State> s_;
};

}  // namespace frota::regularity
