#include "frota/job/shard.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <vector>

#include "frota/engine/testing/operator_harness.h"

namespace frota::job {
namespace {

using std::chrono::seconds;
using Harness = engine::testing::OperatorHarness<Shard, model::PositionRecord, model::EpochRows>;

constexpr double kLat = -22.9;
constexpr double kLon = -43.3;
constexpr double kMetresPerDegreeLat = 111'195.0;  // R * pi / 180 with R = 6,371,008.8 m

base::Timestamp T(int s) { return base::FromUnixSeconds(1'656'572'400 + s); }  // 07:00Z

struct Fixture {
  model::SourceCatalog catalog;
  std::shared_ptr<model::StringDictionary> strings = std::make_shared<model::StringDictionary>();
  JobConfig config;
  model::SourceId source = catalog.Intern("test.bin");
  std::int64_t next_offset = 0;

  Harness MakeHarness() {
    return Harness([this] { return std::make_unique<Shard>(0, &config, &catalog, strings); });
  }

  // A position `north_m` metres north of the reference point at second `s`.
  model::PositionRecord P(int s, double north_m = 0, std::string trip = "") {
    model::Position p;
    p.feed_id = "f";
    p.vehicle_id = "v1";
    p.route_id = "r";
    p.mode = model::Mode::kBus;
    p.lat = kLat + north_m / kMetresPerDegreeLat;
    p.lon = kLon;
    p.trip_id = std::move(trip);
    p.trip_start_date = p.trip_id.empty() ? "" : "20220630";
    p.event_time = T(s);
    p.ingest_time = T(s) + seconds(20);
    p.source = {source, next_offset++};
    return model::InternPosition(p, *strings);
  }
};

TEST(StopsJob, GapOfExactlyFiveMinutesContinuesTheStop) {
  Fixture f;
  auto h = f.MakeHarness();
  h.Record(f.P(0));
  h.Record(f.P(300, 5));
  h.Record(f.P(600, 3));
  h.Record(f.P(700, 500));  // drives off
  h.Watermark(T(10'000));
  ASSERT_EQ(h.output().of<model::StopRow>().size(), 1U);
  EXPECT_EQ(h.output().of<model::StopRow>()[0].start_time, T(0));
  EXPECT_EQ(h.output().of<model::StopRow>()[0].end_time, T(600));
  EXPECT_EQ(h.output().of<model::StopRow>()[0].positions, 3);
}

TEST(StopsJob, AGapOfMoreThanFiveMinutesEndsTheRun) {
  Fixture f;
  auto h = f.MakeHarness();
  h.Record(f.P(0));
  h.Record(f.P(200, 5));
  h.Record(f.P(501, 5));  // 301 s gap: a new candidate anchored here
  h.Record(f.P(801, 5));
  h.Watermark(T(10'000));
  ASSERT_EQ(h.output().of<model::StopRow>().size(), 1U);
  EXPECT_EQ(h.output().of<model::StopRow>()[0].start_time, T(501));
}

TEST(StopsJob, FiftyMetresFromTheAnchorIsInsideAndJustOverIsOutside) {
  Fixture f;
  auto h = f.MakeHarness();
  h.Record(f.P(0));
  h.Record(f.P(200, 49.99));
  h.Record(f.P(400, 49.99));
  h.Record(f.P(500, 50.02));  // ends the run
  h.Watermark(T(10'000));
  ASSERT_EQ(h.output().of<model::StopRow>().size(), 1U);
  EXPECT_EQ(h.output().of<model::StopRow>()[0].end_time, T(400));
  EXPECT_DOUBLE_EQ(h.output().of<model::StopRow>()[0].anchor_lat, kLat);
}

TEST(StopsJob, ARunShorterThanFiveMinutesIsNoStop) {
  Fixture f;
  auto h = f.MakeHarness();
  h.Record(f.P(0));
  h.Record(f.P(299, 1));
  h.Record(f.P(350, 900));
  h.Watermark(T(10'000));
  EXPECT_TRUE(h.output().of<model::StopRow>().empty());
}

TEST(StopsJob, IsEmittedWhenTheWatermarkPassesFiveMinutesAfterItsLastPosition) {
  Fixture f;
  auto h = f.MakeHarness();
  h.Record(f.P(0));
  h.Record(f.P(200, 2));
  h.Record(f.P(400, 2));
  h.Watermark(T(699));
  EXPECT_TRUE(h.output().of<model::StopRow>().empty());
  h.Watermark(T(700));
  ASSERT_EQ(h.output().of<model::StopRow>().size(), 1U);
  EXPECT_EQ(h.output().of<model::StopRow>()[0].end_time, T(400));
}

TEST(StopsJob, TripReassignmentWhileParkedKeepsOneStop) {
  Fixture f;
  auto h = f.MakeHarness();
  h.Record(f.P(0, 0, "A"));
  h.Record(f.P(120, 2, "B"));  // the feed briefly reassigns the trip
  h.Record(f.P(240, 1, "A"));
  h.Record(f.P(480, 3, "A"));
  h.Watermark(T(10'000));
  ASSERT_EQ(h.output().of<model::StopRow>().size(), 1U);
  EXPECT_EQ(h.output().of<model::StopRow>()[0].positions, 4);
}

TEST(StopsJob, ARestoredSnapshotContinuesTheOpenRun) {
  Fixture f;
  auto h = f.MakeHarness();
  h.Record(f.P(0));
  h.Record(f.P(200, 5));
  h.Watermark(T(100));
  ASSERT_TRUE(h.SnapshotAndRestore().ok());
  h.Record(f.P(400, 5));
  h.Watermark(T(10'000));
  ASSERT_EQ(h.output().of<model::StopRow>().size(), 1U);
  EXPECT_EQ(h.output().of<model::StopRow>()[0].positions, 3);
}

TEST(TripsJob, PositionsOfOtherTripsInBetweenDoNotSplitATrip) {
  Fixture f;
  auto h = f.MakeHarness();
  h.Record(f.P(0, 0, "A"));
  h.Record(f.P(60, 500, "B"));
  h.Record(f.P(120, 1000, "A"));
  h.Watermark(T(10'000));
  ASSERT_EQ(h.output().of<model::TripRow>().size(), 2U);
  const auto& a = h.output().of<model::TripRow>()[0].trip_id == "A"
                      ? h.output().of<model::TripRow>()[0]
                      : h.output().of<model::TripRow>()[1];
  EXPECT_EQ(a.positions, 2);
  EXPECT_EQ(a.last_time, T(120));
  EXPECT_NEAR(a.distance_mm / 1000.0, 1000.0, 0.01);  // straight from the first to the third
}

// The plan (given as the rule) says which trips are schedule slots: "S" is scheduled, "F"
// a frequency trip shown without its start time, "X" unknown to it.
TEST(TripsJob, EachTripSaysWhetherItIsASlotOfThePlan) {
  Fixture f;
  f.config.plan_slot = [](std::string_view trip_id, bool start_time_given) {
    return trip_id == "S" || (trip_id == "F" && start_time_given);
  };
  auto h = f.MakeHarness();
  h.Record(f.P(0, 0, "S"));
  h.Record(f.P(2000, 0, "F"));
  h.Record(f.P(4000, 0, "X"));
  h.Watermark(T(100'000));
  ASSERT_EQ(h.output().of<model::TripRow>().size(), 3U);
  for (const auto& trip : h.output().of<model::TripRow>()) {
    ASSERT_TRUE(trip.plan_slot.has_value()) << trip.trip_id;
    EXPECT_EQ(*trip.plan_slot, trip.trip_id == "S") << trip.trip_id;
  }
  Fixture without_plan;
  auto h2 = without_plan.MakeHarness();
  h2.Record(without_plan.P(0, 0, "S"));
  h2.Watermark(T(100'000));
  ASSERT_EQ(h2.output().of<model::TripRow>().size(), 1U);
  EXPECT_FALSE(h2.output().of<model::TripRow>()[0].plan_slot.has_value());
}

TEST(TripsJob, AGapOfMoreThan900SecondsStartsANewTripAndExactly900DoesNot) {
  Fixture f;
  auto h = f.MakeHarness();
  h.Record(f.P(0, 0, "A"));
  h.Record(f.P(900, 0, "A"));
  h.Record(f.P(1801, 0, "A"));
  h.Watermark(T(10'000));
  ASSERT_EQ(h.output().of<model::TripRow>().size(), 2U);
}

// A vehicle whose feed reassigns trips while it moves, and drops the trip for a while:
// the trip of the last position is kept apart from the others (OpenTrips), so every
// reassignment moves trips between the two. Snapshots after every record must not change
// a single row, nor the order a vehicle's trips are emitted in (the order they opened).
TEST(TripsJob, ReassignedTripsGiveTheSameRowsWithASnapshotAfterEveryRecord) {
  const std::vector<std::pair<int, std::string>> sequence = {
      {0, "A"},    {30, "A"},   {60, "B"},   {90, ""},   {120, "A"}, {150, "C"},
      {180, "B"},  {210, "B"},  {240, ""},   {270, ""},  {300, "C"}, {330, "A"},
      {1300, "B"}, {1330, "A"}, {1360, "D"}, {2500, "D"}};
  const auto run = [&](bool snapshots) {
    Fixture f;
    auto h = f.MakeHarness();
    for (std::size_t i = 0; i < sequence.size(); ++i) {
      const auto& [s, trip] = sequence[i];
      h.Record(f.P(s, 40.0 * static_cast<double>(i), trip));
      h.Watermark(T(s));
      if (snapshots) {
        EXPECT_TRUE(h.SnapshotAndRestore().ok());
      }
    }
    h.Watermark(T(100'000));
    return h.output().of<model::TripRow>();
  };
  const auto plain = run(false);
  const auto restored = run(true);
  // A: 0-330, and again alone at 1330 (1000 s later); B: 60-210, and again alone at 1300
  // (1090 s later); C: 150-300; D: 1360, and again alone at 2500 (1140 s later).
  ASSERT_EQ(plain.size(), 7U);
  ASSERT_EQ(restored.size(), plain.size());
  for (std::size_t i = 0; i < plain.size(); ++i) {
    EXPECT_EQ(restored[i].trip_id, plain[i].trip_id) << i;
    EXPECT_EQ(restored[i].first_time, plain[i].first_time) << i;
    EXPECT_EQ(restored[i].last_time, plain[i].last_time) << i;
    EXPECT_EQ(restored[i].last_lat, plain[i].last_lat) << i;
    EXPECT_EQ(restored[i].positions, plain[i].positions) << i;
    EXPECT_EQ(restored[i].distance_mm, plain[i].distance_mm) << i;
  }
  const auto find = [&](std::string_view trip, int first) -> const model::TripRow& {
    for (const auto& row : plain) {
      if (row.trip_id == trip && row.first_time == T(first)) {
        return row;
      }
    }
    ADD_FAILURE() << "no trip " << trip << " from " << first;
    return plain.front();
  };
  EXPECT_EQ(find("A", 0).positions, 4);
  EXPECT_EQ(find("A", 0).last_time, T(330));
  EXPECT_EQ(find("B", 60).positions, 3);
  EXPECT_EQ(find("B", 60).last_time, T(210));
  EXPECT_EQ(find("C", 150).positions, 2);
  EXPECT_EQ(find("B", 1300).positions, 1);
  EXPECT_EQ(find("A", 1330).positions, 1);
  EXPECT_EQ(find("D", 1360).positions, 1);
  EXPECT_EQ(find("D", 2500).positions, 1);
}

// Trips that end at the same timer are emitted in the order they opened, whether the
// trip of the last position opened before the others or after them.
TEST(TripsJob, TripsDueTogetherAreEmittedInTheOrderTheyOpened) {
  const auto order = [](const std::vector<std::string>& trips) {
    Fixture f;
    auto h = f.MakeHarness();
    for (std::size_t i = 0; i < trips.size(); ++i) {
      h.Record(f.P(30 * static_cast<int>(i), 40.0 * static_cast<double>(i), trips[i]));
    }
    h.Watermark(T(100'000));
    std::vector<std::string> emitted;
    for (const auto& row : h.output().of<model::TripRow>()) {
      emitted.push_back(row.trip_id);
    }
    return emitted;
  };
  EXPECT_EQ(order({"A", "B", "A"}), (std::vector<std::string>{"A", "B"}));  // last: A
  EXPECT_EQ(order({"A", "B"}), (std::vector<std::string>{"A", "B"}));       // last: B
  EXPECT_EQ(order({"A", "B", "C", "B"}), (std::vector<std::string>{"A", "B", "C"}));
  EXPECT_EQ(order({"A", "B", "C", ""}), (std::vector<std::string>{"A", "B", "C"}));
}

TEST(Validation, ADuplicateKeepsTheFirstInSourceOrderWhateverTheArrival) {
  Fixture f;
  auto h = f.MakeHarness();
  auto first = f.P(0);
  auto second = f.P(0, 10);
  h.Record(std::move(second));  // arrives first but has the later offset
  h.Record(std::move(first));
  h.Watermark(T(10'000));
  ASSERT_EQ(h.output().positions.size(), 1U);
  EXPECT_EQ(h.output().positions[0].source.offset, 0);
  // The refused one is counted (semantics §2 rule 5), not a row of rejected.
  EXPECT_TRUE(h.output().rejected.empty());
  ASSERT_EQ(h.output().of<model::DuplicateCountRow>().size(), 1U);
  EXPECT_EQ(h.output().of<model::DuplicateCountRow>()[0].records, 1);
}

TEST(Validation, ARejectedJumpDoesNotBecomeTheReference) {
  Fixture f;
  auto h = f.MakeHarness();
  h.Record(f.P(0));
  h.Record(f.P(60, 5000));  // 300 km/h
  h.Record(f.P(120, 100));  // 3 km/h from the first: fine
  h.Watermark(T(10'000));
  EXPECT_EQ(h.output().positions.size(), 2U);
  ASSERT_EQ(h.output().rejected.size(), 1U);
  EXPECT_EQ(h.output().rejected[0].reason, model::RejectReason::kJump);
  EXPECT_EQ(h.output().rejected[0].source.offset, 1);
}

TEST(SpeedJob, SegmentsOverFiveMinutesApartAreNotSegments) {
  Fixture f;
  auto h = f.MakeHarness();
  h.Record(f.P(0));
  h.Record(f.P(300, 1000));  // 12 km/h over exactly 300 s: a segment
  h.Record(f.P(601, 2000));  // 301 s: not a segment
  h.Watermark(T(10'000));
  std::int64_t segments = 0;
  std::int64_t mm = 0;
  for (const auto& c : h.output().of<model::SpeedCellRow>()) {
    segments += c.segments;
    mm += c.distance_mm;
  }
  EXPECT_EQ(segments, 1);
  EXPECT_NEAR(mm / 1000.0, 1000.0, 0.01);
}

TEST(SpeedJob, ASegmentOverTheModesPlausibleTopSpeedIsCountedNotSummed) {
  Fixture f;
  auto h = f.MakeHarness();
  h.Record(f.P(0));
  h.Record(f.P(60, 1510));   // 90.6 km/h: over the bus's 90, under rule 6's 120
  h.Record(f.P(120, 3000));  // 89.4 km/h: summed
  h.Watermark(T(10'000));
  EXPECT_EQ(h.output().positions.size(), 3U);  // rule 6 refused none
  std::int64_t segments = 0;
  std::int64_t implausible = 0;
  std::int64_t us = 0;
  for (const auto& c : h.output().of<model::SpeedCellRow>()) {
    segments += c.segments;
    implausible += c.implausible_segments;
    us += c.duration_us;
  }
  EXPECT_EQ(segments, 1);
  EXPECT_EQ(implausible, 1);
  EXPECT_EQ(us, 60'000'000);
  ASSERT_EQ(h.output().of<model::SpeedLineRow>().size(), 1U);
  EXPECT_EQ(h.output().of<model::SpeedLineRow>()[0].segments, 1);
  EXPECT_EQ(h.output().of<model::SpeedLineRow>()[0].implausible_segments, 1);
}

TEST(SpeedJob, ImplausibleSegmentsOfAnOpenHourSurviveASnapshot) {
  Fixture f;
  auto h = f.MakeHarness();
  h.Record(f.P(0));
  h.Record(f.P(60, 1510));
  h.Watermark(T(600));  // the hour is still open
  ASSERT_TRUE(h.SnapshotAndRestore().ok());
  h.Watermark(T(10'000));
  ASSERT_EQ(h.output().of<model::SpeedCellRow>().size(), 1U);
  EXPECT_EQ(h.output().of<model::SpeedCellRow>()[0].implausible_segments, 1);
  EXPECT_EQ(h.output().of<model::SpeedCellRow>()[0].segments, 0);
}

TEST(QualityJob, CountsAcceptedVehiclesAndLatencyPerHour) {
  Fixture f;
  auto h = f.MakeHarness();
  h.Record(f.P(0));
  h.Record(f.P(30));
  h.Watermark(T(10'000));
  ASSERT_EQ(h.output().of<model::QualityRow>().size(), 1U);
  const auto& q = h.output().of<model::QualityRow>()[0];
  EXPECT_EQ(q.accepted, 2);
  EXPECT_EQ(q.vehicles, 1);
  ASSERT_EQ(q.latency.size(), 1U);
  EXPECT_EQ(q.latency[0].first, 20 - model::kLatencyMinSeconds);
  EXPECT_EQ(q.latency[0].second, 2);
}

TEST(ShardState, ACorruptSnapshotIsAClearError) {
  Fixture f;
  Shard shard(0, &f.config, &f.catalog, f.strings);
  auto bytes = shard.Snapshot();
  bytes.back() ^= 0x40;  // a payload byte
  const auto status = shard.Restore(bytes);
  ASSERT_FALSE(status.ok());
  EXPECT_NE(status.error().message().find("checksum"), std::string::npos);
}

}  // namespace
}  // namespace frota::job
