// Reconcile and headways over a simulated day: buses driving the Rio BRT shapes back and
// forth every 15 s, written as Rio archive CSVs (one per line), replayed once, then timed.
//
// The day's size is FROTA_BENCH_POSITIONS positions (default 300,000 so that the ctest
// run stays short; the acceptance figure is 12,600,000). Inputs and the replayed database
// are kept in FROTA_BENCH_DIR (default: the system temp folder) and reused by later runs.
//
// FROTA_BENCH_SIM=DIR,DB measures a day of `frota simulate` instead (the acceptance run:
// the Rio-scale day, 3,600 buses, 12.2 M records): DIR is the simulator's output folder
// (archive DIR, DIR/gtfs, DIR/area.geojson) and DB the database `frota replay` wrote
// from it with --partitions 2. Reconcile only reads DB; headways writes its tables into
// it, so give it a copy.
#include <benchmark/benchmark.h>
#include <fmt/format.h>

#include <cmath>
#include <cstdlib>
#include <fstream>
#include <numbers>
#include <random>

#include "frota/base/time_zone.h"
#include "frota/batch/headways.h"
#include "frota/batch/reconcile.h"
#include "frota/geo/haversine.h"
#include "frota/gtfs/static_feed.h"
#include "frota/runner/replay_runner.h"
#include "frota/sink/duckdb_sink.h"
#include "frota/testing/shared_data.h"

namespace frota::batch {
namespace {

namespace fs = std::filesystem;

constexpr double kMetresPerDegree = geo::kEarthRadiusM * std::numbers::pi / 180.0;
constexpr int kReportSeconds = 15;
constexpr int kServiceStartS = 4 * 3600;
constexpr int kServiceEndS = 23 * 3600;
// A Wednesday the 2022 BRT calendar runs.
constexpr std::string_view kDay = "2022-08-03";

std::int64_t PositionsWanted() {
  const char* text = std::getenv("FROTA_BENCH_POSITIONS");
  return text != nullptr ? std::atoll(text) : 300'000;
}

struct Day {
  bool ok = false;
  std::string skip_reason;
  runner::ReplayConfig replay;
  fs::path db;
  std::int64_t positions = 0;
};

// One direction of a route: its shape with cumulative lengths, and a GTFS trip id.
struct Leg {
  std::vector<gtfs::ShapePoint> points;
  std::vector<double> along_m;
  std::string trip_id;
  char direction = 'I';
};

std::pair<double, double> PointAt(const Leg& leg, double along) {
  const auto it = std::upper_bound(leg.along_m.begin(), leg.along_m.end(), along);
  if (it == leg.along_m.end()) {
    return {leg.points.back().lat, leg.points.back().lon};
  }
  const std::size_t i = static_cast<std::size_t>(it - leg.along_m.begin());
  if (i == 0) {
    return {leg.points.front().lat, leg.points.front().lon};
  }
  const double span = leg.along_m[i] - leg.along_m[i - 1];
  const double f = span > 0 ? (along - leg.along_m[i - 1]) / span : 0;
  return {leg.points[i - 1].lat + f * (leg.points[i].lat - leg.points[i - 1].lat),
          leg.points[i - 1].lon + f * (leg.points[i].lon - leg.points[i - 1].lon)};
}

std::string Clock(int seconds) {
  return fmt::format("{} {:02d}:{:02d}:{:02d}", kDay, seconds / 3600, seconds / 60 % 60,
                     seconds % 60);
}

// Writes one CSV per route: vehicles leave a terminal every few minutes, drive one
// direction at 18-35 km/h, stand 4-10 minutes at the other end, drive back, and so on,
// from 04:00 to 23:00. Every other route carries GTFS trip ids (its departures come from
// trips); the others carry none (their departures are inferred). Faults: 0.3 % repeated
// rows (duplicates), 0.2 % positions 5 km off (jumps).
// The day FROTA_BENCH_SIM names, already simulated and replayed.
Day SimulatorDay(std::string_view spec) {
  Day day;
  const auto comma = spec.find(',');
  if (comma == std::string_view::npos) {
    day.skip_reason = "FROTA_BENCH_SIM must be DIR,DB";
    return day;
  }
  const fs::path dir(spec.substr(0, comma));
  day.db = fs::path(spec.substr(comma + 1));
  day.replay.inputs = {"archive:" + dir.string()};
  day.replay.gtfs = (dir / "gtfs").string();
  day.replay.area = (dir / "area.geojson").string();
  day.replay.partitions = 2;
  auto conn = sink::DuckDbConnection::Open(day.db, /*read_only=*/true);
  if (!conn.ok()) {
    day.skip_reason = conn.error().message();
    return day;
  }
  auto count = (*conn)->Query("SELECT count(*) FROM positions");
  if (!count.ok()) {
    day.skip_reason = count.error().message();
    return day;
  }
  day.positions = count->Int64(0, 0);
  day.ok = true;
  return day;
}

Day BuildDay() {
  if (const char* sim = std::getenv("FROTA_BENCH_SIM"); sim != nullptr && *sim != '\0') {
    return SimulatorDay(sim);
  }
  Day day;
  const auto gtfs_dir = testing::SharedFile("rio-brt-2022/gtfs");
  const auto area = testing::SharedFile("rio-boundary/rio-de-janeiro-3304557.geojson");
  if (!gtfs_dir || !area) {
    day.skip_reason =
        "the Rio BRT GTFS or boundary is not under " + testing::SharedDataDir().string();
    return day;
  }
  const std::int64_t wanted = PositionsWanted();
  const char* dir_env = std::getenv("FROTA_BENCH_DIR");
  const fs::path dir = (dir_env != nullptr ? fs::path(dir_env) : fs::temp_directory_path()) /
                       fmt::format("frota-bench-day-{}", wanted);
  day.db = dir / "stream.duckdb";
  day.replay.gtfs = gtfs_dir->string();
  day.replay.area = area->string();
  day.replay.partitions = 2;
  day.replay.threads = 2;
  const fs::path done = dir / "replayed";

  auto feed = gtfs::StaticFeed::Load(*gtfs_dir);
  if (!feed.ok()) {
    day.skip_reason = feed.error().message();
    return day;
  }
  std::vector<std::pair<const gtfs::Route*, std::vector<Leg>>> routes;
  for (const auto& route : feed->routes()) {
    std::vector<Leg> legs;
    for (const auto& trip : feed->trips()) {
      const gtfs::Shape* shape = feed->FindShape(trip.shape_id);
      if (trip.route_id != route.id || shape == nullptr || shape->points.size() < 2 ||
          legs.size() == 2) {
        continue;
      }
      Leg leg;
      leg.points = shape->points;
      leg.along_m.push_back(0);
      for (std::size_t i = 1; i < leg.points.size(); ++i) {
        leg.along_m.push_back(leg.along_m.back() +
                              geo::HaversineM(leg.points[i - 1].lat, leg.points[i - 1].lon,
                                              leg.points[i].lat, leg.points[i].lon));
      }
      leg.trip_id = trip.id;
      leg.direction = trip.direction_id == 1 ? 'V' : 'I';
      legs.push_back(std::move(leg));
    }
    if (legs.size() == 2) {
      routes.emplace_back(&route, std::move(legs));
    }
  }
  const int fixes_per_vehicle = (kServiceEndS - kServiceStartS) / kReportSeconds;
  const auto vehicles = static_cast<int>((wanted + fixes_per_vehicle - 1) / fixes_per_vehicle);

  if (!fs::exists(done)) {
    fs::remove_all(dir);
    fs::create_directories(dir);
    std::mt19937_64 rng(2022);
    std::uniform_real_distribution<double> unit(0, 1);
    std::normal_distribution<double> noise_m(0, 4);
    struct Row {
      int capture_s;
      std::string text;
    };
    for (std::size_t r = 0; r < routes.size(); ++r) {
      const auto& [route, legs] = routes[r];
      const bool with_trips = r % 2 == 0;
      std::vector<Row> rows;
      const int route_vehicles = vehicles / static_cast<int>(routes.size()) +
                                 (static_cast<int>(r) < vehicles % static_cast<int>(routes.size()));
      for (int v = 0; v < route_vehicles; ++v) {
        const std::string vehicle = fmt::format("{}{:04d}", route->short_name, v);
        int t = kServiceStartS + (v * 240) % 7200;  // leaves every 4 minutes, in waves
        int leg_index = v % 2;
        while (t < kServiceEndS) {
          const Leg& leg = legs[static_cast<std::size_t>(leg_index)];
          const double speed = (18 + 17 * unit(rng)) / 3.6;
          const int dwell = 240 + static_cast<int>(360 * unit(rng));
          const int drive = static_cast<int>(leg.along_m.back() / speed);
          for (int s = 0; s < drive + dwell && t + s < kServiceEndS; s += kReportSeconds) {
            const double along = std::min(leg.along_m.back(), s * speed);
            auto [lat, lon] = PointAt(leg, along);
            lat += noise_m(rng) / kMetresPerDegree;
            lon += noise_m(rng) / (kMetresPerDegree * std::cos(lat * std::numbers::pi / 180));
            if (unit(rng) < 0.002) {
              lat += 0.05;  // a 5.5 km jump
            }
            const int capture = t + s + 20 + static_cast<int>(10 * unit(rng));
            std::string text =
                fmt::format("{},{},{},{},{},{:.6f},{:.6f},{},{},{},{},{},{}\n", Clock(0),
                            (t + s) / 3600, vehicle, Clock(t + s), Clock(capture), lat, lon,
                            route->short_name, "bench", s < drive ? 30 : 0, leg.direction,
                            route->short_name, with_trips ? leg.trip_id : std::string());
            if (unit(rng) < 0.003) {
              rows.push_back({capture + 1, text});  // the same fix received twice
            }
            rows.push_back({capture, std::move(text)});
          }
          t += drive + dwell;
          leg_index = 1 - leg_index;
        }
      }
      std::stable_sort(rows.begin(), rows.end(),
                       [](const Row& a, const Row& b) { return a.capture_s < b.capture_s; });
      std::ofstream out(dir / fmt::format("{}.csv", route->short_name));
      out << "index,data,hora,id_veiculo,timestamp_gps,timestamp_captura,latitude,longitude,"
             "servico,sentido,velocidade,direction,trip_short_name,trip_id\n";
      std::int64_t index = 0;
      for (const auto& row : rows) {
        out << index++ << ',' << row.text;
      }
    }
  }
  for (const auto& entry : fs::directory_iterator(dir)) {
    if (entry.path().extension() == ".csv") {
      day.replay.inputs.push_back(entry.path().string());
    }
  }
  std::sort(day.replay.inputs.begin(), day.replay.inputs.end());
  if (!fs::exists(done)) {
    auto context = runner::LoadReplayContext(day.replay);
    model::SourceCatalog catalog;
    auto sink = sink::DuckDbSink::Open(day.db, &catalog, "bench");
    if (!context.ok() || !sink.ok()) {
      day.skip_reason = "cannot set up the replay";
      return day;
    }
    const auto report = runner::RunReplay(day.replay, **context, catalog, **sink);
    if (!report.ok()) {
      day.skip_reason = report.error().message();
      return day;
    }
    std::ofstream(done) << report->records << "\n";
  }
  {
    auto conn = sink::DuckDbConnection::Open(day.db, /*read_only=*/true);
    auto count = conn.ok() ? (*conn)->Query("SELECT count(*) FROM positions")
                           : base::Result<sink::DuckDbResult>(conn.error());
    day.positions = count.ok() ? count->Int64(0, 0) : 0;
  }
  day.ok = true;
  return day;
}

const Day& SimulatedDay() {
  static const Day kDay = BuildDay();
  return kDay;
}

void BM_ReconcileSimulatedDay(benchmark::State& state) {
  const Day& day = SimulatedDay();
  if (!day.ok) {
    state.SkipWithError(day.skip_reason.c_str());
    return;
  }
  ReconcileReport last;
  for (auto _ : state) {
    ReconcileConfig config;
    config.replay = day.replay;
    config.db = day.db;
    auto report = Reconcile(config);
    if (!report.ok()) {
      state.SkipWithError(report.error().message().c_str());
      return;
    }
    last = std::move(report).value();
  }
  state.counters["positions"] = static_cast<double>(day.positions);
  state.counters["records"] = static_cast<double>(last.records);
  state.counters["equal"] = last.equal ? 1 : 0;
  for (const auto& [phase, seconds] : last.phase_seconds) {
    state.counters[phase] = seconds;
  }
}
BENCHMARK(BM_ReconcileSimulatedDay)->Unit(benchmark::kSecond)->Iterations(1)->UseRealTime();

void BM_HeadwaysSimulatedDay(benchmark::State& state) {
  const Day& day = SimulatedDay();
  if (!day.ok) {
    state.SkipWithError(day.skip_reason.c_str());
    return;
  }
  auto feed = gtfs::StaticFeed::Load(day.replay.gtfs);
  auto db = sink::OpenFrotaDuckDb(day.db, /*must_exist=*/true);
  if (!feed.ok() || !db.ok()) {
    state.SkipWithError("cannot open the GTFS or the database");
    return;
  }
  HeadwayReport last;
  for (auto _ : state) {
    auto report = ComputeHeadways(**db, *feed, {});
    if (!report.ok()) {
      state.SkipWithError(report.error().message().c_str());
      return;
    }
    last = std::move(report).value();
  }
  state.counters["positions"] = static_cast<double>(day.positions);
  state.counters["departures"] = static_cast<double>(last.departures);
  state.counters["inferred"] = static_cast<double>(last.inferred_departures);
}
BENCHMARK(BM_HeadwaysSimulatedDay)->Unit(benchmark::kSecond)->Iterations(3)->UseRealTime();

}  // namespace
}  // namespace frota::batch
