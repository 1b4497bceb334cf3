#include "frota/batch/departures.h"

#include <duckdb.h>
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <numbers>
#include <set>
#include <tuple>

#include "frota/geo/haversine.h"

namespace frota::batch {

namespace {

constexpr double kMetresPerDegree = geo::kEarthRadiusM * std::numbers::pi / 180.0;

// Where a position falls on a shape: how far along it, and how far off it.
struct Projection {
  double along_m = 0;
  double off_m = std::numeric_limits<double>::infinity();
};

std::optional<base::LocalDate> ServiceDateOf(std::string_view trip_start_date) {
  return base::ParseDate(trip_start_date);
}

base::LocalDate LocalDateOf(const base::TimeZone& zone, base::Timestamp t) {
  return zone.ToLocalHour(t).date;
}

}  // namespace

// One shape of a route, with the cumulative length at each point.
struct DepartureInference::ShapeTrack {
  std::string shape_id;
  std::string route_id;
  int direction_id = -1;
  std::vector<gtfs::ShapePoint> points;
  std::vector<double> along_m;  // haversine length from the first point

  // The closest point of the shape at or beyond `min_along_m`, in a local flat frame
  // around the position (shapes are finely sampled; the error is centimetres).
  Projection Project(double lat, double lon, double min_along_m) const {
    Projection best;
    const double x_scale = std::cos(lat * std::numbers::pi / 180.0) * kMetresPerDegree;
    for (std::size_t i = 0; i + 1 < points.size(); ++i) {
      if (along_m[i + 1] < min_along_m) {
        continue;
      }
      const double ax = (points[i].lon - lon) * x_scale;
      const double ay = (points[i].lat - lat) * kMetresPerDegree;
      const double bx = (points[i + 1].lon - lon) * x_scale;
      const double by = (points[i + 1].lat - lat) * kMetresPerDegree;
      const double dx = bx - ax;
      const double dy = by - ay;
      const double length2 = dx * dx + dy * dy;
      double t = length2 > 0 ? -(ax * dx + ay * dy) / length2 : 0;
      t = std::clamp(t, 0.0, 1.0);
      const double along = along_m[i] + t * (along_m[i + 1] - along_m[i]);
      if (along < min_along_m) {
        continue;
      }
      const double px = ax + t * dx;
      const double py = ay + t * dy;
      const double off = std::sqrt(px * px + py * py);
      if (off < best.off_m) {
        best = {along, off};
      }
    }
    return best;
  }
};

// The shapes of one GTFS route (each once, with its trips' direction).
struct DepartureInference::RouteShapes {
  const gtfs::Route* route = nullptr;
  std::vector<const ShapeTrack*> shapes;
};

DepartureInference::DepartureInference(const gtfs::StaticFeed& feed,
                                       const gtfs::RouteResolver& routes,
                                       const base::TimeZone& zone, DepartureOptions options)
    : feed_(feed), routes_(routes), zone_(zone), options_(options) {
  std::set<std::pair<const gtfs::Route*, std::string>> seen;
  for (const gtfs::Trip& trip : feed.trips()) {
    const gtfs::Route* route = feed.FindRoute(trip.route_id);
    const gtfs::Shape* shape = trip.shape_id.empty() ? nullptr : feed.FindShape(trip.shape_id);
    if (route == nullptr || shape == nullptr || shape->points.size() < 2 ||
        !seen.emplace(route, shape->id).second) {
      continue;
    }
    auto track = std::make_unique<ShapeTrack>();
    track->shape_id = shape->id;
    track->route_id = route->id;
    track->direction_id = trip.direction_id;
    track->points = shape->points;
    track->along_m.push_back(0);
    for (std::size_t i = 1; i < shape->points.size(); ++i) {
      track->along_m.push_back(track->along_m.back() +
                               geo::HaversineM(shape->points[i - 1].lat,
                                               shape->points[i - 1].lon, shape->points[i].lat,
                                               shape->points[i].lon));
    }
    auto& entry = by_route_[route];
    if (!entry) {
      entry = std::make_unique<RouteShapes>();
      entry->route = route;
    }
    entry->shapes.push_back(track.get());
    tracks_.push_back(std::move(track));
  }
}

DepartureInference::~DepartureInference() = default;

const DepartureInference::RouteShapes* DepartureInference::ShapesFor(
    std::string_view feed_route_id) const {
  const gtfs::Route* route = routes_.Find(feed_route_id);
  const auto it = by_route_.find(route);
  return it == by_route_.end() ? nullptr : it->second.get();
}

bool DepartureInference::CanInfer(std::string_view feed_route_id) const {
  return ShapesFor(feed_route_id) != nullptr;
}

void DepartureInference::AddVehicle(std::string_view feed_id, std::string_view vehicle_id,
                                    std::span<const Fix> fixes,
                                    std::vector<Departure>& out) const {
  // Per shape start: armed (the vehicle was seen inside the zone since it last left),
  // blocked (it departed from here and has not yet been rearm_distance_m away).
  struct ZoneState {
    bool armed = false;
    bool blocked = false;
  };
  std::unordered_map<const ShapeTrack*, ZoneState> zones;
  std::string_view cached_route;
  const RouteShapes* cached_shapes = nullptr;
  const auto shapes_of = [&](std::string_view route) {
    if (route != cached_route || cached_shapes == nullptr) {
      cached_route = route;
      cached_shapes = ShapesFor(route);
    }
    return cached_shapes;
  };
  const auto distance_to_start = [](const ShapeTrack& s, const Fix& f) {
    return geo::HaversineM(s.points.front().lat, s.points.front().lon, f.lat, f.lon);
  };

  for (std::size_t i = 0; i < fixes.size(); ++i) {
    const Fix& fix = fixes[i];
    const RouteShapes* shapes = shapes_of(fix.route_id);
    if (shapes == nullptr) {
      continue;
    }
    // Leaving: the previous fix (same route) was inside an armed zone, this one is out.
    struct Candidate {
      const ShapeTrack* shape;
      double inside_m;
      double outside_m;
    };
    std::vector<Candidate> leaving;
    for (const ShapeTrack* shape : shapes->shapes) {
      ZoneState& state = zones[shape];
      const double d = distance_to_start(*shape, fix);
      if (state.blocked && d > options_.rearm_distance_m) {
        state.blocked = false;
      }
      if (d <= options_.zone_radius_m) {
        state.armed = state.armed || !state.blocked;
        continue;
      }
      if (!state.armed || i == 0) {
        continue;
      }
      state.armed = false;
      const Fix& previous = fixes[i - 1];
      const double d_previous = distance_to_start(*shape, previous);
      if (previous.route_id != fix.route_id || d_previous > options_.zone_radius_m ||
          fix.time - previous.time > options_.max_exit_gap) {
        continue;
      }
      leaving.push_back({shape, d_previous, d});
    }
    if (leaving.empty()) {
      continue;
    }
    // Which shape does it follow? Each candidate's next positions must stay in its
    // corridor and get progress_m along it within the window; the closest fit wins.
    const Candidate* best = nullptr;
    double best_mean_off = std::numeric_limits<double>::infinity();
    for (const Candidate& c : leaving) {
      double along = 0;
      double off_sum = 0;
      int n = 0;
      bool progressed = false;
      for (std::size_t j = i; j < fixes.size(); ++j) {
        const Fix& next = fixes[j];
        if (next.time - fix.time > options_.progress_window || next.route_id != fix.route_id) {
          break;
        }
        const Projection p = c.shape->Project(next.lat, next.lon, along - options_.backtrack_m);
        if (p.off_m > options_.corridor_m) {
          break;
        }
        along = std::max(along, p.along_m);
        off_sum += p.off_m;
        ++n;
        if (along >= options_.progress_m) {
          progressed = true;
          break;
        }
      }
      if (progressed && off_sum / n < best_mean_off) {
        best = &c;
        best_mean_off = off_sum / n;
      }
    }
    if (best == nullptr) {
      continue;
    }
    // The moment it crossed the zone's edge, between the last fix inside and this one.
    const Fix& previous = fixes[i - 1];
    double fraction = 1;
    if (best->outside_m > best->inside_m) {
      fraction = std::clamp((options_.zone_radius_m - best->inside_m) /
                                (best->outside_m - best->inside_m),
                            0.0, 1.0);
    }
    const auto span = fix.time - previous.time;
    const base::Timestamp crossed =
        previous.time + std::chrono::duration_cast<base::Micros>(span * fraction);
    Departure d;
    d.feed_id = feed_id;
    d.vehicle_id = vehicle_id;
    d.feed_route_id = fix.route_id;
    d.route_id = best->shape->route_id;
    d.direction_id = best->shape->direction_id;
    d.shape_id = best->shape->shape_id;
    d.departure_time = crossed;
    d.service_date = LocalDateOf(zone_, crossed);
    d.inferred = true;
    out.push_back(std::move(d));
    // Every start whose zone held the last fix inside is left now.
    for (const ShapeTrack* shape : shapes->shapes) {
      if (distance_to_start(*shape, previous) <= options_.zone_radius_m) {
        zones[shape] = ZoneState{false, true};
      }
    }
  }
}

std::vector<Departure> DeparturesFromTrips(const std::vector<model::TripRow>& trips,
                                           const gtfs::StaticFeed& feed,
                                           const base::TimeZone& zone,
                                           const DepartureOptions& options) {
  std::vector<Departure> out;
  for (const model::TripRow& row : trips) {
    const gtfs::Trip* trip = feed.FindTrip(row.trip_id);
    if (trip == nullptr) {
      continue;
    }
    double start_lat = NAN;
    double start_lon = NAN;
    const gtfs::Shape* shape = trip->shape_id.empty() ? nullptr : feed.FindShape(trip->shape_id);
    if (shape != nullptr && !shape->points.empty()) {
      start_lat = shape->points.front().lat;
      start_lon = shape->points.front().lon;
    } else if (const auto* first = feed.FindFirstStop(trip->id)) {
      if (const gtfs::Stop* stop = feed.FindStop(first->stop_id)) {
        start_lat = stop->lat;
        start_lon = stop->lon;
      }
    }
    if (!std::isfinite(start_lat) || !std::isfinite(start_lon)) {
      continue;
    }
    const double distance = geo::HaversineM(start_lat, start_lon, row.first_lat, row.first_lon);
    if (distance > options.trip_start_radius_m) {
      continue;
    }
    Departure d;
    d.feed_id = row.feed_id;
    d.vehicle_id = row.vehicle_id;
    d.feed_route_id = row.route_id;
    d.route_id = trip->route_id;
    d.direction_id = trip->direction_id >= 0 ? trip->direction_id : row.direction_id;
    d.trip_id = trip->id;
    d.shape_id = shape != nullptr ? shape->id : std::string();
    d.departure_time = row.first_time;
    d.service_date = ServiceDateOf(row.trip_start_date).value_or(LocalDateOf(zone, row.first_time));
    d.inferred = false;
    d.distance_m = distance;
    out.push_back(std::move(d));
  }
  return out;
}

namespace {

// Reads a query's result chunk by chunk (the bulk path: no per-value conversion).
class ChunkReader {
 public:
  ChunkReader(const ChunkReader&) = delete;
  ChunkReader& operator=(const ChunkReader&) = delete;
  ~ChunkReader() {
    if (chunk_ != nullptr) {
      duckdb_destroy_data_chunk(&chunk_);
    }
    duckdb_destroy_result(&result_);
  }
  static base::Result<std::unique_ptr<ChunkReader>> Run(sink::DuckDbConnection& db,
                                                        const std::string& sql) {
    std::unique_ptr<ChunkReader> reader(new ChunkReader());
    if (duckdb_query(db.raw(), sql.c_str(), &reader->result_) == DuckDBError) {
      return base::Internal("{}: {}", db.path(), duckdb_result_error(&reader->result_));
    }
    return reader;
  }
  // Advances to the next chunk; false at the end.
  bool Next() {
    if (chunk_ != nullptr) {
      duckdb_destroy_data_chunk(&chunk_);
    }
    chunk_ = duckdb_fetch_chunk(result_);
    return chunk_ != nullptr;
  }
  [[nodiscard]] std::size_t size() const { return duckdb_data_chunk_get_size(chunk_); }
  template <typename T>
  const T* Column(std::size_t column) const {
    return static_cast<const T*>(
        duckdb_vector_get_data(duckdb_data_chunk_get_vector(chunk_, column)));
  }
  std::string_view Text(std::size_t column, std::size_t row) const {
    auto* s = &Column<duckdb_string_t>(column)[row];
    // duckdb_string_t_data needs a mutable pointer; it does not write.
    return {duckdb_string_t_data(const_cast<duckdb_string_t*>(s)), duckdb_string_t_length(*s)};
  }

 private:
  ChunkReader() = default;
  duckdb_result result_{};
  duckdb_data_chunk chunk_ = nullptr;
};

std::string Quoted(std::string_view text) {
  std::string out = "'";
  for (const char c : text) {
    out += c;
    if (c == '\'') {
      out += '\'';
    }
  }
  return out + "'";
}

}  // namespace

base::Result<std::vector<Departure>> FindDepartures(sink::DuckDbConnection& db,
                                                    const gtfs::StaticFeed& feed,
                                                    const gtfs::RouteResolver& routes,
                                                    const base::TimeZone& zone,
                                                    const DepartureOptions& options) {
  std::vector<model::TripRow> trips;
  {
    FROTA_ASSIGN_OR_RETURN(
        auto rows, db.Query("SELECT feed_id, vehicle_id, trip_id, trip_start_date, "
                            "epoch_us(first_time), route_id, direction_id, trip_start_time, "
                            "first_lat, first_lon, epoch_us(last_time), last_lat, last_lon, "
                            "positions, distance_mm FROM trips"));
    for (std::size_t i = 0; i < rows.rows(); ++i) {
      model::TripRow t;
      t.feed_id = rows.String(i, 0);
      t.vehicle_id = rows.String(i, 1);
      t.trip_id = rows.String(i, 2);
      t.trip_start_date = rows.String(i, 3);
      t.first_time = base::FromUnixMicros(rows.Int64(i, 4));
      t.route_id = rows.String(i, 5);
      t.direction_id = rows.IsNull(i, 6) ? std::int8_t{-1} : static_cast<std::int8_t>(rows.Int64(i, 6));
      t.trip_start_time = rows.String(i, 7);
      t.first_lat = rows.Double(i, 8);
      t.first_lon = rows.Double(i, 9);
      t.last_time = base::FromUnixMicros(rows.Int64(i, 10));
      t.last_lat = rows.Double(i, 11);
      t.last_lon = rows.Double(i, 12);
      t.positions = rows.Int64(i, 13);
      t.distance_mm = rows.Int64(i, 14);
      trips.push_back(std::move(t));
    }
  }
  std::vector<Departure> out = DeparturesFromTrips(trips, feed, zone, options);

  // Feed routes with no trip at all, and whose GTFS route has shapes: inferred.
  DepartureInference inference(feed, routes, zone, options);
  std::vector<std::pair<std::string, std::string>> inferable;
  {
    FROTA_ASSIGN_OR_RETURN(auto rows,
                           db.Query("SELECT DISTINCT feed_id, route_id FROM positions "
                                    "WHERE route_id <> '' EXCEPT "
                                    "SELECT DISTINCT feed_id, route_id FROM trips"));
    for (std::size_t i = 0; i < rows.rows(); ++i) {
      std::string route = rows.String(i, 1);
      if (inference.CanInfer(route)) {
        inferable.emplace_back(rows.String(i, 0), std::move(route));
      }
    }
  }
  if (!inferable.empty()) {
    std::string filter;
    for (const auto& [feed_id, route_id] : inferable) {
      filter += fmt::format("{}({}, {})", filter.empty() ? "" : ", ", Quoted(feed_id),
                            Quoted(route_id));
    }
    FROTA_ASSIGN_OR_RETURN(
        auto reader,
        ChunkReader::Run(db, fmt::format("SELECT feed_id, vehicle_id, route_id, "
                                         "epoch_us(event_time), lat, lon FROM positions "
                                         "WHERE (feed_id, route_id) IN ({}) "
                                         "ORDER BY feed_id, vehicle_id, event_time",
                                         filter)));
    std::string feed_id;
    std::string vehicle_id;
    std::vector<Fix> fixes;
    // The fixes' route ids, stored once each; a set's elements never move.
    std::set<std::string, std::less<>> route_names;
    const auto route_name = [&](std::string_view route) -> std::string_view {
      auto it = route_names.find(route);
      if (it == route_names.end()) {
        it = route_names.emplace(route).first;
      }
      return *it;
    };
    const auto flush = [&] {
      if (!fixes.empty()) {
        inference.AddVehicle(feed_id, vehicle_id, fixes, out);
        fixes.clear();
      }
    };
    while (reader->Next()) {
      const auto* times = reader->Column<std::int64_t>(3);
      const auto* lats = reader->Column<double>(4);
      const auto* lons = reader->Column<double>(5);
      for (std::size_t r = 0; r < reader->size(); ++r) {
        const std::string_view f = reader->Text(0, r);
        const std::string_view v = reader->Text(1, r);
        if (f != feed_id || v != vehicle_id) {
          flush();
          feed_id = f;
          vehicle_id = v;
        }
        fixes.push_back({base::FromUnixMicros(times[r]), lats[r], lons[r],
                         route_name(reader->Text(2, r))});
      }
    }
    flush();
  }
  std::sort(out.begin(), out.end(), [](const Departure& a, const Departure& b) {
    return std::tie(a.route_id, a.direction_id, a.departure_time, a.vehicle_id) <
           std::tie(b.route_id, b.direction_id, b.departure_time, b.vehicle_id);
  });
  return out;
}

}  // namespace frota::batch
