#include "frota/sim/evaluate.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <tuple>

#include "frota/geo/haversine.h"
#include "frota/sim/truth.h"
#include "frota/sink/duckdb_connection.h"

namespace frota::sim {

namespace fs = std::filesystem;

namespace {

constexpr double kDepartureRadiusM = 1000;  // semantics §7

std::string Quote(std::string_view text) {
  std::string out = "'";
  for (const char c : text) {
    out += c;
    if (c == '\'') {
      out += '\'';
    }
  }
  return out + "'";
}

double Ratio(std::int64_t a, std::int64_t b) {
  return b > 0 ? static_cast<double>(a) / static_cast<double>(b) : 0;
}

// The median with linear interpolation between order statistics (DuckDB's
// quantile_cont(x, 0.5), which headway_summary uses). `values` must not be empty.
double Median(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  const double position = 0.5 * static_cast<double>(values.size() - 1);
  const auto lower = static_cast<std::size_t>(std::floor(position));
  const auto upper = static_cast<std::size_t>(std::ceil(position));
  return values[lower] + (position - static_cast<double>(lower)) * (values[upper] - values[lower]);
}

// The coefficient of variation (sample sd / mean); nullopt under two values.
std::optional<double> Cv(const std::vector<double>& values) {
  if (values.size() < 2) {
    return std::nullopt;
  }
  double sum = 0;
  for (const double v : values) {
    sum += v;
  }
  const double mean = sum / static_cast<double>(values.size());
  double squares = 0;
  for (const double v : values) {
    squares += (v - mean) * (v - mean);
  }
  if (mean <= 0) {
    return std::nullopt;
  }
  return std::sqrt(squares / static_cast<double>(values.size() - 1)) / mean;
}

base::Result<bool> HasTable(sink::DuckDbConnection& db, std::string_view table) {
  FROTA_ASSIGN_OR_RETURN(
      auto rows, db.Query(fmt::format("SELECT count(*) FROM duckdb_tables() WHERE table_name = {}",
                                      Quote(table))));
  return rows.Int64(0, 0) > 0;
}

base::Result<bool> HasColumn(sink::DuckDbConnection& db, std::string_view table,
                             std::string_view column) {
  FROTA_ASSIGN_OR_RETURN(
      auto rows, db.Query(fmt::format(
                     "SELECT count(*) FROM information_schema.columns WHERE table_name = {} AND "
                     "column_name = {}",
                     Quote(table), Quote(column))));
  return rows.Int64(0, 0) > 0;
}

// A table `frota headways` (or the regularity stream) filled: present and not empty.
base::Result<bool> HasRows(sink::DuckDbConnection& db, std::string_view table) {
  FROTA_ASSIGN_OR_RETURN(const bool present, HasTable(db, table));
  if (!present) {
    return false;
  }
  FROTA_ASSIGN_OR_RETURN(auto rows, db.Query(fmt::format("SELECT count(*) > 0 FROM {}", table)));
  return rows.Bool(0, 0);
}

using LineKey = std::pair<std::string, std::int32_t>;

// Alerts: found ones matched one to one to true ones (Evaluation::Alerts).
base::Status ScoreAlerts(sink::DuckDbConnection& db, const Truth& truth, Evaluation::Alerts& out) {
  FROTA_ASSIGN_OR_RETURN(const bool present, HasTable(db, "alerts"));
  if (!present) {
    return base::Status::Ok();
  }
  out.computed = true;
  using Key = std::tuple<std::string, std::string, std::int32_t>;  // kind, route, direction
  struct Found {
    std::int64_t start_us;
    bool used;
  };
  std::map<Key, std::vector<Found>> found;
  FROTA_ASSIGN_OR_RETURN(
      auto rows,
      db.Query(
          "SELECT kind, route_id, coalesce(direction_id, -1), epoch_us(start_time) FROM alerts "
          "ORDER BY ALL"));
  for (std::size_t r = 0; r < rows.rows(); ++r) {
    const std::string kind = rows.String(r, 0);
    found[{kind, rows.String(r, 1), static_cast<std::int32_t>(rows.Int64(r, 2))}].push_back(
        {rows.Int64(r, 3), false});
    ++out.found;
    ++out.by_kind[kind][1];
  }
  for (const auto& a : truth.alerts) {
    ++out.true_alerts;
    ++out.by_kind[a.kind][0];
    const auto it = found.find({a.kind, a.route_id, a.direction_id});
    if (it == found.end()) {
      continue;
    }
    const double window_s = a.kind == "feed_blind" ? out.window_s_feed_blind : a.planned_headway_s;
    Found* best = nullptr;
    std::int64_t best_distance = 0;
    for (auto& f : it->second) {
      const std::int64_t distance = std::abs(f.start_us - a.start_us);
      if (!f.used && static_cast<double>(distance) <= window_s * 1e6 &&
          (best == nullptr || distance < best_distance)) {
        best = &f;
        best_distance = distance;
      }
    }
    if (best != nullptr) {
      best->used = true;
      ++out.matched;
      ++out.by_kind[a.kind][2];
    }
  }
  out.precision =
      out.found > 0 ? static_cast<double>(out.matched) / static_cast<double>(out.found) : 1.0;
  out.recall = out.true_alerts > 0
                   ? static_cast<double>(out.matched) / static_cast<double>(out.true_alerts)
                   : 1.0;
  return base::Status::Ok();
}
// Per line: visible true departures, and how many of them were matched.
using DeparturesByLine = std::map<LineKey, std::pair<std::int64_t, std::int64_t>>;

// Whether [from, to] overlaps a feed outage or a silence of `route`: a departure the
// feed could not show.
bool Hidden(const Truth& truth, const std::string& route, std::int64_t from, std::int64_t to) {
  const auto overlaps = [&](const TruthInterval& i) { return i.start_us <= to && from < i.end_us; };
  return std::any_of(truth.outages.begin(), truth.outages.end(), overlaps) ||
         std::any_of(truth.line_silences.begin(), truth.line_silences.end(),
                     [&](const TruthInterval& i) { return i.route_id == route && overlaps(i); });
}

// Departures: the `departures` table matched to the true departures by bus, route,
// direction and time; per line, the visible true departures and those matched.
base::Status ScoreDepartures(sink::DuckDbConnection& db, const Truth& truth,
                             const EvaluateOptions& options, Evaluation::Departures& out,
                             DeparturesByLine& by_line) {
  FROTA_ASSIGN_OR_RETURN(const bool present, HasRows(db, "departures"));
  if (!present) {
    return base::Status::Ok();  // frota headways has not run on this database
  }
  out.computed = true;
  out.early_s = options.departure_early_s;
  out.late_s = options.departure_late_s;
  struct Found {
    std::string route_id;
    std::int32_t direction_id;
    std::int64_t time_us;
    bool used = false;
  };
  std::map<std::string, std::vector<Found>> found;  // by vehicle, in time order
  FROTA_ASSIGN_OR_RETURN(
      auto rows,
      db.Query(fmt::format(
          "SELECT vehicle_id, route_id, coalesce(direction_id, -1), departure_time FROM departures "
          "WHERE feed_id = {} ORDER BY vehicle_id, departure_time, route_id",
          Quote(truth.feed_id))));
  for (std::size_t r = 0; r < rows.rows(); ++r) {
    found[rows.String(r, 0)].push_back({rows.String(r, 1),
                                        static_cast<std::int32_t>(rows.Int64(r, 2)),
                                        rows.TimestampMicros(r, 3)});
    ++out.found_rows;
  }
  std::vector<const TruthDeparture*> ordered;
  for (const auto& d : truth.departures) {
    ordered.push_back(&d);
  }
  std::sort(ordered.begin(), ordered.end(), [](const TruthDeparture* a, const TruthDeparture* b) {
    return std::tie(a->vehicle_id, a->time_us) < std::tie(b->vehicle_id, b->time_us);
  });
  const auto early = static_cast<std::int64_t>(options.departure_early_s * 1e6);
  const auto late = static_cast<std::int64_t>(options.departure_late_s * 1e6);
  for (const TruthDeparture* d : ordered) {
    bool matched = false;
    if (const auto it = found.find(d->vehicle_id); it != found.end()) {
      for (Found& f : it->second) {
        if (!f.used && f.route_id == d->route_id &&
            (f.direction_id < 0 || f.direction_id == d->direction_id) &&
            f.time_us >= d->time_us - early && f.time_us <= d->time_us + late) {
          f.used = true;
          matched = true;
          break;
        }
      }
    }
    if (Hidden(truth, d->route_id, d->time_us - early, d->time_us + late)) {
      ++out.left_out;
      out.left_out_found += matched ? 1 : 0;
      continue;
    }
    ++out.true_departures;
    out.found += matched ? 1 : 0;
    const bool at_terminal = !d->tagged_late && !d->never_tagged;
    out.true_reported_at_terminal += at_terminal ? 1 : 0;
    out.found_reported_at_terminal += at_terminal && matched ? 1 : 0;
    auto& line = by_line[{d->route_id, d->direction_id}];
    ++line.first;
    line.second += matched ? 1 : 0;
  }
  for (const auto& [vehicle, list] : found) {
    for (const Found& f : list) {
      out.unmatched_rows += f.used ? 0 : 1;
    }
  }
  out.found_ratio = Ratio(out.found, out.true_departures);
  return base::Status::Ok();
}

base::Status ScoreHeadways(sink::DuckDbConnection& db, const Truth& truth,
                           const EvaluateOptions& options, const DeparturesByLine& departures,
                           Evaluation::Headways& out) {
  FROTA_ASSIGN_OR_RETURN(const bool present, HasRows(db, "headways"));
  if (!present) {
    return base::Status::Ok();  // frota headways has not run on this database
  }
  out.computed = true;
  out.tolerance = options.headway_tolerance;
  // Measured rows: the exclusion column is NULL (databases before it measured every row).
  FROTA_ASSIGN_OR_RETURN(const bool has_exclusion, HasColumn(db, "headways", "exclusion"));
  const std::string measured =
      std::string("headway_s IS NOT NULL") + (has_exclusion ? " AND exclusion IS NULL" : "");
  struct Found {
    std::string short_name;
    std::int64_t departures = 0;
    std::vector<double> headways;
  };
  std::map<LineKey, Found> found;
  {
    FROTA_ASSIGN_OR_RETURN(
        auto rows,
        db.Query(fmt::format(
            "SELECT route_id, coalesce(direction_id, -1), headway_s FROM headways WHERE {} "
            "ORDER BY 1, 2, departure_time",
            measured)));
    for (std::size_t r = 0; r < rows.rows(); ++r) {
      found[{rows.String(r, 0), static_cast<std::int32_t>(rows.Int64(r, 1))}].headways.push_back(
          rows.Double(r, 2));
    }
  }
  FROTA_ASSIGN_OR_RETURN(const bool has_summary, HasTable(db, "headway_summary"));
  if (has_summary) {
    FROTA_ASSIGN_OR_RETURN(
        auto rows, db.Query("SELECT route_id, route_short_name, coalesce(direction_id, -1), "
                            "departures_found FROM headway_summary "
                            "WHERE day_type = 'all' AND hour = -1"));
    for (std::size_t r = 0; r < rows.rows(); ++r) {
      auto& line = found[{rows.String(r, 0), static_cast<std::int32_t>(rows.Int64(r, 2))}];
      line.short_name = rows.String(r, 1);
      line.departures = rows.Int64(r, 3);
    }
  }
  std::map<LineKey, std::vector<double>> true_headways;
  for (const auto& h : truth.headways) {
    if (h.exclusion.empty()) {
      true_headways[{h.route_id, h.direction_id}].push_back(h.headway_s);
    } else {
      ++out.true_excluded[h.exclusion];
    }
  }
  std::vector<double> all_true;
  std::vector<double> errors;
  for (auto& [key, headways] : true_headways) {
    all_true.insert(all_true.end(), headways.begin(), headways.end());
    if (static_cast<std::int64_t>(headways.size()) < options.min_headways) {
      ++out.lines_too_few;
      continue;
    }
    Evaluation::Headways::Line line;
    line.route_id = key.first;
    line.direction_id = key.second;
    line.true_headways = static_cast<std::int64_t>(headways.size());
    line.true_cv = Cv(headways);
    line.true_median_s = Median(std::move(headways));
    if (const auto it = found.find(key); it != found.end()) {
      line.route_short_name = it->second.short_name;
      line.found_departures = it->second.departures;
      line.found_headways = static_cast<std::int64_t>(it->second.headways.size());
      if (!it->second.headways.empty()) {
        line.found_median_s = Median(it->second.headways);
        line.found_cv = Cv(it->second.headways);
      }
    }
    if (const auto it = departures.find(key); it != departures.end()) {
      line.true_departures = it->second.first;
      line.matched_departures = it->second.second;
    }
    if (line.found_median_s) {
      line.relative_error =
          std::abs(*line.found_median_s - line.true_median_s) / line.true_median_s;
      line.within = *line.relative_error <= options.headway_tolerance;
    }
    errors.push_back(line.relative_error.value_or(std::numeric_limits<double>::infinity()));
    out.lines_within += line.within ? 1 : 0;
    out.lines.push_back(std::move(line));
  }
  out.within_share = Ratio(out.lines_within, static_cast<std::int64_t>(out.lines.size()));
  if (!errors.empty()) {
    std::sort(errors.begin(), errors.end());
    const std::size_t n = errors.size();
    // An even count's middle pair may hold an infinity: then the median is one too.
    out.median_relative_error =
        n % 2 == 1 ? errors[n / 2] : (errors[n / 2 - 1] + errors[n / 2]) / 2;
  }
  if (!all_true.empty()) {
    out.true_median_s = Median(std::move(all_true));
  }
  std::vector<double> all_found;
  for (const auto& [key, line] : found) {
    all_found.insert(all_found.end(), line.headways.begin(), line.headways.end());
  }
  if (!all_found.empty()) {
    out.found_median_s = Median(std::move(all_found));
  }
  return base::Status::Ok();
}

// One side of the stop matching: a stop of one bus and what the matching made of it.
struct ScoredStop {
  std::int64_t start_us;
  std::int64_t end_us;
  std::string place;
  std::string route_id;  // true stops: for the feed's outages and silences
  std::int64_t match = -1;
};

std::int64_t OverlapUs(const ScoredStop& a, const ScoredStop& b) {
  return std::min(a.end_us, b.end_us) - std::max(a.start_us, b.start_us);
}

// Matches one bus's true and found stops one to one: every overlapping pair, the longest
// overlap first (then the earlier true stop, then the earlier found one).
void MatchStops(std::vector<ScoredStop>& truths, std::vector<ScoredStop>& founds) {
  struct Pair {
    std::int64_t overlap_us;
    std::size_t t;
    std::size_t f;
  };
  std::vector<Pair> pairs;
  for (std::size_t t = 0; t < truths.size(); ++t) {
    for (std::size_t f = 0; f < founds.size(); ++f) {
      if (const std::int64_t overlap = OverlapUs(truths[t], founds[f]); overlap >= 0) {
        pairs.push_back({overlap, t, f});
      }
    }
  }
  std::sort(pairs.begin(), pairs.end(), [](const Pair& a, const Pair& b) {
    return std::tie(b.overlap_us, a.t, a.f) < std::tie(a.overlap_us, b.t, b.f);
  });
  for (const Pair& p : pairs) {
    if (truths[p.t].match < 0 && founds[p.f].match < 0) {
      truths[p.t].match = static_cast<std::int64_t>(p.f);
      founds[p.f].match = static_cast<std::int64_t>(p.t);
    }
  }
}

// A true stop's place: the simulator's buses stand at terminals (pull-out, layover,
// pull-in, all within 250 m of one), at a depot (kind `depot`) or on the way.
std::string TruePlace(const TruthStop& s) {
  if (s.kind == "depot") {
    return "depot";
  }
  return s.near_terminal ? "terminal" : "en_route";
}

void Finish(Evaluation::StopScores& s) {
  s.recall = Ratio(s.recalled, s.true_stops);
  s.precision = Ratio(s.precise, s.found - s.fragments);
}

}  // namespace

base::Status ScoreStops(sink::DuckDbConnection& db, const Truth& truth,
                        const EvaluateOptions& options, Evaluation::Stops& out) {
  std::map<std::string, std::pair<std::vector<ScoredStop>, std::vector<ScoredStop>>> by_bus;
  for (const auto& s : truth.stops) {
    by_bus[s.vehicle_id].first.push_back({s.start_us, s.end_us, TruePlace(s), s.route_id});
  }
  // The place is the read view's (stop_rows); a database with older views has
  // near_terminal alone.
  FROTA_ASSIGN_OR_RETURN(const bool has_place, HasColumn(db, "stop_rows", "place"));
  FROTA_ASSIGN_OR_RETURN(
      auto rows,
      db.Query(fmt::format(
          "SELECT vehicle_id, start_time, end_time, coalesce(near_terminal, false), {} FROM {} "
          "WHERE feed_id = {} ORDER BY vehicle_id, start_time",
          has_place ? "coalesce(place, 'en_route')"
                    : "CASE WHEN near_terminal THEN 'terminal' ELSE 'en_route' END",
          has_place ? "stop_rows" : "stops", Quote(truth.feed_id))));
  const auto min_us = static_cast<std::int64_t>(options.min_stop_s * 1e6);
  for (std::size_t r = 0; r < rows.rows(); ++r) {
    const ScoredStop found{rows.TimestampMicros(r, 1), rows.TimestampMicros(r, 2),
                           rows.String(r, 4), ""};
    if (rows.Bool(r, 3) && found.end_us - found.start_us >= min_us) {
      ++out.found_near_terminal;
    }
    by_bus[rows.String(r, 0)].second.push_back(found);
  }
  for (auto& [bus, stops] : by_bus) {
    auto& [truths, founds] = stops;
    MatchStops(truths, founds);
    for (const ScoredStop& t : truths) {
      if (t.end_us - t.start_us < min_us) {
        continue;
      }
      if (Hidden(truth, t.route_id, t.start_us, t.end_us)) {
        ++out.left_out;
        out.left_out_found += t.match >= 0 ? 1 : 0;
        continue;
      }
      for (Evaluation::StopScores* s :
           {static_cast<Evaluation::StopScores*>(&out), &out.by_place[t.place]}) {
        ++s->true_stops;
        s->recalled += t.match >= 0 ? 1 : 0;
      }
    }
    for (const ScoredStop& f : founds) {
      if (f.end_us - f.start_us < min_us) {
        continue;
      }
      // Unmatched, but inside a true stop that another found stop matched.
      const bool fragment =
          f.match < 0 && std::any_of(truths.begin(), truths.end(), [&](const ScoredStop& t) {
            return t.match >= 0 && OverlapUs(t, f) >= 0;
          });
      for (Evaluation::StopScores* s :
           {static_cast<Evaluation::StopScores*>(&out), &out.by_place[f.place]}) {
        ++s->found;
        s->precise += f.match >= 0 ? 1 : 0;
        s->fragments += fragment ? 1 : 0;
      }
    }
  }
  Finish(out);
  for (const char* place : {"terminal", "depot", "en_route"}) {
    Finish(out.by_place[place]);
  }
  return base::Status::Ok();
}

namespace {

// Whether any [start, end) of `rows` (microsecond columns 0 and 1) overlaps [from, to).
bool AnyOverlap(sink::DuckDbResult& rows, std::int64_t from, std::int64_t to) {
  for (std::size_t r = 0; r < rows.rows(); ++r) {
    if (rows.Int64(r, 0) < to && from < rows.Int64(r, 1)) {
      return true;
    }
  }
  return false;
}

}  // namespace

base::Status ScoreDayFaults(sink::DuckDbConnection& db, const Truth& truth,
                            const EvaluateOptions& options,
                            std::map<std::string, FaultScore>& faults) {
  const std::string feed = Quote(truth.feed_id);
  // Outages: the feed's coverage gaps (frota headways), else its feed_blind alerts.
  {
    FaultScore outage{static_cast<std::int64_t>(truth.outages.size()), -1};
    FROTA_ASSIGN_OR_RETURN(const bool gaps, HasTable(db, "coverage_gaps"));
    FROTA_ASSIGN_OR_RETURN(const bool alerts, HasTable(db, "alerts"));
    if (gaps || alerts) {
      FROTA_ASSIGN_OR_RETURN(
          auto rows,
          db.Query(gaps ? fmt::format("SELECT epoch_us(start_time), epoch_us(end_time) FROM "
                                      "coverage_gaps WHERE feed_id = {}",
                                      feed)
                        : fmt::format("SELECT epoch_us(start_time), epoch_us(coalesce(end_time, "
                                      "start_time + INTERVAL 5 MINUTE)) FROM alerts "
                                      "WHERE kind = 'feed_blind' AND feed_id = {}",
                                      feed)));
      outage.detected = 0;
      for (const auto& o : truth.outages) {
        outage.detected += AnyOverlap(rows, o.start_us, o.end_us) ? 1 : 0;
      }
    }
    faults["feed_outage"] = outage;
  }
  // Line silences: frota headways' line_silences of the route.
  {
    FaultScore silent{static_cast<std::int64_t>(truth.line_silences.size()), -1};
    FROTA_ASSIGN_OR_RETURN(const bool present, HasTable(db, "line_silences"));
    if (present) {
      silent.detected = 0;
      for (const auto& s : truth.line_silences) {
        FROTA_ASSIGN_OR_RETURN(
            auto rows, db.Query(fmt::format("SELECT epoch_us(start_time), epoch_us(end_time) FROM "
                                            "line_silences WHERE feed_id = {} AND route_id = {}",
                                            feed, Quote(s.route_id))));
        silent.detected += AnyOverlap(rows, s.start_us, s.end_us) ? 1 : 0;
      }
    }
    faults["line_silent"] = silent;
  }
  // Never tagged: the run's departure found all the same, from the geometry alone.
  {
    FaultScore never{0, -1};
    FROTA_ASSIGN_OR_RETURN(const bool present, HasRows(db, "departures"));
    FROTA_ASSIGN_OR_RETURN(
        auto rows,
        db.Query(present ? fmt::format("SELECT vehicle_id, route_id, epoch_us(departure_time) "
                                       "FROM departures WHERE feed_id = {} AND inferred",
                                       feed)
                         : std::string("SELECT NULL::VARCHAR, NULL::VARCHAR, 0 WHERE false")));
    never.detected = present ? 0 : -1;
    const auto early = static_cast<std::int64_t>(options.departure_early_s * 1e6);
    const auto late = static_cast<std::int64_t>(options.departure_late_s * 1e6);
    for (const auto& d : truth.departures) {
      if (!d.never_tagged) {
        continue;
      }
      ++never.injected;
      for (std::size_t r = 0; present && r < rows.rows(); ++r) {
        const std::int64_t t = rows.Int64(r, 2);
        if (rows.String(r, 0) == d.vehicle_id && rows.String(r, 1) == d.route_id &&
            t >= d.time_us - early && t <= d.time_us + late) {
          ++never.detected;
          break;
        }
      }
    }
    faults["never_tagged"] = never;
  }
  // A stale plan: the routes operated off the GTFS frota was given. No rule of frota
  // tells a plan from what ran, so it is listed, not scored.
  faults["stale_plan"] = {static_cast<std::int64_t>(truth.stale_plan.size()), -1};
  // Every other fault of the day, with what the truth counted of it.
  for (const auto& f : truth.faults) {
    faults.try_emplace(f.fault, FaultScore{f.injected, -1});
  }
  return base::Status::Ok();
}

base::Status ScoreDeparturesAndHeadways(sink::DuckDbConnection& db, const Truth& truth,
                                        const EvaluateOptions& options, Evaluation& out) {
  DeparturesByLine departures_by_line;
  FROTA_RETURN_IF_ERROR(ScoreDepartures(db, truth, options, out.departures, departures_by_line));
  return ScoreHeadways(db, truth, options, departures_by_line, out.headways);
}

bool IsDeparture(const gtfs::StaticFeed& feed, const std::string& trip_id, double lat, double lon) {
  const gtfs::Trip* trip = feed.FindTrip(trip_id);
  if (trip == nullptr) {
    return false;
  }
  if (const gtfs::Shape* shape = feed.FindShape(trip->shape_id);
      shape != nullptr && !shape->points.empty()) {
    const auto& first = shape->points.front();
    return geo::HaversineM(lat, lon, first.lat, first.lon) <= kDepartureRadiusM;
  }
  if (const auto* first_stop = feed.FindFirstStop(trip_id); first_stop != nullptr) {
    if (const gtfs::Stop* stop = feed.FindStop(first_stop->stop_id);
        stop != nullptr && std::isfinite(stop->lat) && std::isfinite(stop->lon)) {
      return geo::HaversineM(lat, lon, stop->lat, stop->lon) <= kDepartureRadiusM;
    }
  }
  return false;
}

base::Result<Evaluation> Evaluate(const EvaluateOptions& options) {
  FROTA_ASSIGN_OR_RETURN(const Truth truth, ReadTruth(options.truth));
  if (!fs::exists(options.db)) {
    return base::NotFound("{}: no such database (run frota replay first)", options.db.string());
  }
  FROTA_ASSIGN_OR_RETURN(auto db, sink::DuckDbConnection::Open(options.db, /*read_only=*/true));
  const std::string feed = Quote(truth.feed_id);
  Evaluation out;

  FROTA_RETURN_IF_ERROR(ScoreStops(*db, truth, options, out.stops));

  // The trips table, for the trip faults below.
  const fs::path gtfs_path = ResolveTruthPath(options.truth, truth.gtfs);
  FROTA_ASSIGN_OR_RETURN(const auto gtfs, gtfs::StaticFeed::Load(gtfs_path));
  struct TripRow {
    std::string vehicle_id;
    std::string trip_id;
    std::string start_date;
    std::int64_t first_us;
    bool departure;
  };
  std::vector<TripRow> trip_rows;
  {
    FROTA_ASSIGN_OR_RETURN(
        auto rows,
        db->Query(fmt::format("SELECT vehicle_id, trip_id, trip_start_date, first_time, first_lat, "
                              "first_lon FROM trips "
                              "WHERE feed_id = {} ORDER BY vehicle_id, first_time, trip_id",
                              feed)));
    for (std::size_t r = 0; r < rows.rows(); ++r) {
      TripRow row{rows.String(r, 0), rows.String(r, 1), rows.String(r, 2),
                  rows.TimestampMicros(r, 3), false};
      row.departure = IsDeparture(gtfs, row.trip_id, rows.Double(r, 4), rows.Double(r, 5));
      trip_rows.push_back(std::move(row));
    }
  }
  // Speeds per cell and hour.
  {
    std::map<std::tuple<std::string, std::int32_t, std::int32_t, std::int32_t>, double> true_speed;
    for (const auto& c : truth.speed_cells) {
      true_speed[{c.local_date, c.hour, c.cell_x, c.cell_y}] = c.mean_speed_kmh;
    }
    FROTA_ASSIGN_OR_RETURN(
        auto rows, db->Query(fmt::format("SELECT strftime(local_date, '%Y-%m-%d'), hour, cell_x, "
                                         "cell_y, mean_speed_kmh FROM speed_cell_totals "
                                         "WHERE segments >= {} ORDER BY 1, 2, 3, 4",
                                         options.min_segments)));
    double sum_abs = 0;
    double sum = 0;
    for (std::size_t r = 0; r < rows.rows(); ++r) {
      const auto it =
          true_speed.find({rows.String(r, 0), static_cast<std::int32_t>(rows.Int64(r, 1)),
                           static_cast<std::int32_t>(rows.Int64(r, 2)),
                           static_cast<std::int32_t>(rows.Int64(r, 3))});
      if (it == true_speed.end()) {
        ++out.speed.cells_without_truth;
        continue;
      }
      const double diff = rows.Double(r, 4) - it->second;
      sum_abs += std::abs(diff);
      sum += diff;
      ++out.speed.cells;
    }
    out.speed.mae_kmh = out.speed.cells > 0 ? sum_abs / static_cast<double>(out.speed.cells) : 0;
    out.speed.bias_kmh = out.speed.cells > 0 ? sum / static_cast<double>(out.speed.cells) : 0;
  }

  FROTA_RETURN_IF_ERROR(ScoreDeparturesAndHeadways(*db, truth, options, out));
  FROTA_RETURN_IF_ERROR(ScoreAlerts(*db, truth, out.alerts));

  // Faults: records by their offsets, trip faults by what the tables show.
  if (!truth.fault_records.empty()) {
    const fs::path parquet = ResolveTruthPath(options.truth, truth.fault_records);
    // A refusal is a row of `rejected` at the record's offset, but a duplicate is counted
    // per vehicle and hour (duplicate_counts): a record the truth expects to be refused as
    // a duplicate is detected while its vehicle's counted duplicates last.
    FROTA_ASSIGN_OR_RETURN(
        auto rows,
        db->Query(fmt::format(
            "WITH f AS (SELECT * FROM read_parquet({})), "
            "counted AS (SELECT feed_id, vehicle_id, sum(records) AS n FROM "
            "duplicate_count_totals GROUP BY ALL), "
            "dups AS (SELECT f.fault, f.feed_id, f.vehicle_id, count(*) AS expected, "
            "least(count(*), coalesce(any_value(c.n), 0)) AS counted FROM f LEFT JOIN counted c "
            "USING (feed_id, vehicle_id) WHERE f.expected = 'duplicate' GROUP BY ALL), "
            "rows AS (SELECT f.fault, count(*) AS records, count(r.reason) AS detected, "
            "count(*) FILTER (WHERE f.expected <> 'accepted') AS expected, "
            "count(*) FILTER (WHERE r.reason = f.expected) AS as_expected "
            "FROM f LEFT JOIN rejected r ON r.feed_id = f.feed_id AND r.source_offset = "
            "f.source_offset AND r.reason <> 'duplicate' GROUP BY f.fault) "
            "SELECT r.fault, r.records, r.detected + coalesce(sum(d.counted), 0)::BIGINT, "
            "r.expected, r.as_expected + coalesce(sum(d.counted), 0)::BIGINT FROM rows r "
            "LEFT JOIN dups d USING (fault) "
            "GROUP BY r.fault, r.records, r.detected, r.expected, r.as_expected ORDER BY r.fault",
            Quote(parquet.string()))));
    for (std::size_t r = 0; r < rows.rows(); ++r) {
      out.faults[rows.String(r, 0)] = {rows.Int64(r, 1), rows.Int64(r, 2), rows.Int64(r, 3),
                                       rows.Int64(r, 4)};
    }
  }
  {
    std::set<std::pair<std::string, std::string>> slots_seen;
    for (const auto& row : trip_rows) {
      slots_seen.emplace(row.trip_id, row.start_date);
    }
    FaultScore never_run;
    for (const auto& slot : truth.never_run) {
      ++never_run.injected;
      never_run.detected += slots_seen.count({slot.trip_id, slot.start_date}) == 0 ? 1 : 0;
    }
    out.faults["never_run"] = never_run;

    FROTA_ASSIGN_OR_RETURN(
        auto dup_rows,
        db->Query(fmt::format(
            "SELECT trip_id, trip_start_date FROM duplicate_slots WHERE feed_id = {}", feed)));
    std::set<std::pair<std::string, std::string>> duplicates;
    for (std::size_t r = 0; r < dup_rows.rows(); ++r) {
      duplicates.emplace(dup_rows.String(r, 0), dup_rows.String(r, 1));
    }
    FaultScore duplicate;
    FaultScore late;
    std::map<std::tuple<std::string, std::string, std::string>, std::vector<const TripRow*>>
        rows_of;
    for (const auto& row : trip_rows) {
      rows_of[{row.vehicle_id, row.trip_id, row.start_date}].push_back(&row);
    }
    for (const auto& d : truth.departures) {
      if (d.reported_trip_id != d.trip_id) {
        ++duplicate.injected;
        duplicate.detected += duplicates.count({d.reported_trip_id, d.start_date});
      }
      if (d.tagged_late) {
        ++late.injected;
        // Seen: a trips row of the bus and slot starting after the departure, not a §7
        // departure because its first position is far from the terminal.
        const auto it = rows_of.find({d.vehicle_id, d.reported_trip_id, d.start_date});
        if (it != rows_of.end() &&
            std::any_of(it->second.begin(), it->second.end(), [&](const TripRow* row) {
              return !row->departure && row->first_us >= d.time_us &&
                     row->first_us <= d.time_us + 3'600'000'000;
            })) {
          ++late.detected;
        }
      }
    }
    out.faults["duplicate_slot"] = duplicate;
    out.faults["tagged_late"] = late;
    FaultScore reassigned;
    for (const auto& r : truth.reassignments) {
      ++reassigned.injected;
      const auto it = rows_of.find({r.vehicle_id, r.trip_id, r.start_date});
      if (it != rows_of.end() &&
          std::any_of(it->second.begin(), it->second.end(), [&](const TripRow* row) {
            return row->first_us >= r.start_us - 30'000'000 &&
                   row->first_us <= r.end_us + 30'000'000;
          })) {
        ++reassigned.detected;
      }
    }
    out.faults["reassigned_while_parked"] = reassigned;
  }
  FROTA_RETURN_IF_ERROR(ScoreDayFaults(*db, truth, options, out.faults));

  // semantics §2 counts, expected and reported.
  {
    for (const auto& [reason, n] : truth.expected_rejected) {
      out.rejections[reason] = {n, 0};
    }
    // Rows of rejected, and the duplicates counted instead of stored.
    FROTA_ASSIGN_OR_RETURN(
        auto rows,
        db->Query(fmt::format("SELECT reason, sum(n)::BIGINT FROM (SELECT reason, count(*) AS n "
                              "FROM rejected WHERE feed_id = {0} GROUP BY reason UNION ALL "
                              "SELECT 'duplicate', sum(records) FROM duplicate_count_totals "
                              "WHERE feed_id = {0}) WHERE n > 0 GROUP BY reason ORDER BY reason",
                              feed)));
    for (std::size_t r = 0; r < rows.rows(); ++r) {
      auto& entry = out.rejections[rows.String(r, 0)];
      entry.second = rows.Int64(r, 1);
    }
    FROTA_ASSIGN_OR_RETURN(
        auto accepted,
        db->Query(fmt::format("SELECT count(*) FROM positions WHERE feed_id = {}", feed)));
    out.accepted = {truth.expected_accepted, accepted.rows() > 0 ? accepted.Int64(0, 0) : 0};
  }
  return out;
}

std::string EvaluationJson(const Evaluation& e) {
  nlohmann::ordered_json j;
  const auto round = [](double v) { return std::round(v * 1e6) / 1e6; };
  const auto stop_scores = [&](const Evaluation::StopScores& s) {
    return nlohmann::ordered_json{{"precision", round(s.precision)},
                                  {"recall", round(s.recall)},
                                  {"true", s.true_stops},
                                  {"found", s.found},
                                  {"recalled", s.recalled},
                                  {"precise", s.precise},
                                  {"fragments", s.fragments}};
  };
  j["stops"] = stop_scores(e.stops);
  j["stops"]["found_near_terminal"] = e.stops.found_near_terminal;
  j["stops"]["left_out"] = e.stops.left_out;
  j["stops"]["left_out_found"] = e.stops.left_out_found;
  for (const auto& [place, scores] : e.stops.by_place) {
    j["stops"]["by_place"][place] = stop_scores(scores);
  }
  j["departures"] = {
      {"computed", e.departures.computed},
      {"true", e.departures.true_departures},
      {"found", e.departures.found},
      {"found_ratio", round(e.departures.found_ratio)},
      {"left_out", e.departures.left_out},
      {"left_out_found", e.departures.left_out_found},
      {"match_window_s", {-e.departures.early_s, e.departures.late_s}},
      {"true_reported_at_terminal", e.departures.true_reported_at_terminal},
      {"found_reported_at_terminal", e.departures.found_reported_at_terminal},
      {"found_ratio_reported_at_terminal", round(Ratio(e.departures.found_reported_at_terminal,
                                                       e.departures.true_reported_at_terminal))},
      {"departure_rows", e.departures.found_rows},
      {"unmatched_rows", e.departures.unmatched_rows}};
  j["speed"] = {{"cells", e.speed.cells},
                {"mae_kmh", round(e.speed.mae_kmh)},
                {"bias_kmh", round(e.speed.bias_kmh)},
                {"cells_without_truth", e.speed.cells_without_truth}};
  {
    const auto& h = e.headways;
    const auto optional = [&](const std::optional<double>& v) {
      return v && std::isfinite(*v) ? nlohmann::ordered_json(round(*v)) : nlohmann::ordered_json();
    };
    nlohmann::ordered_json lines = nlohmann::ordered_json::array();
    for (const auto& l : h.lines) {
      lines.push_back({{"route_id", l.route_id},
                       {"route_short_name", l.route_short_name},
                       {"direction_id", l.direction_id >= 0 ? nlohmann::ordered_json(l.direction_id)
                                                            : nlohmann::ordered_json()},
                       {"true_headways", l.true_headways},
                       {"true_median_s", round(l.true_median_s)},
                       {"true_cv", optional(l.true_cv)},
                       {"departures_found", l.found_departures},
                       {"true_departures", l.true_departures},
                       {"matched_departures", l.matched_departures},
                       {"found_ratio", round(Ratio(l.matched_departures, l.true_departures))},
                       {"found_headways", l.found_headways},
                       {"found_median_s", optional(l.found_median_s)},
                       {"found_cv", optional(l.found_cv)},
                       {"relative_error", optional(l.relative_error)},
                       {"within", l.within}});
    }
    j["headways"] = {{"computed", h.computed},
                     {"tolerance", h.tolerance},
                     {"lines", static_cast<std::int64_t>(h.lines.size())},
                     {"lines_within", h.lines_within},
                     {"within_share", round(h.within_share)},
                     {"lines_too_few_headways", h.lines_too_few},
                     {"true_excluded", h.true_excluded},
                     {"true_median_s", round(h.true_median_s)},
                     {"found_median_s", optional(h.found_median_s)},
                     {"median_relative_error", optional(h.median_relative_error)},
                     {"by_line", lines}};
  }
  if (e.alerts.computed) {
    nlohmann::ordered_json kinds = nlohmann::ordered_json::object();
    for (const auto& [kind, counts] : e.alerts.by_kind) {
      kinds[kind] = {{"true", counts[0]}, {"found", counts[1]}, {"matched", counts[2]}};
    }
    j["alerts"] = {{"true", e.alerts.true_alerts},     {"found", e.alerts.found},
                   {"matched", e.alerts.matched},      {"precision", round(e.alerts.precision)},
                   {"recall", round(e.alerts.recall)}, {"by_kind", kinds}};
  }
  nlohmann::ordered_json faults = nlohmann::ordered_json::object();
  for (const auto& [name, score] : e.faults) {
    nlohmann::ordered_json f = {
        {"injected", score.injected},
        {"detected",
         score.detected >= 0 ? nlohmann::ordered_json(score.detected) : nlohmann::ordered_json()}};
    if (score.expected >= 0) {
      f["expected"] = score.expected;
      f["as_expected"] = score.as_expected;
    }
    faults[name] = f;
  }
  j["faults"] = faults;
  nlohmann::ordered_json rejections = nlohmann::ordered_json::object();
  for (const auto& [reason, counts] : e.rejections) {
    rejections[reason] = {{"expected", counts.first}, {"reported", counts.second}};
  }
  j["rejections"] = rejections;
  j["accepted"] = {{"expected", e.accepted.first}, {"reported", e.accepted.second}};
  return j.dump();
}

std::string EvaluationText(const Evaluation& e) {
  std::string out;
  out += fmt::format(
      "stops       precision {:.4f}  recall {:.4f}  (true {}, found {}, {} fragments of split "
      "stops); {} more overlapping outages and silent lines left out ({} of them found)\n",
      e.stops.precision, e.stops.recall, e.stops.true_stops, e.stops.found, e.stops.fragments,
      e.stops.left_out, e.stops.left_out_found);
  for (const auto& [place, s] : e.stops.by_place) {
    out +=
        fmt::format("  {:<9} precision {:.4f}  recall {:.4f}  (true {}, found {}, {} fragments)\n",
                    place, s.precision, s.recall, s.true_stops, s.found, s.fragments);
  }
  if (!e.departures.computed) {
    out += "departures  not in the database: run frota headways on it first\n";
  } else {
    out += fmt::format(
        "departures  found {} of {} ({:.4f}), {} more hidden by outages and silent lines left out "
        "({} of them "
        "found); tagged from the terminal {} of {} ({:.4f})\n",
        e.departures.found, e.departures.true_departures, e.departures.found_ratio,
        e.departures.left_out, e.departures.left_out_found, e.departures.found_reported_at_terminal,
        e.departures.true_reported_at_terminal,
        Ratio(e.departures.found_reported_at_terminal, e.departures.true_reported_at_terminal));
  }
  out += fmt::format("speed       cells {}  mae {:.3f} km/h  bias {:+.3f} km/h\n", e.speed.cells,
                     e.speed.mae_kmh, e.speed.bias_kmh);
  if (e.alerts.computed) {
    out += fmt::format(
        "alerts      precision {:.4f}  recall {:.4f}  (true {}, found {}, matched {})\n",
        e.alerts.precision, e.alerts.recall, e.alerts.true_alerts, e.alerts.found,
        e.alerts.matched);
    for (const auto& [kind, counts] : e.alerts.by_kind) {
      out += fmt::format("            {}: true {}, found {}, matched {}\n", kind, counts[0],
                         counts[1], counts[2]);
    }
  }
  if (!e.headways.computed) {
    out += "headways    not in the database: run frota headways on it first\n";
  } else {
    const auto& h = e.headways;
    const auto number = [](const std::optional<double>& v, std::string_view format) {
      return v && std::isfinite(*v) ? fmt::format(fmt::runtime(format), *v) : std::string("-");
    };
    out += fmt::format(
        "headways    lines with the median within {:.0f} %: {} of {} ({:.4f}); median error {}; "
        "all lines' median {:.1f} s true, {} s found\n",
        100 * h.tolerance, h.lines_within, h.lines.size(), h.within_share,
        number(h.median_relative_error, "{:.4f}"), h.true_median_s,
        number(h.found_median_s, "{:.1f}"));
    for (const auto& l : h.lines) {
      if (!l.within) {
        out += fmt::format(
            "  outside: {} ({}) direction {}: true {:.1f} s over {} headways (cv {}), found {} s "
            "over {} (cv {})\n",
            l.route_short_name.empty() ? l.route_id : l.route_short_name, l.route_id,
            l.direction_id, l.true_median_s, l.true_headways, number(l.true_cv, "{:.3f}"),
            number(l.found_median_s, "{:.1f}"), l.found_headways, number(l.found_cv, "{:.3f}"));
      }
    }
  }
  out += fmt::format("{:<26} {:>10} {:>10} {:>10} {:>11}\n", "fault", "injected", "detected",
                     "expected", "as_expected");
  for (const auto& [name, s] : e.faults) {
    out += fmt::format("{:<26} {:>10} {:>10} {:>10} {:>11}\n", name, s.injected,
                       s.detected >= 0 ? fmt::format("{}", s.detected) : "-",
                       s.expected >= 0 ? fmt::format("{}", s.expected) : "-",
                       s.as_expected >= 0 ? fmt::format("{}", s.as_expected) : "-");
  }
  out += fmt::format("{:<26} {:>10} {:>10}\n", "reason", "expected", "reported");
  for (const auto& [reason, counts] : e.rejections) {
    out += fmt::format("{:<26} {:>10} {:>10}{}\n", reason, counts.first, counts.second,
                       counts.first == counts.second ? "" : "  DIFFERENT");
  }
  out += fmt::format("{:<26} {:>10} {:>10}{}\n", "accepted", e.accepted.first, e.accepted.second,
                     e.accepted.first == e.accepted.second ? "" : "  DIFFERENT");
  return out;
}

}  // namespace frota::sim
