#include "frota/job/testing/reference_jobs.h"

#include <algorithm>
#include <cmath>
#include <set>

#include "frota/geo/area.h"
#include "frota/geo/haversine.h"

namespace frota::job::testing {

namespace {

using model::Position;
using model::RejectReason;

std::int64_t Us(base::Timestamp t) { return base::ToUnixMicros(t); }

// Written independently of the stream code on purpose: plain arithmetic on microseconds.
constexpr std::int64_t kSecond = 1'000'000;

struct LocalKey {
  std::int32_t date;
  int hour;
};

LocalKey LocalOf(const JobConfig& config, std::int64_t utc_us) {
  const auto hour = config.time_zone->ToLocalHour(base::FromUnixMicros(utc_us));
  return {base::DaysSinceEpoch(hour.date), hour.hour};
}

// Distances come from the shared haversine (tested on its own in geo): the reference
// re-implements the rules, not the geometry, so boundaries compare bit for bit.
double Distance(const Position& a, const Position& b) {
  return geo::HaversineM(a.lat, a.lon, b.lat, b.lon);
}

std::int64_t Mm(double metres) { return std::llround(metres * 1000.0); }

int LatencyBucket(const Position& p) {
  const std::int64_t lag_us = Us(p.ingest_time) - Us(p.event_time);
  // floor division to whole seconds
  std::int64_t lag_s = lag_us / kSecond;
  if (lag_us % kSecond != 0 && lag_us < 0) {
    --lag_s;
  }
  return static_cast<int>(std::clamp<std::int64_t>(lag_s + 30, 0, 330));
}

void CountRejection(ReferenceTables& t, const JobConfig& config, const std::string& feed,
                    RejectReason reason, std::optional<base::Timestamp> event,
                    std::optional<base::Timestamp> ingest) {
  const bool trusted = reason == RejectReason::kOutOfArea || reason == RejectReason::kLate ||
                       reason == RejectReason::kDuplicate || reason == RejectReason::kJump;
  // Trusted reasons are dated by event time; the others by ingest time, else event time.
  std::int64_t when = 0;
  if (ingest && !(trusted && event)) {
    when = Us(*ingest);
  } else if (event) {
    when = Us(*event);
  }
  const auto local = LocalOf(config, when);
  ++t.quality[{feed, local.date, local.hour}].rejected[static_cast<std::size_t>(reason)];
}

}  // namespace

ReferenceTables RunReference(
    const std::vector<OfferedRecord>& arrival,
    const std::vector<std::pair<base::PartitionId, model::Rejection>>& decoded_rejections,
    const JobConfig& config, const model::SourceCatalog& catalog) {
  ReferenceTables t;
  const std::int64_t future = config.future_tolerance.count();
  const std::int64_t stale = config.stale_limit.count();

  // Rules 2-4 and 7 in arrival order, with the watermark recomputed from scratch.
  std::map<std::int32_t, std::pair<std::int64_t, std::int64_t>>
      partitions;  // max event, last ingest
  std::int64_t max_ingest = std::numeric_limits<std::int64_t>::min();
  std::int64_t watermark = std::numeric_limits<std::int64_t>::min();
  std::map<std::pair<std::string, std::string>, std::vector<Position>> by_key;
  for (const auto& offered : arrival) {
    const Position& p = offered.position;
    std::optional<RejectReason> reason;
    if (Us(p.event_time) - Us(p.ingest_time) > future) {
      reason = RejectReason::kFuture;
    } else if (Us(p.ingest_time) - Us(p.event_time) > stale) {
      reason = RejectReason::kStale;
    } else if (config.area != nullptr && !config.area->Contains(p.lat, p.lon)) {
      reason = RejectReason::kOutOfArea;
    } else if (Us(p.event_time) <= watermark) {
      reason = RejectReason::kLate;
    }
    if (reason) {
      t.rejected[{catalog.Name(p.source.source), p.source.offset}] = *reason;
      CountRejection(t, config, p.feed_id, *reason, p.event_time, p.ingest_time);
      continue;
    }
    by_key[{p.feed_id, p.vehicle_id}].push_back(p);
    auto& [max_event, last_ingest] =
        partitions
            .try_emplace(offered.partition.value(), std::numeric_limits<std::int64_t>::min(),
                         std::numeric_limits<std::int64_t>::min())
            .first->second;
    max_event = std::max(max_event, Us(p.event_time));
    last_ingest = std::max(last_ingest, Us(p.ingest_time));
    max_ingest = std::max(max_ingest, Us(p.ingest_time));
    std::int64_t min_event = std::numeric_limits<std::int64_t>::max();
    for (const auto& [id, progress] : partitions) {
      if (max_ingest - progress.second <= config.idle_timeout.count()) {
        min_event = std::min(min_event, progress.first);
      }
    }
    watermark = std::max(watermark, min_event - config.max_lateness().count());
  }
  for (const auto& [partition, r] : decoded_rejections) {
    t.rejected[{catalog.Name(r.source.source), r.source.offset}] = r.reason;
    CountRejection(t, config, r.feed_id, r.reason, r.event_time, r.ingest_time);
  }

  std::set<std::tuple<int, std::int32_t, int, std::string, std::string>> fleet_seen;
  std::set<std::tuple<std::string, std::int32_t, int, std::string>> quality_seen;
  for (auto& [key, records] : by_key) {
    std::sort(records.begin(), records.end(), [&](const Position& a, const Position& b) {
      if (a.event_time != b.event_time) {
        return a.event_time < b.event_time;
      }
      const auto& na = catalog.Name(a.source.source);
      const auto& nb = catalog.Name(b.source.source);
      if (na != nb) {
        return na < nb;
      }
      return a.source.offset < b.source.offset;
    });
    // Rules 5 and 6.
    std::vector<Position> accepted;
    std::optional<std::int64_t> previous_time;
    for (const auto& p : records) {
      if (previous_time && *previous_time == Us(p.event_time)) {
        const auto local = LocalOf(config, Us(p.event_time));
        ++t.duplicate_counts[{p.feed_id, p.vehicle_id, local.date, local.hour}];
        CountRejection(t, config, p.feed_id, RejectReason::kDuplicate, p.event_time, p.ingest_time);
        continue;
      }
      previous_time = Us(p.event_time);
      if (!accepted.empty()) {
        const Position& last = accepted.back();
        const double kmh = Distance(last, p) /
                           (static_cast<double>(Us(p.event_time) - Us(last.event_time)) / kSecond) *
                           3.6;
        const double limit = config.MaxSpeedKmh(p.mode);
        if (kmh > limit) {
          t.rejected[{catalog.Name(p.source.source), p.source.offset}] = RejectReason::kJump;
          CountRejection(t, config, p.feed_id, RejectReason::kJump, p.event_time, p.ingest_time);
          continue;
        }
      }
      accepted.push_back(p);
    }
    // Positions, fleet hours, quality.
    for (const auto& p : accepted) {
      t.positions.emplace(p.feed_id, p.vehicle_id, Us(p.event_time), catalog.Name(p.source.source),
                          p.source.offset);
      const auto local = LocalOf(config, Us(p.event_time));
      auto& fleet = t.fleet_hours[{static_cast<int>(p.mode), local.date, local.hour}];
      if (fleet_seen
              .emplace(static_cast<int>(p.mode), local.date, local.hour, p.feed_id, p.vehicle_id)
              .second) {
        ++fleet.first;
      }
      ++fleet.second;
      auto& q = t.quality[{p.feed_id, local.date, local.hour}];
      ++q.accepted;
      ++q.latency[LatencyBucket(p)];
      if (quality_seen.emplace(p.feed_id, local.date, local.hour, p.vehicle_id).second) {
        ++q.vehicles;
      }
    }
    // Speed.
    for (std::size_t i = 1; i < accepted.size(); ++i) {
      const auto& a = accepted[i - 1];
      const auto& b = accepted[i];
      const std::int64_t dt = Us(b.event_time) - Us(a.event_time);
      if (dt <= 0 || dt > config.segment_max_gap.count()) {
        continue;
      }
      const std::int64_t mm = Mm(Distance(a, b));
      const auto local = LocalOf(config, Us(b.event_time));
      const auto x = static_cast<std::int32_t>(std::floor(b.lon / 0.005));
      const auto y = static_cast<std::int32_t>(std::floor(b.lat / 0.005));
      auto& cell = t.speed_cells[{static_cast<int>(b.mode), local.date, local.hour, x, y}];
      auto& line = t.speed_lines[{static_cast<int>(b.mode), b.route_id, local.date, local.hour}];
      const double kmh = Distance(a, b) / (static_cast<double>(dt) / 1e6) * 3.6;
      if (kmh > config.MaxSegmentSpeedKmh(b.mode)) {
        ++std::get<3>(cell);
        ++std::get<3>(line);
        continue;
      }
      ++std::get<0>(cell);
      std::get<1>(cell) += mm;
      std::get<2>(cell) += dt;
      ++std::get<0>(line);
      std::get<1>(line) += mm;
      std::get<2>(line) += dt;
    }
    // Stops: scan for maximal runs anchored at their first position.
    std::size_t i = 0;
    while (i < accepted.size()) {
      std::size_t j = i + 1;
      while (j < accepted.size() && Distance(accepted[i], accepted[j]) <= config.stop_radius_m &&
             Us(accepted[j].event_time) - Us(accepted[j - 1].event_time) <=
                 config.stop_max_gap.count()) {
        ++j;
      }
      const auto& a = accepted[i];
      const auto& b = accepted[j - 1];
      if (Us(b.event_time) - Us(a.event_time) >= config.stop_min_duration.count()) {
        std::optional<bool> near;
        if (config.near_terminal) {
          near = config.near_terminal(a.route_id, a.lat, a.lon);
        }
        t.stops[{a.feed_id, a.vehicle_id, Us(a.event_time)}] = {
            a.route_id, Us(b.event_time), a.lat, a.lon, static_cast<std::int64_t>(j - i), near};
      }
      i = j;
    }
    // Trips: group by (trip_id, trip_start_date), split at gaps > 900 s.
    std::map<std::pair<std::string, std::string>, std::vector<const Position*>> by_trip;
    for (const auto& p : accepted) {
      if (!p.trip_id.empty()) {
        by_trip[{p.trip_id, p.trip_start_date}].push_back(&p);
      }
    }
    for (const auto& [trip, list] : by_trip) {
      std::size_t start = 0;
      for (std::size_t k = 1; k <= list.size(); ++k) {
        if (k == list.size() ||
            Us(list[k]->event_time) - Us(list[k - 1]->event_time) > config.trip_max_gap.count()) {
          std::int64_t mm = 0;
          for (std::size_t m = start + 1; m < k; ++m) {
            mm += Mm(Distance(*list[m - 1], *list[m]));
          }
          const auto& first = *list[start];
          const auto& last = *list[k - 1];
          t.trips[{first.feed_id, first.vehicle_id, trip.first, trip.second,
                   Us(first.event_time)}] = {
              Us(last.event_time), static_cast<std::int64_t>(k - start), mm, first.lat, last.lat};
          start = k;
        }
      }
    }
  }
  return t;
}

ReferenceTables FromRows(const std::vector<model::EpochRows>& batches, const JobConfig& /*config*/,
                         const model::SourceCatalog& catalog) {
  ReferenceTables t;
  for (const auto& rows : batches) {
    for (const auto& record : rows.positions) {
      const Position p = model::MaterializePosition(record, *rows.strings);
      t.positions.emplace(p.feed_id, p.vehicle_id, Us(p.event_time), catalog.Name(p.source.source),
                          p.source.offset);
    }
    for (const auto& r : rows.rejected) {
      t.rejected[{catalog.Name(r.source.source), r.source.offset}] = r.reason;
    }
    for (const auto& r : rows.of<model::SpeedCellRow>()) {
      auto& cell = t.speed_cells[{static_cast<int>(r.mode), base::DaysSinceEpoch(r.local_date),
                                  r.hour, r.cell_x, r.cell_y}];
      std::get<0>(cell) += r.segments;
      std::get<1>(cell) += r.distance_mm;
      std::get<2>(cell) += r.duration_us;
      std::get<3>(cell) += r.implausible_segments;
    }
    for (const auto& r : rows.of<model::SpeedLineRow>()) {
      auto& line = t.speed_lines[{static_cast<int>(r.mode), r.route_id,
                                  base::DaysSinceEpoch(r.local_date), r.hour}];
      std::get<0>(line) += r.segments;
      std::get<1>(line) += r.distance_mm;
      std::get<2>(line) += r.duration_us;
      std::get<3>(line) += r.implausible_segments;
    }
    for (const auto& r : rows.of<model::FleetHourRow>()) {
      auto& fleet =
          t.fleet_hours[{static_cast<int>(r.mode), base::DaysSinceEpoch(r.local_date), r.hour}];
      fleet.first += r.vehicles;
      fleet.second += r.positions;
    }
    for (const auto& s : rows.of<model::StopRow>()) {
      t.stops[{s.feed_id, s.vehicle_id, Us(s.start_time)}] = {
          s.route_id, Us(s.end_time), s.anchor_lat, s.anchor_lon, s.positions, s.near_terminal};
    }
    for (const auto& r : rows.of<model::TripRow>()) {
      t.trips[{r.feed_id, r.vehicle_id, r.trip_id, r.trip_start_date, Us(r.first_time)}] = {
          Us(r.last_time), r.positions, r.distance_mm, r.first_lat, r.last_lat};
    }
    for (const auto& d : rows.of<model::DuplicateCountRow>()) {
      t.duplicate_counts[{d.feed_id, d.vehicle_id, base::DaysSinceEpoch(d.local_date), d.hour}] +=
          d.records;
    }
    for (const auto& q : rows.of<model::QualityRow>()) {
      auto& out = t.quality[{q.feed_id, base::DaysSinceEpoch(q.local_date), q.hour}];
      out.accepted += q.accepted;
      out.vehicles += q.vehicles;
      for (std::size_t i = 0; i < q.rejected.size(); ++i) {
        out.rejected[i] += q.rejected[i];
      }
      for (const auto& [bucket, n] : q.latency) {
        out.latency[bucket] += n;
      }
    }
  }
  return t;
}

}  // namespace frota::job::testing
