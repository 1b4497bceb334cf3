// Departures in a frota database: the one detector (regularity/departures.h) over its `positions`.
#pragma once

#include <vector>

#include "frota/base/status.h"
#include "frota/base/time_zone.h"
#include "frota/gtfs/route_resolver.h"
#include "frota/gtfs/static_feed.h"
#include "frota/regularity/departures.h"
#include "frota/regularity/runs.h"
#include "frota/sink/duckdb_connection.h"

namespace frota::batch {

using regularity::Departure;
using regularity::DepartureDetector;
using regularity::DepartureOptions;
using regularity::Fix;

/// Every departure in a frota database: the detector over the `positions` of every feed
/// route that resolves to a GTFS route with patterns, or whose trip tags name known
/// trips. Sorted by route, direction, time, vehicle. With `runs`, also each vehicle's
/// trips as runs over the same positions (regularity::SplitRuns), by vehicle and time.
base::Result<std::vector<Departure>> FindDepartures(
    sink::DuckDbConnection& db, const gtfs::StaticFeed& feed, const gtfs::RouteResolver& routes,
    const base::TimeZone& zone, const DepartureOptions& options = {},
    std::vector<regularity::RunTrip>* runs = nullptr);

}  // namespace frota::batch
