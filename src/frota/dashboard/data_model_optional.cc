// The data model, optional sections: headways, coverage, the collector and stage reports.
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
#include "frota/gtfs/route_resolver.h"
#include "frota/model/mode.h"

namespace frota::dashboard::detail {

/// A line for a GTFS route id named by the headway tables: as LineOfRoute, else a new line
/// (mode from the GTFS route type, or "other").
int32_t Builder::LineOfRouteOrAdd(const std::string& route) {
  const int32_t found = LineOfRoute(route, /*gtfs_first=*/true);
  if (found >= 0) {
    return found;
  }
  LineInfo info{0, route, nullptr};
  if (resolver_) {
    info.gtfs_route = resolver_->Find(route);
  }
  const std::string mode(info.gtfs_route != nullptr
                             ? model::ModeName(model::ModeFromGtfsRouteType(info.gtfs_route->type))
                             : model::ModeName(model::Mode::kOther));
  info.mode = modes_.Add(mode);
  lines_.push_back(info);
  line_index_.emplace(std::make_pair(mode, route), static_cast<int32_t>(lines_.size() - 1));
  return static_cast<int32_t>(lines_.size() - 1);
}

/// Day types named by the headway tables, weekday, saturday, sunday, holiday first, then
/// others by name; "" (a table without day types) last. "all" is not one: rows of every
/// day type pooled say -1.
std::vector<std::string> Builder::DayTypes() const {
  std::set<std::string> names;
  for (const auto& h : headway_hours_) names.insert(h.day_type);
  for (const auto& h : headways_) names.insert(h.day_type);
  for (const auto& x : excluded_) names.insert(x.day_type);
  for (const auto& row : summary_) names.insert(row.day_type);
  for (const auto& [day, type] : date_day_types_) names.insert(type);
  names.erase("all");
  std::vector<std::string> out;
  for (const char* known : kDayTypes) {
    if (names.erase(known) != 0) {
      out.emplace_back(known);
    }
  }
  const bool unknown = names.erase("") != 0;
  out.insert(out.end(), names.begin(), names.end());
  if (unknown) {
    out.emplace_back("");
  }
  return out;
}

/// Excluded headways counted per (line, direction, day type, hour, reason); null when the
/// table has no `exclusion` column. Both reasons of semantics §7 are always named.
template <typename TypeIndex>
Json Builder::ExcludedSection(const TypeIndex& type_index) const {
  if (!has_exclusion_) {
    return nullptr;
  }
  std::vector<std::string> reasons = {"service_break", "coverage_gap"};
  for (const auto& x : excluded_) {
    if (std::find(reasons.begin(), reasons.end(), x.reason) == reasons.end()) {
      reasons.push_back(x.reason);
    }
  }
  std::vector<int64_t> line, dir, day_type, hour, reason, count;
  for (const auto& x : excluded_) {
    line.push_back(LineOfRoute(x.route, /*gtfs_first=*/true));
    dir.push_back(x.direction);
    day_type.push_back(type_index(x.day_type));
    hour.push_back(x.hour);
    reason.push_back(std::find(reasons.begin(), reasons.end(), x.reason) - reasons.begin());
    count.push_back(x.count);
  }
  return {{"reasons", reasons}, {"line", line},     {"direction", dir}, {"day_type", day_type},
          {"hour", hour},       {"reason", reason}, {"n", count}};
}

/// headway_summary's whole-day fields, one row per (line, direction, day type;
/// -1 = all); shares rounded to 4 decimals, counts whole. Null without those columns.
template <typename TypeIndex>
Json Builder::SummarySection(const TypeIndex& type_index) const {
  if (!summary_table_) {
    return nullptr;
  }
  std::vector<int64_t> line, dir, day_type;
  std::vector<Json> columns(summary_columns_.size(), Json::array());
  for (const auto& row : summary_) {
    line.push_back(LineOfRoute(row.route, /*gtfs_first=*/true));
    dir.push_back(row.direction);
    day_type.push_back(row.day_type == "all" ? -1 : type_index(row.day_type));
    for (std::size_t k = 0; k < summary_columns_.size(); ++k) {
      const auto& v = row.values[k];
      if (!v || !std::isfinite(*v)) {
        columns[k].push_back(nullptr);
      } else if (summary_columns_[k].find("share") != std::string::npos) {
        columns[k].push_back(std::round(*v * 10000) / 10000);
      } else {
        columns[k].push_back(std::llround(*v));
      }
    }
  }
  Json s;
  s["table"] = *summary_table_;
  s["line"] = line;
  s["direction"] = dir;
  s["day_type"] = day_type;
  for (std::size_t k = 0; k < summary_columns_.size(); ++k) {
    s[summary_columns_[k]] = columns[k];
  }
  return s;
}

Json Builder::HeadwaysSection() {
  if (!hours_table_ && !headways_table_) {
    return nullptr;
  }
  const auto day_types = DayTypes();
  auto type_index = [&](const std::string& name) -> int64_t {
    const auto it = std::find(day_types.begin(), day_types.end(), name);
    return it == day_types.end() ? -1 : it - day_types.begin();
  };
  Json s;
  s["hours_table"] = hours_table_.value_or("");
  s["headways_table"] = headways_table_.value_or("");
  s["day_types"] = day_types;
  if (hours_table_) {
    std::vector<int64_t> line, dir, day_type, hour, found, planned;
    for (const auto& h : headway_hours_) {
      line.push_back(LineOfRoute(h.route, /*gtfs_first=*/true));
      dir.push_back(h.direction);
      day_type.push_back(type_index(h.day_type));
      hour.push_back(h.hour);
      found.push_back(h.found);
      planned.push_back(h.planned);
    }
    s["hours"] = {{"line", line}, {"direction", dir}, {"day_type", day_type},
                  {"hour", hour}, {"found", found},   {"planned", planned}};
  } else {
    s["hours"] = nullptr;
  }
  if (headways_table_) {
    // Measured headways grouped by (line, direction, day type, hour, planned headway);
    // planned_s 0 when nothing was planned (they enter medians, not the planned ratios).
    struct H {
      int64_t line, dir, day_type, hour, planned, h;
    };
    std::vector<H> rows;
    for (const auto& h : headways_) {
      rows.push_back({LineOfRoute(h.route, /*gtfs_first=*/true), h.direction,
                      type_index(h.day_type), h.hour, h.planned_s, h.headway_s});
    }
    auto key = [](const H& h) { return std::tie(h.line, h.dir, h.day_type, h.hour, h.planned); };
    std::sort(rows.begin(), rows.end(), [&](const H& a, const H& b) {
      return std::tuple_cat(key(a), std::tie(a.h)) < std::tuple_cat(key(b), std::tie(b.h));
    });
    std::vector<int64_t> g_line, g_dir, g_type, g_hour, g_planned, g_len, values;
    for (std::size_t i = 0; i < rows.size(); ++i) {
      const auto& h = rows[i];
      if (i == 0 || key(h) != key(rows[i - 1])) {
        g_line.push_back(h.line);
        g_dir.push_back(h.dir);
        g_type.push_back(h.day_type);
        g_hour.push_back(h.hour);
        g_planned.push_back(h.planned);
        g_len.push_back(0);
      }
      ++g_len.back();
      values.push_back(h.h);
    }
    s["measured_only"] = has_exclusion_;
    s["headways"] = {{"line", g_line},     {"direction", g_dir},     {"day_type", g_type},
                     {"hour", g_hour},     {"planned_s", g_planned}, {"len", g_len},
                     {"headway_s", values}};
  } else {
    s["measured_only"] = false;
    s["headways"] = nullptr;
  }
  s["excluded"] = ExcludedSection(type_index);
  std::vector<int64_t> date_type;
  for (const int32_t day : days_) {
    const auto it = date_day_types_.find(day);
    date_type.push_back(it == date_day_types_.end() ? -1 : type_index(it->second));
  }
  s["date_day_type"] = date_type;
  s["summary"] = SummarySection(type_index);
  return s;
}

/// Feed blind intervals, line silences and covered minutes per feed and hour; each part
/// null without its table, the whole section null without all three. Intervals start at
/// `date index * 1440 + local minute` (as stops do) and last whole minutes.
Json Builder::CoverageSection() const {
  if (!gaps_table_ && !silences_table_ && !feed_hours_table_) {
    return nullptr;
  }
  auto start_minute = [&](int64_t utc_us) {
    const auto local = options_.time_zone.ToLocal(base::FromUnixMicros(utc_us));
    const auto day = std::chrono::floor<std::chrono::days>(local);
    const auto minute = std::chrono::duration_cast<std::chrono::minutes>(local - day).count();
    return static_cast<int64_t>(DayIndex(base::DaysSinceEpoch(day))) * (kHours * 60) + minute;
  };
  auto intervals = [&](const std::optional<std::string>& table,
                       const std::vector<IntervalRow>& rows, bool with_line) -> Json {
    if (!table) {
      return nullptr;
    }
    std::vector<int64_t> feed, line, start, minutes;
    for (const auto& g : rows) {
      feed.push_back(*feeds_.Find(g.feed));
      if (with_line) {
        line.push_back(LineOfRoute(g.route, /*gtfs_first=*/true));
      }
      start.push_back(start_minute(g.start_us));
      minutes.push_back(std::max<int64_t>(1, RoundDiv(g.end_us - g.start_us, 60'000'000)));
    }
    Json out;
    out["table"] = *table;
    out["feed"] = feed;
    if (with_line) {
      out["line"] = line;
    }
    out["start_min"] = start;
    out["minutes"] = minutes;
    return out;
  };
  Json s;
  s["gaps"] = intervals(gaps_table_, gaps_, false);
  s["silences"] = intervals(silences_table_, silences_, true);
  if (feed_hours_table_) {
    std::vector<int64_t> feed, day, hour, covered;
    for (const auto& f : feed_hours_) {
      feed.push_back(*feeds_.Find(f.feed));
      day.push_back(DayIndex(f.day));
      hour.push_back(f.hour);
      covered.push_back(f.covered_minutes);
    }
    s["feed_hours"] = {{"table", *feed_hours_table_},
                       {"feed", feed},
                       {"day", day},
                       {"hour", hour},
                       {"covered_minutes", covered}};
  } else {
    s["feed_hours"] = nullptr;
  }
  return s;
}

Json Builder::CollectorSection() const {
  // Every frota database has collector_polls; only a run that collected fills it.
  if (!collector_table_ || polls_.empty()) {
    return nullptr;
  }
  const auto n = feeds_.size() * kHours;
  std::vector<int64_t> polls(n, 0), failed(n, 0), repeats(n, 0), duration_ms(n, 0), bytes(n, 0);
  std::map<int64_t, int64_t> statuses;
  for (const auto& p : polls_) {
    const int hour =
        p.bucket_us ? options_.time_zone.ToLocalHour(base::FromUnixMicros(*p.bucket_us)).hour : 0;
    const auto k = static_cast<std::size_t>(*feeds_.Find(p.feed)) * kHours + hour;
    polls[k] += p.polls;
    statuses[p.status] += p.polls;
    if (p.status != 200) {
      failed[k] += p.polls;
    }
    repeats[k] += p.repeats;
    duration_ms[k] += std::llround(p.duration_ms);
    bytes[k] += p.bytes;
  }
  Json s;
  s["table"] = *collector_table_;
  s["has_time"] = !collector_time_.empty();
  s["has_repeat"] = collector_has_repeat_;
  s["has_duration"] = collector_has_duration_;
  s["polls"] = polls;
  s["failed"] = failed;
  s["repeats"] = repeats;
  s["duration_ms"] = duration_ms;
  s["bytes"] = bytes;
  Json st = Json::array();
  for (const auto& [status, count] : statuses) {
    st.push_back({status, count});
  }
  s["statuses"] = st;
  return s;
}

base::Result<Json> Builder::ReportsSection() const {
  Json out = Json::array();
  for (const auto& path : options_.reports) {
    FROTA_ASSIGN_OR_RETURN(const auto text, base::ReadFile(path));
    auto parsed = Json::parse(text, nullptr, /*allow_exceptions=*/false);
    if (parsed.is_discarded() || !parsed.is_object()) {
      return base::InvalidInput("{}: not a JSON object (a stage report must be one)",
                                path.string());
    }
    std::vector<std::pair<std::string, std::string>> entries;
    FlattenReport(parsed, "", entries);
    if (entries.size() > kMaxReportEntries) {
      entries.resize(kMaxReportEntries);
    }
    Json keys = Json::array(), values = Json::array();
    for (const auto& [key, value] : entries) {
      keys.push_back(key);
      values.push_back(value);
    }
    out.push_back({{"name", path.filename().string()}, {"keys", keys}, {"values", values}});
  }
  return out;
}

void Builder::FlattenReport(const Json& value, const std::string& prefix,
                            std::vector<std::pair<std::string, std::string>>& out) {
  if (value.is_object()) {
    for (const auto& [key, child] : value.items()) {
      FlattenReport(child, prefix.empty() ? key : prefix + "." + key, out);
    }
    return;
  }
  if (value.is_array()) {
    const bool scalars =
        std::all_of(value.begin(), value.end(), [](const Json& v) { return v.is_primitive(); });
    if (scalars) {
      std::string joined;
      for (const auto& v : value) {
        joined += (joined.empty() ? "" : ", ") + (v.is_string() ? v.get<std::string>() : v.dump());
      }
      out.emplace_back(prefix, joined);
      return;
    }
    for (std::size_t i = 0; i < value.size(); ++i) {
      FlattenReport(value[i], fmt::format("{}[{}]", prefix, i), out);
    }
    return;
  }
  out.emplace_back(prefix, value.is_string() ? value.get<std::string>() : value.dump());
}

}  // namespace frota::dashboard::detail
