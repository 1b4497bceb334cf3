// `frota export --gtfs-rt DIR`: the cleaned GTFS-Realtime feed of a finished database
// replayed minute by minute into files, for a validator or a trip planner to read.
#pragma once

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <optional>

#include "frota/base/status.h"
#include "frota/base/time.h"
#include "frota/serve/store.h"
#include "frota/serve/vehicle_feed.h"

namespace frota::serve {

struct GtfsRtExportSummary {
  std::int64_t files = 0;
  std::int64_t entities = 0;             // summed over the files
  std::optional<base::Timestamp> first;  // the first file's header time
  std::optional<base::Timestamp> last;
};

/// Writes, for every whole minute T from the first accepted position's (rounded up) to the
/// last's (rounded up: a minute that holds positions ends in a file), the
/// FULL_DATASET FeedMessage `frota serve` answers as of T (its vehicle window, the same
/// entities) as `dir/vehicle-positions-YYYY-MM-DDTHH-MM-SSZ.pb` (names that sort in time
/// order, and from which validators read the message's time). Reads the positions once, in
/// ten-minute slices, and every departure once.
base::Result<GtfsRtExportSummary> ExportGtfsRt(Store& store, const VehicleFeed& feed,
                                               const std::filesystem::path& dir,
                                               std::chrono::seconds window);

}  // namespace frota::serve
