// Departures, headways and alerts as a streaming job over accepted positions and the watermark
// (semantics §7, docs/departures.md "Streaming").
#pragma once

#include <chrono>
#include <cstdint>
#include <limits>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <tuple>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "frota/base/status.h"
#include "frota/base/time.h"
#include "frota/base/time_zone.h"
#include "frota/gtfs/holidays.h"
#include "frota/gtfs/route_resolver.h"
#include "frota/gtfs/static_feed.h"
#include "frota/model/rows.h"
#include "frota/regularity/departures.h"
#include "frota/regularity/plan.h"

namespace frota::regularity {

/// The numbers of the streaming job.
struct StreamOptions {
  DepartureOptions departures;
  /// A feed silent for this many whole minutes is blind (`frota headways`' coverage gap).
  int coverage_gap_minutes = 5;
  /// bunching: a measured headway under this share of the planned one.
  double bunching_share = 0.25;
  /// gap: a measured headway over this many planned ones; gap_in_progress: no departure
  /// for longer than that.
  double gap_headways = 2;
  /// gap and gap_in_progress need the line watched before the departure that opens them:
  /// in the `watch_window` up to it, at least `watch_share` of the planned departures
  /// were found, both counted outside the feed's coverage gaps, in a window at most half
  /// in them. A feed that shows a third of a line's buses shows no gaps, only holes.
  std::chrono::seconds watch_window{std::chrono::hours(2)};
  double watch_share = 0.5;
  /// ... and at least this many were planned there (at the start of service the feed has
  /// not yet shown whether it sees the line).
  std::int64_t watch_min_planned = 3;
};

/// The row of a placed departure, as both `frota headways` and the stream write it.
model::DepartureRow DepartureRowOf(const Placed& p, const base::TimeZone& zone);
/// The headway row of an in-period departure.
model::HeadwayRow HeadwayRowOf(const Placed& p, const MeasuredHeadway& m,
                               const base::TimeZone& zone);

/// The streaming job. Add() takes the accepted positions the pipeline released, Advance()
/// the watermark after them; rows come out once each, when nothing still to come can
/// change them:
///  - a departure when the watermark is more than Horizon() past it: the detector reads
///    at most max_exit_gap before the position that passes progress_m and
///    max(tag_window, choice_window) after it, so the departures it finds in the
///    positions up to the watermark and earlier than that are those it finds in the
///    whole day;
///  - the headway of an in-period departure with it (the line's previous departure is
///    final by then);
///  - bunching and gap with their headway; gap_in_progress when the watermark is more
///    than Horizon() past the moment 2 x planned after the line's last departure (while
///    that moment is in the same service period and the feed watched all along), closed
///    by the next departure; feed_blind once coverage_gap_minutes whole minutes passed
///    without a position of the feed, closed by its next position.
/// Every row is a function of the positions alone, not of when Advance() is called:
/// `frota headways` finds the same departures and headways, and the same alerts come
/// out of one Advance() at the end (Compute()).
///
/// Not thread-safe. The GTFS, resolver and zone must outlive it.
class Stream {
 public:
  Stream(const gtfs::StaticFeed& feed, const gtfs::RouteResolver& routes,
         const base::TimeZone& zone, gtfs::HolidayCalendar holidays, StreamOptions options = {});
  ~Stream();
  Stream(const Stream&) = delete;
  Stream& operator=(const Stream&) = delete;

  /// How long after a departure the watermark must be before it is final.
  [[nodiscard]] std::chrono::seconds Horizon() const;

  /// One accepted position (its texts as the feed gave them).
  void Add(std::string_view feed_id, std::string_view vehicle_id, base::Timestamp time, double lat,
           double lon, std::string_view route_id, std::string_view trip_id,
           std::string_view trip_start_date);
  /// The accepted positions of a batch of pipeline rows (their ids are `rows.strings`').
  void AddPositions(const model::EpochRows& rows);
  /// Everything that became final with the watermark at `watermark` (base::kWatermarkMax
  /// style maximum at the end of input) goes to `out`.
  void Advance(base::Timestamp watermark, model::EpochRows& out);
  /// End of input: everything is final.
  void Finish(model::EpochRows& out);

  /// Sealed state (positions kept, lines, coverage) and its restoration.
  [[nodiscard]] std::string Snapshot() const;
  base::Status Restore(std::string_view bytes);

 private:
  struct Vehicle;
  struct FeedState;
  struct Line;

  void Emit(model::EpochRows& out, base::Timestamp known_until, base::Timestamp final_before,
            std::int64_t minute_horizon);
  Vehicle& VehicleOf(std::string_view feed_id, std::string_view vehicle_id);
  /// Storage for a text that outlives every position reading it.
  std::string_view Intern(std::string_view text);
  void AddMinutes(std::int64_t minute_horizon, model::EpochRows& out);
  // The line's next departure `d` (measured: one whose time is known, else hidden): a
  // gap_in_progress whose moment came first is raised now; one open closes at d.
  void CloseAt(Line& line, const Departure& d, bool measured, model::EpochRows& out);
  void OnHiddenDeparture(const Departure& d, const Placed& p, model::EpochRows& out);
  void OnDeparture(const Departure& d, model::EpochRows& out);
  void CheckGapInProgress(Line& line, base::Timestamp final_before, model::EpochRows& out);
  /// When the line's open gap_in_progress stopped being measurable before `limit`: its
  /// service period ended, or the feed fell silent after it was raised.
  [[nodiscard]] std::optional<base::Timestamp> LostBefore(const Line& line,
                                                          base::Timestamp limit) const;
  /// Closes the open gap_in_progress, unmeasured, when LostBefore says so.
  void CloseLost(Line& line, base::Timestamp limit, model::EpochRows& out);
  /// Whether the line was watched up to its last departure (StreamOptions::watch_share).
  [[nodiscard]] bool Watched(const Line& line);
  const Coverage& CoverageOf(const std::string& feed_id);

  const gtfs::StaticFeed& feed_;
  const base::TimeZone& zone_;
  gtfs::HolidayCalendar holidays_;
  StreamOptions options_;
  DepartureDetector detector_;
  std::unique_ptr<PlanCache> plans_;
  // Two hashes mixed into one, for the pair keys below (looked up once per position).
  static std::size_t MixHashes(std::size_t a, std::size_t b) {
    return a ^ (b + 0x9e3779b97f4a7c15ULL + (a << 6) + (a >> 2));
  }
  struct TextPairHash {
    std::size_t operator()(const std::pair<std::string_view, std::string_view>& p) const {
      return MixHashes(std::hash<std::string_view>()(p.first),
                       std::hash<std::string_view>()(p.second));
    }
  };
  struct TextHash {
    using is_transparent = void;
    std::size_t operator()(std::string_view text) const {
      return std::hash<std::string_view>()(text);
    }
  };

  // In key order (Advance and Snapshot walk them so); vehicle_index_ finds one by its texts
  // (which it borrows from vehicles_' keys) without comparing keys down the tree.
  std::map<std::pair<std::string, std::string>, Vehicle> vehicles_;
  std::unordered_map<std::pair<std::string_view, std::string_view>, Vehicle*, TextPairHash>
      vehicle_index_;
  std::map<std::string, FeedState> feeds_;
  // The feed of the last position added (most feeds send alone): its key in feeds_.
  std::pair<std::string_view, FeedState*> last_feed_{{}, nullptr};
  std::map<LineKey, Line> lines_;
  std::int64_t last_minute_seen_ = std::numeric_limits<std::int64_t>::min();
  // Whether the detector can place a (route, trip); by the addresses of their texts in
  // texts_, which are the texts' identities there.
  struct AddressPairHash {
    std::size_t operator()(const std::pair<const char*, const char*>& p) const {
      return MixHashes(std::hash<const char*>()(p.first), std::hash<const char*>()(p.second));
    }
  };
  std::unordered_map<std::pair<const char*, const char*>, bool, AddressPairHash> detectable_;
  // Every text positions brought (routes, trips, service dates): stored once, never
  // moved (a node set), so the string_views handed out stay valid.
  std::unordered_set<std::string, TextHash, std::equal_to<>> texts_;
};

}  // namespace frota::regularity
