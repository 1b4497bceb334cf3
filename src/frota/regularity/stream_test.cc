#include "frota/regularity/stream.h"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <iterator>
#include <map>
#include <set>

#include "frota/testing/street_feed.h"
#include "frota/testing/subprocess.h"

namespace frota::regularity {
namespace {

using std::chrono::minutes;
using std::chrono::seconds;

using testing::StreetPoint;

using Point = testing::StreetFix;

// Route B53 ("53B" in the feed) along a straight 5 km street, planned every 10 minutes
// eastwards (direction 0) from 06:00 to 09:00 local time on Wednesday 2022-08-03.
class StreamTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const auto& d = dir_.path();
    testing::WriteStreetFeed(d);
    auto feed = gtfs::StaticFeed::Load(d);
    ASSERT_TRUE(feed.ok()) << feed.error().message();
    feed_.emplace(std::move(feed).value());
    routes_.emplace(*feed_);
    zone_.emplace(*base::TimeZone::Load("America/Sao_Paulo"));

    // Buses leave the west terminal at these local times (minutes after 06:00): on plan,
    // then one 2 minutes after another (bunching), then 33 minutes of nothing (gap, and
    // a gap_in_progress from 20 minutes after the last one), then on plan again.
    for (const int leave : {0, 10, 20, 22, 55, 65}) {
      testing::AddStreetBus(points_, fmt::format("bus{}", leave), Local(6, 0) + minutes(leave));
    }
    // A bus of another line keeps the feed covered all morning.
    testing::AddCoveringLine(points_, Local(5, 50), Local(9, 30));
    // The feed is blind from 07:10 to 07:20 local.
    std::erase_if(points_,
                  [&](const Point& p) { return p.time >= Local(7, 10) && p.time < Local(7, 20); });
    std::sort(points_.begin(), points_.end(),
              [](const Point& a, const Point& b) { return a.time < b.time; });
  }

  static base::Timestamp Local(int hour, int minute) { return testing::StreetLocal(hour, minute); }

  // Replaces the morning: buses leaving at these minutes after 06:00 local, the other
  // line covering the feed from 05:50 to 09:30, the feed blind in [blind_from, blind_to)
  // minutes after 06:00 (none when equal).
  void Morning(const std::vector<int>& leaves, int blind_from = 0, int blind_to = 0) {
    points_.clear();
    for (const int leave : leaves) {
      testing::AddStreetBus(points_, fmt::format("bus{}", leave), Local(6, 0) + minutes(leave));
    }
    testing::AddCoveringLine(points_, Local(5, 50), Local(9, 30));
    std::erase_if(points_, [&](const Point& p) {
      return p.time >= Local(6, blind_from) && p.time < Local(6, blind_to);
    });
    std::sort(points_.begin(), points_.end(),
              [](const Point& a, const Point& b) { return a.time < b.time; });
  }

  static std::vector<std::string> Starting(const std::vector<std::string>& rows,
                                           std::string_view prefix) {
    std::vector<std::string> out;
    std::copy_if(rows.begin(), rows.end(), std::back_inserter(out),
                 [&](const std::string& r) { return r.starts_with(prefix); });
    return out;
  }

  std::unique_ptr<Stream> NewStream() const {
    return std::make_unique<Stream>(*feed_, *routes_, *zone_,
                                    gtfs::HolidayCalendar::ForTimeZone("America/Sao_Paulo"));
  }

  // Every row, as text, sorted; alerts as the table keeps them (the last row per id).
  static std::vector<std::string> Text(const model::EpochRows& rows) {
    std::vector<std::string> out;
    for (const auto& d : rows.of<model::DepartureRow>()) {
      out.push_back(fmt::format("departure {} {} {} {} {}", d.vehicle_id, d.route_id,
                                d.direction_id, base::FormatIso8601(d.departure_time),
                                d.unplanned));
    }
    for (const auto& h : rows.of<model::HeadwayRow>()) {
      out.push_back(fmt::format("headway {} {} {} {} {} {}", h.route_id, h.direction_id,
                                base::FormatIso8601(h.departure_time), h.vehicle_id,
                                h.headway_s.value_or(-1), h.exclusion));
    }
    std::map<std::string, std::string> alerts;
    for (const auto& a : rows.of<model::AlertRow>()) {
      alerts[a.alert_id] = fmt::format(
          "alert {} end={} raised={} closed={} planned={} actual={} vehicles={}", a.alert_id,
          a.end_time ? base::FormatIso8601(*a.end_time) : "-", base::FormatIso8601(a.raised_at),
          a.closed_at ? base::FormatIso8601(*a.closed_at) : "-", a.planned_headway_s.value_or(-1),
          a.actual_headway_s.value_or(-1), a.vehicles);
    }
    for (auto& [id, text] : alerts) {
      out.push_back(text);
    }
    std::sort(out.begin(), out.end());
    return out;
  }

  // Feeds the points as a pipeline releases them: those up to W, then Advance(W), for W
  // every `step`; a snapshot and restore into a new stream at `restart_at` (if set).
  std::vector<std::string> Run(seconds step, std::optional<base::Timestamp> restart_at = {}) {
    auto stream = NewStream();
    model::EpochRows rows;
    std::size_t next = 0;
    for (base::Timestamp w = points_.front().time; next < points_.size(); w += step) {
      for (; next < points_.size() && points_[next].time <= w; ++next) {
        const Point& p = points_[next];
        stream->Add("f", p.vehicle, p.time, p.lat, p.lon, p.route, "", "");
      }
      stream->Advance(w, rows);
      if (restart_at && w >= *restart_at) {
        const std::string state = stream->Snapshot();
        stream = NewStream();
        const auto restored = stream->Restore(state);
        EXPECT_TRUE(restored.ok()) << restored.error().message();
        restart_at.reset();
      }
    }
    stream->Finish(rows);
    return Text(rows);
  }

  std::vector<std::string> AllAtOnce() {
    auto stream = NewStream();
    for (const Point& p : points_) {
      stream->Add("f", p.vehicle, p.time, p.lat, p.lon, p.route, "", "");
    }
    model::EpochRows rows;
    stream->Finish(rows);
    return Text(rows);
  }

  testing::TempDir dir_{"regularity_stream_test"};
  std::optional<gtfs::StaticFeed> feed_;
  std::optional<gtfs::RouteResolver> routes_;
  std::optional<base::TimeZone> zone_;
  std::vector<Point> points_;
};

TEST_F(StreamTest, EveryAlertKindOnceWithItsTimes) {
  const auto rows = AllAtOnce();
  const auto count = [&](std::string_view prefix) {
    return std::count_if(rows.begin(), rows.end(),
                         [&](const std::string& r) { return r.starts_with(prefix); });
  };
  EXPECT_EQ(count("departure "), 6) << fmt::format("{}", fmt::join(rows, "\n"));
  EXPECT_EQ(count("headway "), 6);
  EXPECT_EQ(count("alert bunching|f|R53|0|"), 1) << fmt::format("{}", fmt::join(rows, "\n"));
  EXPECT_EQ(count("alert gap|f|R53|0|"), 1);
  // After the bunched pair: nothing from 06:22 (plus the same lag as every departure)
  // for more than 20 minutes, closed by the 06:55 bus. After the last bus the feed went
  // blind before 2 x planned passed: no gap_in_progress there.
  EXPECT_EQ(count("alert gap_in_progress|f|R53|0|"), 1) << fmt::format("{}", fmt::join(rows, "\n"));
  EXPECT_EQ(count("alert feed_blind|f|||"), 1);
  for (const auto& r : rows) {
    if (r.starts_with("alert gap_in_progress")) {
      EXPECT_NE(r.find("vehicles=bus22,bus55"), std::string::npos) << r;
      EXPECT_EQ(r.find("closed=-"), std::string::npos) << r;
    }
    if (r.starts_with("alert feed_blind")) {
      // Blind from 07:10 to 07:20 local (10:10 to 10:20 UTC), raised 5 minutes in.
      EXPECT_NE(r.find("2022-08-03T10:10:00Z end=2022-08-03T10:20:00Z raised=2022-08-03T10:15:00Z"),
                std::string::npos)
          << r;
    }
    if (r.starts_with("alert bunching")) {
      EXPECT_NE(r.find("actual=120 vehicles=bus20,bus22"), std::string::npos) << r;
    }
  }
}

TEST_F(StreamTest, SameRowsWhateverTheSteps) {
  const auto once = AllAtOnce();
  ASSERT_FALSE(once.empty());
  EXPECT_EQ(Run(seconds(30)), once);
  EXPECT_EQ(Run(minutes(7)), once);
  EXPECT_EQ(Run(minutes(45)), once);
}

TEST_F(StreamTest, SnapshotAndRestoreLoseNothing) {
  const auto once = AllAtOnce();
  for (const auto at : {Local(6, 20), Local(6, 40), Local(7, 15), Local(8, 0)}) {
    EXPECT_EQ(Run(minutes(1), at), once);
  }
}

TEST_F(StreamTest, DeparturesWaitForTheHorizon) {
  auto stream = NewStream();
  model::EpochRows rows;
  for (const Point& p : points_) {
    if (p.time <= Local(6, 30)) {
      stream->Add("f", p.vehicle, p.time, p.lat, p.lon, p.route, "", "");
    }
  }
  stream->Advance(Local(6, 30), rows);
  // 06:30 - 40 minutes is before every departure: none is final yet.
  EXPECT_TRUE(rows.of<model::DepartureRow>().empty());
  EXPECT_EQ(stream->Horizon(), minutes(40));
}

TEST_F(StreamTest, AGapInProgressWithoutADepartureClosesAtThePeriodsEnd) {
  // The last bus leaves at 06:22 (its last position at the terminal), raised 20 minutes
  // later; the plan runs to 09:00 every 10 minutes, so its
  // service period ends at 09:10 local (12:10 UTC): closed then, unmeasured.
  Morning({0, 10, 20});
  const auto rows = AllAtOnce();
  const auto open = Starting(rows, "alert gap_in_progress|f|R53|0|");
  ASSERT_EQ(open.size(), 1u) << fmt::format("{}", fmt::join(rows, "\n"));
  EXPECT_NE(
      open[0].find("2022-08-03T09:22:00Z end=2022-08-03T12:10:00Z raised=2022-08-03T09:42:00Z "
                   "closed=2022-08-03T12:10:00Z planned=600 actual=-1"),
      std::string::npos)
      << open[0];
  EXPECT_EQ(Run(minutes(7)), rows);
}

TEST_F(StreamTest, AGapInProgressClosesWhenTheFeedFallsSilent) {
  // As above, but the feed is blind from 07:30 local: the alert closes at 07:30 (10:30
  // UTC), as nothing shows any more whether a bus left.
  Morning({0, 10, 20}, 90, 100);
  const auto rows = AllAtOnce();
  const auto open = Starting(rows, "alert gap_in_progress|f|R53|0|");
  ASSERT_EQ(open.size(), 1u) << fmt::format("{}", fmt::join(rows, "\n"));
  EXPECT_NE(open[0].find("end=2022-08-03T10:30:00Z raised=2022-08-03T09:42:00Z "
                         "closed=2022-08-03T10:30:00Z planned=600 actual=-1"),
            std::string::npos)
      << open[0];
  EXPECT_EQ(Run(minutes(7)), rows);
  EXPECT_EQ(Run(minutes(1), Local(7, 35)), rows);
}

TEST_F(StreamTest, NoGapOnALineTheFeedShowsTooLittleOf) {
  // Buses at 06:00, 06:10, 06:20, 07:10, 08:00, 08:50 and 09:00, each departing 2 minutes
  // later (its last position at the terminal). At 06:22, 3 of the 3 planned departures of
  // the two hours before were found, at 07:12 4 of 8: watched, so the gaps after them are
  // raised, each with its gap_in_progress. At 08:02, 5 of 13: not watched, no gap to 08:52.
  // At 06:02 and 06:12 too few were planned to tell.
  Morning({0, 10, 20, 70, 120, 170, 180});
  const auto rows = AllAtOnce();
  const auto gaps = Starting(rows, "alert gap|f|R53|0|");
  ASSERT_EQ(gaps.size(), 2u) << fmt::format("{}", fmt::join(rows, "\n"));
  EXPECT_NE(gaps[0].find("|2022-08-03T09:22"), std::string::npos) << gaps[0];
  EXPECT_NE(gaps[1].find("|2022-08-03T10:12"), std::string::npos) << gaps[1];
  const auto in_progress = Starting(rows, "alert gap_in_progress|f|R53|0|");
  ASSERT_EQ(in_progress.size(), 2u) << fmt::format("{}", fmt::join(rows, "\n"));
  EXPECT_NE(in_progress[0].find("|2022-08-03T09:22"), std::string::npos) << in_progress[0];
  EXPECT_NE(in_progress[1].find("|2022-08-03T10:12"), std::string::npos) << in_progress[1];
  EXPECT_EQ(Starting(rows, "headway ").size(), 7u);
  EXPECT_EQ(Run(minutes(3)), rows);
}

TEST_F(StreamTest, AFeedOutageLeavesItsPlannedDeparturesOutOfTheWatchedShare) {
  // Buses at 06:00, 06:10, 07:10, 07:20 and 08:30 (departures 2 minutes later); the feed
  // is blind from 06:15 to 07:05, when 5 of the planned departures fell. At 07:22, 4 of
  // the 9 planned in the two hours before were found: of the 4 planned where the feed
  // watched, all. Watched: the 70 minutes to 08:32 are a gap.
  Morning({0, 10, 70, 80, 150}, 15, 65);
  const auto rows = AllAtOnce();
  const auto gaps = Starting(rows, "alert gap|f|R53|0|");
  ASSERT_EQ(gaps.size(), 1u) << fmt::format("{}", fmt::join(rows, "\n"));
  EXPECT_NE(gaps[0].find("|2022-08-03T10:22:00Z end=2022-08-03T11:32:00Z"), std::string::npos)
      << gaps[0];
  EXPECT_EQ(Run(minutes(3)), rows);
  EXPECT_EQ(Run(minutes(1), Local(7, 40)), rows);
}

TEST_F(StreamTest, AWindowBlindForMoreThanHalfItsLengthWatchesNothing) {
  // Buses at 06:00, 07:30, 07:40 and 08:50. Blind from 06:10 to 06:55, the two hours up to
  // 07:42 show 2 of the 6 planned where the feed watched (and 06:02): a gap to 08:52.
  // Blind from 06:10 to 07:20, 70 of those 120 minutes: nothing can tell, no gap.
  Morning({0, 90, 100, 170}, 10, 55);
  auto rows = AllAtOnce();
  ASSERT_EQ(Starting(rows, "alert gap|f|R53|0|2022-08-03T10:42").size(), 1u)
      << fmt::format("{}", fmt::join(rows, "\n"));
  Morning({0, 90, 100, 170}, 10, 80);
  rows = AllAtOnce();
  EXPECT_TRUE(Starting(rows, "alert gap|").empty()) << fmt::format("{}", fmt::join(rows, "\n"));
  EXPECT_TRUE(Starting(rows, "alert gap_in_progress|f|R53|0|2022-08-03T10:42").empty());
  EXPECT_EQ(Run(minutes(3)), rows);
}

TEST_F(StreamTest, ABusWhoseOwnSilenceHidesItsExitLeavesTheHeadwayAcrossItOut) {
  // Buses leave every 10 minutes from 06:00 (departures 2 minutes later), bus40 included,
  // then at 06:55 and 07:05. bus40 stands at the terminal from 06:35, reports nothing
  // from 06:38 until 06:46:30, when it is 3 km out: it left, but when is hidden. The
  // pair 06:32 - 06:57 (25 minutes, over twice the 10 planned) is a coverage gap, not a
  // gap, and no gap_in_progress is raised at 06:52: the line did depart before then.
  Morning({0, 10, 20, 30, 40, 55, 65});
  const auto terminal = StreetPoint(0);
  points_.push_back({"bus40", Local(6, 35), terminal.first, terminal.second, "53B", ""});
  std::erase_if(points_, [&](const Point& p) {
    return p.vehicle == "bus40" && p.time >= Local(6, 38) && p.time < Local(6, 46) + seconds(30);
  });
  std::sort(points_.begin(), points_.end(),
            [](const Point& a, const Point& b) { return a.time < b.time; });
  const auto rows = AllAtOnce();
  EXPECT_EQ(Starting(rows, "departure ").size(), 6u) << fmt::format("{}", fmt::join(rows, "\n"));
  EXPECT_TRUE(Starting(rows, "departure bus40").empty());
  EXPECT_TRUE(Starting(rows, "alert gap|").empty()) << fmt::format("{}", fmt::join(rows, "\n"));
  // (After the last bus, 07:07, the plan runs on: that one is raised at 07:27.)
  const auto in_progress = Starting(rows, "alert gap_in_progress|");
  ASSERT_EQ(in_progress.size(), 1u) << fmt::format("{}", fmt::join(rows, "\n"));
  EXPECT_NE(in_progress[0].find("|2022-08-03T10:07:00Z"), std::string::npos) << in_progress[0];
  const auto across = Starting(rows, "headway R53 0 2022-08-03T09:57:00Z bus55");
  ASSERT_EQ(across.size(), 1u) << fmt::format("{}", fmt::join(rows, "\n"));
  EXPECT_EQ(across[0], "headway R53 0 2022-08-03T09:57:00Z bus55 1500 coverage_gap");
  EXPECT_EQ(Run(minutes(3)), rows);
  EXPECT_EQ(Run(minutes(1), Local(7, 0)), rows);
}

TEST_F(StreamTest, ATrackFindsWhatTheWholeDayHoldsAndKeepsHalfAnHour) {
  // One bus shuttling west to east and back for almost 5 hours, a fix every 30 s.
  std::vector<Fix> fixes;
  base::Timestamp t = Local(6, 0);
  for (int lap = 0; lap < 14; ++lap) {
    for (double x = 0; x <= 5000; x += 240, t += seconds(30)) {
      const auto p = StreetPoint(x);
      fixes.push_back({t, p.first, p.second, "53B", "", ""});
    }
    for (double x = 5000; x >= 0; x -= 240, t += seconds(30)) {
      const auto p = StreetPoint(x);
      fixes.push_back({t, p.first, p.second, "53B", "", ""});
    }
  }
  const DepartureDetector detector(*feed_, *routes_, *zone_);
  std::vector<Departure> whole;
  detector.AddVehicle("f", "bus", fixes, whole);
  ASSERT_GE(whole.size(), 6u);

  VehicleTrack track(detector, "f", "bus");
  std::set<std::string, std::less<>> texts;  // what restored fixes' texts point to
  const auto intern = [&texts](std::string_view text) -> std::string_view {
    return *texts.emplace(text).first;
  };
  std::vector<Departure> found;
  std::size_t most_kept = 0;
  std::size_t next = 0;
  for (base::Timestamp w = fixes.front().time; next < fixes.size(); w += minutes(5)) {
    for (; next < fixes.size() && fixes[next].time < w; ++next) {
      track.Add(fixes[next]);
    }
    track.Advance(w, found);
    most_kept = std::max(most_kept, track.kept());
    // Through a snapshot now and then, as a restart would.
    base::ByteWriter bytes;
    track.Snapshot(bytes);
    VehicleTrack restored(detector, "f", "bus");
    base::ByteReader reader(bytes.bytes());
    ASSERT_TRUE(restored.Restore(reader, intern).ok());
    track = std::move(restored);
  }
  track.Advance(base::Timestamp::max(), found);
  ASSERT_EQ(found.size(), whole.size());
  for (std::size_t i = 0; i < found.size(); ++i) {
    EXPECT_EQ(found[i].departure_time, whole[i].departure_time) << i;
    EXPECT_EQ(found[i].direction_id, whole[i].direction_id) << i;
  }
  // 30 minutes of look-ahead and 5 of watermark steps at one fix per 30 s, not 3 hours.
  EXPECT_LE(most_kept, 80u);
  EXPECT_GT(fixes.size(), 500u);
}

TEST_F(StreamTest, RestoreRefusesGarbage) {
  auto stream = NewStream();
  EXPECT_FALSE(stream->Restore("not a state").ok());
}

}  // namespace
}  // namespace frota::regularity
