// Helpers of the data model, exposed for its unit tests only.
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "frota/base/status.h"
#include "frota/sink/duckdb_connection.h"

namespace frota::dashboard {

/// Route ids in the order people expect: digit runs compare as numbers ("9" < "11N" < "53B").
bool NaturalLess(std::string_view a, std::string_view b);

/// value / divisor rounded half away from zero.
std::int64_t RoundDiv(std::int64_t value, std::int64_t divisor);

/// Douglas-Peucker over integer (x, y) points: keeps the ends and every point farther than
/// `tolerance` from the simplified line; repeated points are dropped first.
std::vector<std::array<std::int64_t, 2>> SimplifyPolyline(
    const std::vector<std::array<std::int64_t, 2>>& points, double tolerance);

/// [x0, y0, x1 - x0, y1 - y0, ...].
std::vector<std::int64_t> DeltaEncode(const std::vector<std::array<std::int64_t, 2>>& points);

/// Every table and view of the main schema with its column names.
base::Result<std::map<std::string, std::set<std::string>>> TableColumns(sink::DuckDbConnection& db);

/// The first of `preferred` that has every `required` column, else the first table by name
/// that has them; nullopt when none does.
std::optional<std::string> FindTable(const std::map<std::string, std::set<std::string>>& tables,
                                     const std::vector<std::string>& required,
                                     const std::vector<std::string>& preferred);

}  // namespace frota::dashboard
