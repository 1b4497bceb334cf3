#include "frota/dashboard/data_model.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <string_view>
#include <tuple>
#include <unordered_map>

#include "frota/base/file.h"
#include "frota/base/time.h"
#include "frota/dashboard/data_model_builder.h"
#include "frota/dashboard/data_model_internal.h"
#include "frota/gtfs/route_resolver.h"
#include "frota/model/mode.h"

namespace frota::dashboard {

namespace detail {

base::Result<DataModel> Builder::Build() {
  FROTA_RETURN_IF_ERROR(ReadTables());
  BuildDictionaries();
  Json doc;
  doc["version"] = kDataModelVersion;
  doc["source"] = SourceSection();
  doc["dates"] = DatesSection();
  doc["modes"] = modes_.values();
  doc["feeds"] = feeds_.values();
  doc["lines"] = LinesSection();
  doc["totals"] = TotalsSection();
  doc["fleet"] = FleetSection();
  doc["line_hours"] = LineHoursSection();
  doc["cells"] = CellsSection();
  doc["geo"] = GeoSection();
  doc["stops"] = StopsSection();
  doc["quality"] = QualitySection();
  doc["duplicate_slots"] = DuplicateSlotsSection();
  doc["headways"] = HeadwaysSection();
  doc["coverage"] = CoverageSection();
  doc["collector"] = CollectorSection();
  FROTA_ASSIGN_OR_RETURN(doc["reports"], ReportsSection());
  if (!aircraft_.empty()) {  // absent, not null: a database without aircraft is unchanged
    doc["aircraft"] = AircraftSection();
  }

  DataModel out;
  for (const auto& [key, value] : doc.items()) {
    out.section_bytes.emplace_back(key, value.dump().size());
  }
  out.json = doc.dump();
  return out;
}

base::LocalHour Builder::LocalHourOf(int64_t utc_us) const {
  const auto it = hour_cache_.find(utc_us);
  if (it != hour_cache_.end()) {
    return it->second;
  }
  const auto local = options_.time_zone.ToLocalHour(base::FromUnixMicros(utc_us));
  hour_cache_.emplace(utc_us, local);
  return local;
}

void Builder::BuildDictionaries() {
  std::set<std::string> mode_names;
  std::set<std::pair<std::string, std::string>> line_keys;
  std::set<std::string> feed_names;
  CollectNames(mode_names, line_keys, feed_names);
  std::vector<std::string> modes(mode_names.begin(), mode_names.end());
  std::stable_sort(modes.begin(), modes.end(), [](const std::string& a, const std::string& b) {
    return ModeRank(a) < ModeRank(b);
  });
  for (const auto& m : modes) {
    modes_.Add(m);
  }
  for (const auto& f : feed_names) {
    feeds_.Add(f);
  }
  for (const int32_t day : days_) {
    day_index_.emplace(day, static_cast<int32_t>(day_index_.size()));
  }
  AssignTripModes(line_keys);
  IndexLines(line_keys);
}

void Builder::CollectNames(std::set<std::string>& mode_names,
                           std::set<std::pair<std::string, std::string>>& line_keys,
                           std::set<std::string>& feed_names) {
  for (const auto& b : buckets_) {
    mode_names.insert(b.mode);
    line_keys.emplace(b.mode, LineRoute(b.mode, b.route));
    feed_names.insert(b.feed);
    days_.insert(base::DaysSinceEpoch(LocalHourOf(b.bucket_us).date));
  }
  for (const auto& f : fleet_) {
    mode_names.insert(f.mode);
    days_.insert(f.day);
  }
  for (const auto& s : speed_lines_) {
    mode_names.insert(s.mode);
    line_keys.emplace(s.mode, LineRoute(s.mode, s.route));
  }
  for (const auto& c : speed_cells_) {
    mode_names.insert(c.mode);
  }
  for (const auto& s : stops_) {
    mode_names.insert(s.mode);
    line_keys.emplace(s.mode, LineRoute(s.mode, s.route));
    feed_names.insert(s.feed);
    days_.insert(base::DaysSinceEpoch(LocalHourOf(s.start_us).date));
  }
  for (const auto& t : trips_) {
    feed_names.insert(t.feed);
    days_.insert(base::DaysSinceEpoch(LocalHourOf(t.first_us).date));
  }
  for (const auto& q : quality_) {
    feed_names.insert(q.feed);
    days_.insert(q.day);
  }
  for (const auto& l : latency_) {
    feed_names.insert(l.feed);
  }
  for (const auto& s : slots_) {
    feed_names.insert(s.feed);
  }
  for (const auto& p : polls_) {
    feed_names.insert(p.feed);
  }
  for (const auto* intervals : {&gaps_, &silences_}) {
    for (const auto& g : *intervals) {
      feed_names.insert(g.feed);
      days_.insert(base::DaysSinceEpoch(LocalHourOf(g.start_us).date));
    }
  }
  for (const auto& f : feed_hours_) {
    feed_names.insert(f.feed);
    days_.insert(f.day);
  }
  for (const auto& [day, type] : date_day_types_) {
    days_.insert(day);
  }
}

void Builder::AssignTripModes(std::set<std::pair<std::string, std::string>>& line_keys) {
  // Trips carry no mode: a trip's line is the (mode, route) its vehicle reported.
  std::map<std::tuple<std::string, std::string, std::string>, std::string> vehicle_route_mode;
  for (const auto& b : buckets_) {
    vehicle_route_mode.emplace(std::make_tuple(b.feed, b.vehicle, b.route), b.mode);
  }
  for (const auto& t : trips_) {
    const auto it = vehicle_route_mode.find({t.feed, t.vehicle, t.route});
    std::string mode;
    if (it != vehicle_route_mode.end()) {
      mode = it->second;
    } else {
      const auto any = std::find_if(line_keys.begin(), line_keys.end(),
                                    [&](const auto& key) { return key.second == t.route; });
      mode =
          any != line_keys.end() ? any->first : std::string(model::ModeName(model::Mode::kOther));
      if (!modes_.Find(mode)) {
        modes_.Add(mode);
      }
    }
    trip_modes_.push_back(mode);
    line_keys.emplace(mode, LineRoute(mode, t.route));
  }
}

void Builder::IndexLines(const std::set<std::pair<std::string, std::string>>& line_keys) {
  std::vector<std::pair<std::string, std::string>> lines(line_keys.begin(), line_keys.end());
  std::sort(lines.begin(), lines.end(), [this](const auto& a, const auto& b) {
    const int32_t ma = *modes_.Find(a.first);
    const int32_t mb = *modes_.Find(b.first);
    if (ma != mb) {
      return ma < mb;
    }
    return NaturalLess(a.second, b.second);
  });
  if (options_.feed != nullptr) {
    resolver_.emplace(*options_.feed);
  }
  for (const auto& [mode, route] : lines) {
    const int32_t index = static_cast<int32_t>(lines_.size());
    LineInfo info{*modes_.Find(mode), route, nullptr};
    if (resolver_) {
      info.gtfs_route = resolver_->Find(route);
    }
    lines_.push_back(info);
    line_index_.emplace(std::make_pair(mode, route), index);
  }
  // Routes that only the headway tables name join at the end.
  for (const auto& h : headway_hours_) {
    LineOfRouteOrAdd(h.route);
  }
  for (const auto& h : headways_) {
    LineOfRouteOrAdd(h.route);
  }
  for (const auto& x : excluded_) {
    LineOfRouteOrAdd(x.route);
  }
  for (const auto& row : summary_) {
    LineOfRouteOrAdd(row.route);
  }
  for (const auto& silence : silences_) {
    LineOfRouteOrAdd(silence.route);
  }
}

// An aircraft's route id is its flight's callsign: thousands of them, none a line. The
// aircraft are one line without a route (the Aircraft page shows their callsigns).
std::string Builder::LineRoute(const std::string& mode, const std::string& route) {
  return mode == model::ModeName(model::Mode::kAircraft) ? std::string() : route;
}

int32_t Builder::LineOf(const std::string& mode, const std::string& route) const {
  return line_index_.at(std::make_pair(mode, LineRoute(mode, route)));
}

/// A line for a route id named by a table without mode: the first line with that feed
/// route id, or the first whose GTFS route has that id, in the order `gtfs_first` says
/// (headways name GTFS routes, trips name the feed's); -1 if none.
int32_t Builder::LineOfRoute(const std::string& route, bool gtfs_first) const {
  for (int pass = 0; pass < 2; ++pass) {
    const bool by_gtfs = (pass == 0) == gtfs_first;
    for (std::size_t i = 0; i < lines_.size(); ++i) {
      const bool match = by_gtfs
                             ? lines_[i].gtfs_route != nullptr && lines_[i].gtfs_route->id == route
                             : lines_[i].route == route;
      if (match) {
        return static_cast<int32_t>(i);
      }
    }
  }
  return -1;
}

}  // namespace detail

using detail::Builder;
using detail::Json;
using detail::Query;

// ---- internal helpers (data_model_internal.h) ------------------------------------------

bool NaturalLess(std::string_view a, std::string_view b) {
  std::size_t i = 0, j = 0;
  auto is_digit = [](char c) { return c >= '0' && c <= '9'; };
  while (i < a.size() && j < b.size()) {
    if (is_digit(a[i]) && is_digit(b[j])) {
      std::size_t ie = i, je = j;
      while (ie < a.size() && is_digit(a[ie])) ++ie;
      while (je < b.size() && is_digit(b[je])) ++je;
      // Compare digit runs as numbers: strip leading zeros, then by length, then by text.
      std::size_t ia = i, jb = j;
      while (ia + 1 < ie && a[ia] == '0') ++ia;
      while (jb + 1 < je && b[jb] == '0') ++jb;
      if (ie - ia != je - jb) {
        return ie - ia < je - jb;
      }
      const auto cmp = a.substr(ia, ie - ia).compare(b.substr(jb, je - jb));
      if (cmp != 0) {
        return cmp < 0;
      }
      i = ie;
      j = je;
      continue;
    }
    if (a[i] != b[j]) {
      return static_cast<unsigned char>(a[i]) < static_cast<unsigned char>(b[j]);
    }
    ++i;
    ++j;
  }
  if (a.size() - i != b.size() - j) {
    return a.size() - i < b.size() - j;
  }
  return a < b;  // equal under the natural order ("07" vs "7"): fall back to bytes
}

int64_t RoundDiv(int64_t value, int64_t divisor) {
  const int64_t q = value / divisor;
  const int64_t r = value % divisor;
  if (2 * (r < 0 ? -r : r) >= divisor) {
    return q + (value < 0 ? -1 : 1);
  }
  return q;
}

std::vector<std::array<int64_t, 2>> SimplifyPolyline(
    const std::vector<std::array<int64_t, 2>>& points, double tolerance) {
  // Drop repeated points first, then Douglas-Peucker (iterative, so long shapes cannot
  // overflow the stack).
  std::vector<std::array<int64_t, 2>> p;
  for (const auto& q : points) {
    if (p.empty() || p.back() != q) {
      p.push_back(q);
    }
  }
  if (p.size() <= 2) {
    return p;
  }
  std::vector<bool> keep(p.size(), false);
  keep.front() = keep.back() = true;
  std::vector<std::pair<std::size_t, std::size_t>> stack{{0, p.size() - 1}};
  while (!stack.empty()) {
    const auto [first, last] = stack.back();
    stack.pop_back();
    const double ax = static_cast<double>(p[first][0]), ay = static_cast<double>(p[first][1]);
    const double bx = static_cast<double>(p[last][0]), by = static_cast<double>(p[last][1]);
    const double dx = bx - ax, dy = by - ay;
    const double length2 = dx * dx + dy * dy;
    double worst = -1;
    std::size_t worst_index = first;
    for (std::size_t k = first + 1; k < last; ++k) {
      const double px = static_cast<double>(p[k][0]) - ax, py = static_cast<double>(p[k][1]) - ay;
      double distance;
      if (length2 == 0) {
        distance = std::hypot(px, py);  // a closed ring: distance to the shared end point
      } else {
        const double t = std::clamp((px * dx + py * dy) / length2, 0.0, 1.0);
        distance = std::hypot(px - t * dx, py - t * dy);
      }
      if (distance > worst) {
        worst = distance;
        worst_index = k;
      }
    }
    if (worst > tolerance) {
      keep[worst_index] = true;
      stack.emplace_back(first, worst_index);
      stack.emplace_back(worst_index, last);
    }
  }
  std::vector<std::array<int64_t, 2>> out;
  for (std::size_t k = 0; k < p.size(); ++k) {
    if (keep[k]) {
      out.push_back(p[k]);
    }
  }
  return out;
}

std::vector<int64_t> DeltaEncode(const std::vector<std::array<int64_t, 2>>& points) {
  std::vector<int64_t> out;
  out.reserve(points.size() * 2);
  std::array<int64_t, 2> previous{0, 0};
  for (const auto& p : points) {
    out.push_back(p[0] - previous[0]);
    out.push_back(p[1] - previous[1]);
    previous = p;
  }
  return out;
}

base::Result<std::map<std::string, std::set<std::string>>> TableColumns(
    sink::DuckDbConnection& db) {
  FROTA_ASSIGN_OR_RETURN(auto r, Query(db, "the catalog",
                                       "SELECT table_name, column_name FROM "
                                       "information_schema.columns WHERE table_schema = 'main' "
                                       "ORDER BY ALL"));
  std::map<std::string, std::set<std::string>> out;
  for (std::size_t i = 0; i < r.rows(); ++i) {
    out[r.String(i, 0)].insert(r.String(i, 1));
  }
  return out;
}

std::optional<std::string> FindTable(const std::map<std::string, std::set<std::string>>& tables,
                                     const std::vector<std::string>& required,
                                     const std::vector<std::string>& preferred) {
  auto has_all = [&](const std::set<std::string>& columns) {
    return std::all_of(required.begin(), required.end(),
                       [&](const std::string& c) { return columns.count(c) != 0; });
  };
  for (const auto& name : preferred) {
    const auto it = tables.find(name);
    if (it != tables.end() && has_all(it->second)) {
      return name;
    }
  }
  for (const auto& [name, columns] : tables) {  // std::map: the first by name, stable
    if (has_all(columns)) {
      return name;
    }
  }
  return std::nullopt;
}

base::Result<DataModel> BuildDataModel(sink::DuckDbConnection& db,
                                       const DataModelOptions& options) {
  Builder builder(db, options);
  return builder.Build();
}

std::string PrettyJson(const std::string& json) {
  const Json doc = Json::parse(json);
  std::string out;
  auto write = [&out](const Json& value, int indent, const auto& self) -> void {
    const std::string pad(static_cast<std::size_t>(indent) * 2, ' ');
    const std::string inner(static_cast<std::size_t>(indent + 1) * 2, ' ');
    if (value.is_object() && !value.empty()) {
      out += "{\n";
      bool first = true;
      for (const auto& [key, child] : value.items()) {
        out += first ? "" : ",\n";
        first = false;
        out += inner + Json(key).dump() + ": ";
        self(child, indent + 1, self);
      }
      out += "\n" + pad + "}";
      return;
    }
    const bool scalars =
        value.is_array() &&
        std::all_of(value.begin(), value.end(), [](const Json& v) { return v.is_primitive(); });
    if (value.is_array() && !value.empty() && !scalars) {
      out += "[\n";
      bool first = true;
      for (const auto& child : value) {
        out += first ? "" : ",\n";
        first = false;
        out += inner;
        self(child, indent + 1, self);
      }
      out += "\n" + pad + "]";
      return;
    }
    out += value.dump(-1, ' ', false, Json::error_handler_t::strict);
  };
  write(doc, 0, write);
  out += "\n";
  return out;
}

}  // namespace frota::dashboard
