#include "frota/testing/street_feed.h"

#include <fmt/format.h>

#include <cmath>
#include <fstream>
#include <numbers>

namespace frota::testing {

std::pair<double, double> StreetPoint(double east_m, double north_m) {
  constexpr double kMetresPerDegree = 6'371'008.8 * std::numbers::pi / 180.0;
  const double lon_metres = kMetresPerDegree * std::cos(kStreetLat * std::numbers::pi / 180.0);
  return {kStreetLat + north_m / kMetresPerDegree, kStreetLon + east_m / lon_metres};
}

void WriteStreetFeed(const std::filesystem::path& dir, const StreetFeedOptions& options) {
  std::ofstream(dir / "agency.txt") << "agency_name,agency_url,agency_timezone\n"
                                       "A,http://a,America/Sao_Paulo\n";
  std::ofstream(dir / "routes.txt") << "route_id,route_short_name,route_type\nR53,B53,3\n";
  const auto west = StreetPoint(0);
  const auto east = StreetPoint(5000);
  std::ofstream(dir / "stops.txt")
      << fmt::format("stop_id,stop_name,stop_lat,stop_lon\nW,West,{},{}\nE,East,{},{}\n",
                     west.first, west.second, east.first, east.second);
  std::ofstream(dir / "calendar.txt")
      << "service_id,monday,tuesday,wednesday,thursday,friday,saturday,sunday,start_date,"
         "end_date\nU,1,1,1,1,1,1,1,20220101,20221231\n";
  std::ofstream trips(dir / "trips.txt");
  std::ofstream times(dir / "stop_times.txt");
  trips << "route_id,service_id,trip_id,direction_id,shape_id\n";
  times << "trip_id,arrival_time,departure_time,stop_id,stop_sequence\n";
  if (options.westward) {
    trips << "R53,U,V0,1,SV\n";
    times << "V0,06:00:00,06:00:00,E,1\nV0,06:20:00,06:20:00,W,2\n";
  }
  for (int i = 0; i < options.eastward_trips; ++i) {
    const int m = 6 * 60 + 10 * i;
    trips << fmt::format("R53,U,I{},0,SI\n", i);
    times << fmt::format(
        "I{0},{1:02d}:{2:02d}:00,{1:02d}:{2:02d}:00,W,1\n"
        "I{0},{3:02d}:{4:02d}:00,{3:02d}:{4:02d}:00,E,2\n",
        i, m / 60, m % 60, (m + 20) / 60, (m + 20) % 60);
  }
  std::ofstream shapes(dir / "shapes.txt");
  shapes << "shape_id,shape_pt_lat,shape_pt_lon,shape_pt_sequence\n";
  for (int i = 0; i <= 50; ++i) {
    const auto p = StreetPoint(100.0 * i);
    shapes << fmt::format("SI,{},{},{}\n", p.first, p.second, i);
    if (options.westward) {
      const auto q = StreetPoint(5000 - 100.0 * i);
      shapes << fmt::format("SV,{},{},{}\n", q.first, q.second, i);
    }
  }
}

base::Timestamp StreetLocal(int hour, int minute) {
  return base::FromUnixMicros(1659484800LL * 1'000'000) + std::chrono::hours(hour + 3) +
         std::chrono::minutes(minute);
}

void AddStreetBus(std::vector<StreetFix>& fixes, const std::string& id, base::Timestamp leave,
                  const std::string& trip) {
  base::Timestamp t = leave - std::chrono::seconds(90);
  for (int i = 0; i < 4; ++i, t += std::chrono::seconds(30)) {
    const auto p = StreetPoint(5.0 * (i % 2));
    fixes.push_back({id, t, p.first, p.second, "53B", trip});
  }
  for (double x = 240; x <= 5000; x += 240, t += std::chrono::seconds(30)) {
    const auto p = StreetPoint(x);
    fixes.push_back({id, t, p.first, p.second, "53B", trip});
  }
}

void AddCoveringLine(std::vector<StreetFix>& fixes, base::Timestamp from, base::Timestamp to) {
  for (auto t = from; t < to; t += std::chrono::seconds(30)) {
    const auto p = StreetPoint(-20000, 3000);
    fixes.push_back({"other", t, p.first, p.second, "99", ""});
  }
}

}  // namespace frota::testing
