// The dashboard's data model: the database's results pre-aggregated into one compact JSON document.
#pragma once

#include <cstddef>
#include <filesystem>
#include <string>
#include <utility>
#include <vector>

#include "frota/base/status.h"
#include "frota/base/time_zone.h"
#include "frota/geo/area.h"
#include "frota/gtfs/static_feed.h"
#include "frota/sink/duckdb_connection.h"

namespace frota::dashboard {

/// Version of the document's layout; the page refuses a document of another version.
inline constexpr int kDataModelVersion = 2;

/// What BuildDataModel reads besides the database. Pointers may be null (no GTFS: no route
/// names or shapes; no area: no outline); they must outlive the call.
struct DataModelOptions {
  const gtfs::StaticFeed* feed = nullptr;
  const geo::Area* area = nullptr;
  /// Zone of the local hours of stops, trips and positions (the aggregates already carry
  /// local hours): the GTFS agency's, else America/Sao_Paulo, as `frota replay` chose.
  base::TimeZone time_zone = base::TimeZone::Utc();
  /// Grid cell size of the speed job (semantics §4).
  double cell_size_deg = 0.005;
  /// Names shown as the document's sources (file names, never absolute paths).
  std::string db_name;
  std::string gtfs_name;
  std::string area_name;
  /// JSON stage reports (`frota replay --report`, collector reports) shown on the Quality
  /// page; each must be a JSON object.
  std::vector<std::filesystem::path> reports;
};

/// The document and how many bytes each top-level section takes (for size budgets).
struct DataModel {
  std::string json;  // compact, UTF-8; not yet safe to paste into HTML (see render.h)
  std::vector<std::pair<std::string, std::size_t>> section_bytes;
};

/// Reads every result table and view of a frota database and returns the document the
/// page draws from. Layout (docs/dashboard.md has the full reference):
///   - dictionaries: `dates`, `modes`, `feeds`, `lines` (mode + route id + GTFS names),
///     `vehicles` (only those that stopped); everything else refers to them by index;
///   - hour tables are dense arrays indexed `key * 24 + local hour`, summed over dates
///     (the page divides by the day counts it is given);
///   - speed cells are grouped by (mode, hour), cells delta-encoded inside a group;
///   - coordinates are integers in steps of 1e-4° from `geo.lat0/lon0`; rings and shapes
///     are simplified and delta-encoded;
///   - optional sections (`headways`, `coverage`, `collector`) are null when their tables
///     are absent, so the page says "not available" instead of showing zeros.
/// Deterministic: the same database and options give the same bytes.
base::Result<DataModel> BuildDataModel(sink::DuckDbConnection& db, const DataModelOptions& options);

/// The document re-indented for people and golden files: objects one member per line,
/// arrays of scalars on one line. Input must be valid JSON.
std::string PrettyJson(const std::string& json);

}  // namespace frota::dashboard
