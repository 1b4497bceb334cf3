#include "frota/serve/gtfs_rt_export.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "frota/base/file.h"
#include "frota/codec/gtfs_rt_encode.h"

namespace frota::serve {

namespace {

namespace fs = std::filesystem;

constexpr std::int64_t kMicrosPerMinute = 60'000'000;
constexpr auto kSlice = std::chrono::minutes(10);

base::Timestamp CeilMinute(base::Timestamp t) {
  const std::int64_t us = base::ToUnixMicros(t);
  const std::int64_t floor = us - (((us % kMicrosPerMinute) + kMicrosPerMinute) % kMicrosPerMinute);
  return base::FromUnixMicros(floor == us ? us : floor + kMicrosPerMinute);
}

// vehicle-positions-2024-06-05T06-10-00Z.pb: the ISO 8601 time with '-' for ':', the form
// the MobilityData validator reads a message's time from (its own example:
// "TripUpdates-2017-02-18T20-01-08Z.pb"), and names that sort in time order.
std::string FileName(base::Timestamp t) {
  std::string name = "vehicle-positions-" + base::FormatIso8601(t) + ".pb";
  std::replace(name.begin(), name.end(), ':', '-');
  return name;
}

// Each vehicle's latest position so far, in (feed, vehicle) order as serve sorts them.
class Latest {
 public:
  void Add(Vehicle v) {
    auto key = std::make_pair(v.position.feed_id, v.position.vehicle_id);
    latest_.insert_or_assign(std::move(key), std::move(v));
  }
  // The vehicles seen in (at - window, at]; forgets those older.
  std::vector<Vehicle> At(base::Timestamp at, std::chrono::seconds window) {
    std::vector<Vehicle> out;
    for (auto it = latest_.begin(); it != latest_.end();) {
      if (it->second.position.event_time <= at - window) {
        it = latest_.erase(it);
        continue;
      }
      out.push_back(it->second);
      ++it;
    }
    return out;
  }

 private:
  std::map<std::pair<std::string, std::string>, Vehicle> latest_;
};

}  // namespace

base::Result<GtfsRtExportSummary> ExportGtfsRt(Store& store, const VehicleFeed& feed,
                                               const fs::path& dir, std::chrono::seconds window) {
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) {
    return base::IoError("{}: cannot create: {}", dir.string(), ec.message());
  }
  GtfsRtExportSummary summary;
  FROTA_ASSIGN_OR_RETURN(const auto first, store.FirstEventTime());
  FROTA_ASSIGN_OR_RETURN(const auto last, store.AsOf());
  if (!first || !last) {
    return summary;
  }
  FROTA_ASSIGN_OR_RETURN(const auto departures,
                         store.Departures(*first - VehicleFeed::kLookback, *last));
  Latest latest;
  base::Timestamp read_to = *first - std::chrono::microseconds(1);
  std::vector<Vehicle> slice;
  std::size_t next = 0;
  const base::Timestamp end = CeilMinute(*last);
  for (base::Timestamp at = CeilMinute(*first); at <= end; at += std::chrono::minutes(1)) {
    while (true) {
      for (; next < slice.size() && slice[next].position.event_time <= at; ++next) {
        latest.Add(std::move(slice[next]));
      }
      if (next < slice.size() || read_to >= at) {
        break;
      }
      const base::Timestamp from = read_to;
      read_to = from + kSlice;
      FROTA_ASSIGN_OR_RETURN(slice, store.Positions(from, read_to));
      next = 0;
    }
    const std::vector<Vehicle> vehicles = latest.At(at, window);
    const std::vector<codec::VehicleEntity> entities = feed.Describe(vehicles, departures);
    FROTA_RETURN_IF_ERROR(
        base::WriteFileAtomic(dir / FileName(at), codec::EncodeVehicleFeed(entities, at)));
    ++summary.files;
    summary.entities += static_cast<std::int64_t>(entities.size());
    if (!summary.first) {
      summary.first = at;
    }
    summary.last = at;
  }
  return summary;
}

}  // namespace frota::serve
