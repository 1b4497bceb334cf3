#include "frota/batch/departures.h"

#include <algorithm>
#include <iterator>
#include <map>
#include <memory>
#include <set>
#include <span>
#include <tuple>

#include "frota/sink/chunk_reader.h"

namespace frota::batch {

base::Result<std::vector<Departure>> FindDepartures(sink::DuckDbConnection& db,
                                                    const gtfs::StaticFeed& feed,
                                                    const gtfs::RouteResolver& routes,
                                                    const base::TimeZone& zone,
                                                    const DepartureOptions& options,
                                                    std::vector<regularity::RunTrip>* runs) {
  const DepartureDetector detector(feed, routes, zone, options);
  std::vector<Departure> out;
  FROTA_ASSIGN_OR_RETURN(
      auto reader,
      sink::ChunkReader::Run(db,
                             "SELECT feed_id, vehicle_id, route_id, trip_id, trip_start_date, "
                             "epoch_us(event_time), lat, lon FROM positions "
                             "WHERE route_id <> '' OR trip_id <> '' "
                             "ORDER BY feed_id, vehicle_id, event_time"));
  std::string feed_id;
  std::string vehicle_id;
  std::vector<Fix> fixes;
  // The fixes' texts, stored once each; a set's elements never move.
  std::set<std::string, std::less<>> texts;
  const auto text = [&](std::string_view t) -> std::string_view {
    if (t.empty()) {
      return {};
    }
    auto it = texts.find(t);
    if (it == texts.end()) {
      it = texts.emplace(t).first;
    }
    return *it;
  };
  // Whether a route name (and trip) can depart, cached: most positions repeat both.
  std::map<std::pair<std::string_view, std::string_view>, bool> detectable;
  const auto flush = [&] {
    if (!fixes.empty()) {
      const std::size_t before = out.size();
      detector.AddVehicle(feed_id, vehicle_id, fixes, out);
      if (runs != nullptr) {
        auto vehicle_runs = regularity::SplitRuns(detector, feed_id, vehicle_id, fixes,
                                                  std::span(out).subspan(before));
        std::move(vehicle_runs.begin(), vehicle_runs.end(), std::back_inserter(*runs));
      }
      fixes.clear();
    }
  };
  while (reader->Next()) {
    const auto* times = reader->Column<std::int64_t>(5);
    const auto* lats = reader->Column<double>(6);
    const auto* lons = reader->Column<double>(7);
    for (std::size_t r = 0; r < reader->size(); ++r) {
      const std::string_view f = reader->Text(0, r);
      const std::string_view v = reader->Text(1, r);
      if (f != feed_id || v != vehicle_id) {
        flush();
        feed_id = f;
        vehicle_id = v;
      }
      const std::string_view route = text(reader->Text(2, r));
      const std::string_view trip = text(reader->Text(3, r));
      auto [it, inserted] = detectable.try_emplace(std::make_pair(route, trip), false);
      if (inserted) {
        it->second = detector.CanDetect(route, trip);
      }
      if (!it->second) {
        continue;
      }
      fixes.push_back({base::FromUnixMicros(times[r]), lats[r], lons[r], route, trip,
                       text(reader->Text(4, r))});
    }
  }
  FROTA_RETURN_IF_ERROR(reader->status());
  flush();
  std::sort(out.begin(), out.end(), [](const Departure& a, const Departure& b) {
    return std::tie(a.route_id, a.direction_id, a.departure_time, a.vehicle_id) <
           std::tie(b.route_id, b.direction_id, b.departure_time, b.vehicle_id);
  });
  return out;
}

}  // namespace frota::batch
