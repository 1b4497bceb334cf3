#include "frota/job/testing/random_feed.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <random>

namespace frota::job::testing {

namespace {

constexpr double kCentreLat = -22.9;
constexpr double kCentreLon = -43.3;
constexpr double kMetresPerDegreeLat = 111'195.0;

using std::chrono::seconds;

}  // namespace

std::string RandomFeedAreaGeoJson() {
  return fmt::format(
      R"({{"type":"Polygon","coordinates":[[[{0},{1}],[{2},{1}],[{2},{3}],[{0},{3}],[{0},{1}]]]}})",
      kCentreLon - 0.1, kCentreLat - 0.1, kCentreLon + 0.1, kCentreLat + 0.1);
}

std::vector<OfferedRecord> GenerateRandomFeed(const RandomFeedOptions& options,
                                              model::SourceCatalog& catalog) {
  std::mt19937_64 rng(options.seed);
  auto uniform = [&](double a, double b) {
    return std::uniform_real_distribution<double>(a, b)(rng);
  };
  auto chance = [&](double p) { return uniform(0, 1) < p; };
  auto pick = [&](int n) { return static_cast<int>(rng() % static_cast<std::uint64_t>(n)); };

  std::vector<model::SourceId> sources;
  for (int s = 0; s < options.source_partitions; ++s) {
    sources.push_back(catalog.Intern(fmt::format("feed-{}.bin", s)));
  }
  std::vector<std::int64_t> next_offset(sources.size(), 0);
  std::vector<OfferedRecord> records;
  const base::Timestamp start = base::FromUnixSeconds(1'656'558'000);  // 2022-06-30T03:00Z

  for (int v = 0; v < options.vehicles; ++v) {
    const int home = v % options.source_partitions;
    double lat = kCentreLat + uniform(-0.05, 0.05);
    double lon = kCentreLon + uniform(-0.05, 0.05);
    double heading = uniform(0, 6.283);
    base::Timestamp t = start + seconds(pick(120));
    const base::Timestamp end = start + seconds(options.minutes * 60);
    int trip = 0;
    std::string trip_id = fmt::format("T{}-{}", v, trip);
    bool stopped = false;
    double anchor_lat = lat;
    double anchor_lon = lon;
    int phase_left = 10;
    const model::Mode mode = v % 7 == 6 ? model::Mode::kBrt : model::Mode::kBus;
    const std::string route = fmt::format("R{}", v % 4);
    while (t < end) {
      // Next report time: usually 15-60 s, sometimes exactly at the rule boundaries.
      int gap = 15 + pick(46);
      const int r = pick(100);
      if (r == 0) {
        gap = 300;
      } else if (r == 1) {
        gap = 301;
      } else if (r == 2) {
        gap = 900;
      } else if (r == 3) {
        gap = 901 + pick(600);
      } else if (r == 4) {
        gap = 299;
      }
      t += seconds(gap);
      if (--phase_left <= 0) {
        stopped = !stopped && chance(0.5);
        phase_left = stopped ? 4 + pick(25) : 5 + pick(30);
        anchor_lat = lat;
        anchor_lon = lon;
        if (!stopped && chance(0.3)) {
          ++trip;
          trip_id = fmt::format("T{}-{}", v, trip);
        }
      }
      if (stopped) {
        // Jitter around the anchor, sometimes right at the 50 m radius.
        const double radius = chance(0.2) ? uniform(45, 55) : uniform(0, 30);
        const double angle = uniform(0, 6.283);
        lat = anchor_lat + radius * std::sin(angle) / kMetresPerDegreeLat;
        lon = anchor_lon +
              radius * std::cos(angle) / (kMetresPerDegreeLat * std::cos(anchor_lat * 0.01745));
      } else {
        const double metres = uniform(3, 16) * gap;  // 11-58 km/h
        heading += uniform(-0.5, 0.5);
        lat += metres * std::sin(heading) / kMetresPerDegreeLat;
        lon += metres * std::cos(heading) / (kMetresPerDegreeLat * std::cos(lat * 0.01745));
        // Stay near the centre.
        if (std::abs(lat - kCentreLat) > 0.08 || std::abs(lon - kCentreLon) > 0.08) {
          heading += 3.14159;
        }
      }
      model::Position p;
      p.feed_id = "test-feed";
      p.vehicle_id = fmt::format("V{:03d}", v);
      p.route_id = route;
      p.mode = mode;
      p.trip_id = trip_id;
      p.trip_start_date = "20220630";
      p.direction_id = static_cast<std::int8_t>(trip % 2);
      p.lat = lat;
      p.lon = lon;
      p.event_time = t;
      const int lag_kind = pick(100);
      const int lag = lag_kind < 90 ? 5 + pick(60) : lag_kind < 97 ? 240 + pick(60) : 0;
      p.ingest_time = t + seconds(lag);
      // Faults.
      const int fault = pick(200);
      if (fault == 0) {
        p.ingest_time = t - seconds(31 + pick(300));  // clock in the future
      } else if (fault == 1) {
        p.ingest_time = t + seconds(301 + pick(600));  // stale
      } else if (fault == 2) {
        p.lat = kCentreLat + 0.15;  // outside the area
      } else if (fault == 3 || fault == 6) {
        p.lat += 0.05;  // a jump of ~5.5 km
      } else if (fault == 4 || (stopped && pick(25) == 0)) {
        // Reassigned while parked (or anywhere, rarely): another vehicle's schedule slot.
        p.trip_id = fmt::format("T{}-{}", (v + 1) % options.vehicles, trip);
      } else if (fault == 5) {
        p.trip_id.clear();
      }
      int source = home;
      if (pick(20) == 0) {
        source = pick(options.source_partitions);
      }
      p.source = {sources[static_cast<std::size_t>(source)], 0};
      records.push_back({base::PartitionId(source), p});
      if (pick(30) == 0) {
        // A duplicate: same key and event time, maybe another source and position.
        model::Position dup = p;
        const int dup_source = pick(options.source_partitions);
        dup.source = {sources[static_cast<std::size_t>(dup_source)], 0};
        if (chance(0.5)) {
          dup.lat += 0.0001;
        }
        dup.ingest_time += seconds(pick(20));
        records.push_back({base::PartitionId(dup_source), dup});
      }
    }
  }
  // Arrival: by ingest time (each source is a collector whose ingest time grows), with
  // local disorder; offsets follow each source's arrival order.
  std::stable_sort(records.begin(), records.end(), [](const auto& a, const auto& b) {
    return a.position.ingest_time < b.position.ingest_time;
  });
  for (std::size_t i = 0; i + 1 < records.size(); ++i) {
    const std::size_t j = std::min(records.size() - 1,
                                   i + static_cast<std::size_t>(pick(options.shuffle_window + 1)));
    if (records[i].partition == records[j].partition) {
      continue;  // keep each source's own order
    }
    std::swap(records[i], records[j]);
  }
  for (auto& r : records) {
    auto& offset = next_offset[static_cast<std::size_t>(r.partition.value())];
    r.position.source.offset = offset++;
  }
  return records;
}

}  // namespace frota::job::testing
