// `frota simulate`: a day of a bus fleet as a bronze archive of GTFS-RT responses, with its truth.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "frota/base/status.h"
#include "frota/base/time.h"
#include "frota/sim/faults.h"

namespace frota::sim {

struct SimulateOptions {
  std::filesystem::path out;                  // archive root; also gets gtfs/ and area.geojson
  std::optional<std::filesystem::path> gtfs;  // none: the built-in city, written to out/gtfs
  std::optional<std::filesystem::path> area;  // with gtfs: the boundary; none: derived
  base::LocalDate date{};                     // the service date to simulate
  std::int32_t vehicles = 3600;               // built-in city: the weekday peak fleet
  std::uint64_t seed = 1;
  std::filesystem::path truth;  // empty: out/truth.json
  /// Only the trips departing in [first, last) seconds of the service day (local) run:
  /// a shorter day for tests and demos. Empty: the whole day.
  std::optional<std::pair<std::int32_t, std::int32_t>> departures_between_s;
  FaultConfig faults;
  std::string feed_id = "frota-sim";
  bool sppo = false;  // also write the records as Rio SPPO JSON into out/sppo
  /// Archive writers working in parallel: BronzeWriter fsyncs every file and folder,
  /// and the disk's group commit makes parallel writers several times faster.
  std::int32_t writers = 8;
  /// Progress lines (log fragments); may be empty.
  std::function<void(const std::string&)> progress;
};

struct SimulateSummary {
  std::filesystem::path archive;
  std::filesystem::path gtfs;
  std::filesystem::path area;
  std::filesystem::path truth;
  std::filesystem::path sppo_archive;  // empty unless asked for
  std::int64_t routes = 0;
  std::int64_t vehicles = 0;       // buses that ran
  std::int64_t peak_vehicles = 0;  // in service at once
  std::int64_t planned_trips = 0;
  std::int64_t run_trips = 0;
  std::int64_t responses = 0;
  std::int64_t records = 0;  // entities in all responses ("positions")
  std::int64_t bytes = 0;    // GTFS-RT bodies
  std::int64_t sppo_bytes = 0;
  std::int64_t expected_accepted = 0;
  std::map<std::string, std::int64_t> expected_rejected;
  /// The feed faults of the day (also in the truth): outages as UTC µs [start, end),
  /// how many line silences, and the routes operated off their GTFS.
  std::vector<std::pair<std::int64_t, std::int64_t>> outages_us;
  std::int64_t line_silences = 0;
  std::vector<std::string> stale_routes;
};

/// Simulates `options.date` and writes the archive (ROOT/FEED/date=/hour=/ per
/// docs/bronze-archive.md), the GTFS and area when built in, and the truth. Deterministic:
/// the same options give the same files, byte for byte. Bodies and ingest times do not
/// depend on `writers`; the 6-digit sequence in the names does (each writer counts its
/// own responses), which never changes their order. `out` must not already hold an
/// archive of the feed.
base::Result<SimulateSummary> Simulate(const SimulateOptions& options);

}  // namespace frota::sim
