// Where each route's trips start and end, for the stops job's near_terminal (semantics §4).
#pragma once

#include <optional>
#include <string_view>
#include <vector>

#include "frota/gtfs/route_resolver.h"
#include "frota/gtfs/static_feed.h"

namespace frota::gtfs {

/// A place where a route's trips begin or end.
struct TerminalPoint {
  double lat;
  double lon;
};

/// The terminal points of every route of a feed, for "is this stop near a terminal?".
///
/// A route's terminals are the first and the last point of the shape of each of its
/// trips; a trip without a shape (no shape_id, or a shape_id missing from shapes)
/// contributes its first and last stop from stop_times instead (the stops of the
/// lowest and highest stop_sequence, when they have coordinates). Duplicate points
/// are kept once. A route with neither has no terminals: NearTerminal() says false.
///
/// Lifecycle: built once from a feed and a resolver, then immutable; keeps a pointer
/// to `resolver` (which must outlive it) and copies the points it needs. Const
/// members are safe to call from any number of threads.
class TerminalIndex {
 public:
  TerminalIndex(const StaticFeed& feed, const RouteResolver& resolver);

  /// True when (lat, lon) is within `radius_m` (haversine) of a terminal of the route
  /// `feed_route_id` resolves to; nullopt when it resolves to no route.
  [[nodiscard]] std::optional<bool> NearTerminal(std::string_view feed_route_id, double lat,
                                                 double lon, double radius_m = 250) const;

  /// The terminals of `route` (a route of the feed), empty for a foreign pointer.
  [[nodiscard]] const std::vector<TerminalPoint>& TerminalsOf(const Route* route) const;

 private:
  const RouteResolver* resolver_;
  const Route* first_route_ = nullptr;                 // routes() of the feed, to index by position
  std::vector<std::vector<TerminalPoint>> terminals_;  // parallel to feed.routes()
};

}  // namespace frota::gtfs
