#include "frota/regularity/runs.h"

#include <gtest/gtest.h>

#include <deque>
#include <optional>

#include "frota/testing/street_feed.h"
#include "frota/testing/subprocess.h"

namespace frota::regularity {
namespace {

using std::chrono::minutes;
using std::chrono::seconds;

constexpr double kStreetM = 5000;  // W to E

// A bus of route "53B" on the street of testing/street_feed.h: shape SI runs W to E
// (direction 0), SV back (direction 1).
class RunsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    testing::WriteStreetFeed(dir_.path());
    auto feed = gtfs::StaticFeed::Load(dir_.path());
    ASSERT_TRUE(feed.ok()) << feed.error().message();
    feed_.emplace(std::move(feed).value());
    routes_.emplace(*feed_);
    zone_.emplace(*base::TimeZone::Load("America/Sao_Paulo"));
    detector_ = std::make_unique<DepartureDetector>(*feed_, *routes_, *zone_);
  }

  static base::Timestamp Local(int hour, int minute) { return testing::StreetLocal(hour, minute); }

  // Positions every `step` from `from`, `east_m` (and `north_m`) giving the place at each
  // elapsed second; returns the time after the last one.
  template <typename Place>
  base::Timestamp Add(base::Timestamp from, seconds duration, const std::string& trip, Place place,
                      seconds step = seconds(30)) {
    for (seconds s(0); s < duration; s += step) {
      const auto [east, north] = place(static_cast<double>(s.count()));
      const auto [lat, lon] = testing::StreetPoint(east, north);
      texts_.push_back(trip);
      fixes_.push_back({from + s, lat, lon, "53B", texts_.back(), trip.empty() ? "" : "20220803"});
    }
    return from + duration;
  }
  base::Timestamp Stand(base::Timestamp from, seconds duration, double east_m,
                        const std::string& trip) {
    return Add(from, duration, trip, [&](double) { return std::make_pair(east_m, 0.0); });
  }
  // At 8 m/s from `from_m` to `to_m` along the street, `north_m` off it.
  base::Timestamp Drive(base::Timestamp from, double from_m, double to_m, const std::string& trip,
                        double north_m = 0, seconds step = seconds(30)) {
    const double sign = to_m > from_m ? 1 : -1;
    const auto duration = seconds(static_cast<std::int64_t>(std::abs(to_m - from_m) / 8));
    return Add(
        from, duration, trip,
        [&](double s) { return std::make_pair(from_m + sign * 8 * s, north_m); }, step);
  }

  std::vector<RunTrip> Split() {
    std::vector<Departure> departures;
    detector_->AddVehicle("f", "bus", fixes_, departures);
    return SplitRuns(*detector_, "f", "bus", fixes_, departures);
  }

  testing::TempDir dir_{"runs_test"};
  std::optional<gtfs::StaticFeed> feed_;
  std::optional<gtfs::RouteResolver> routes_;
  std::optional<base::TimeZone> zone_;
  std::unique_ptr<DepartureDetector> detector_;
  std::deque<std::string> texts_;  // the fixes' trip ids (a deque never moves them)
  std::vector<Fix> fixes_;
};

TEST_F(RunsTest, OneTagKeptForThreeRunsIsThreeTrips) {
  // The feed keeps trip I0 on the bus all morning: W to E, back, and out again.
  auto t = Stand(Local(6, 0), minutes(3), 0, "I0");
  t = Drive(t, 0, kStreetM, "I0");
  t = Stand(t, minutes(5), kStreetM, "I0");
  const base::Timestamp back = t;
  t = Drive(t, kStreetM, 0, "I0");
  t = Stand(t, minutes(5), 0, "I0");
  const base::Timestamp again = t;
  Drive(t, 0, kStreetM, "I0");

  const auto trips = Split();
  ASSERT_EQ(trips.size(), 3U);
  const int directions[] = {0, 1, 0};
  for (std::size_t i = 0; i < trips.size(); ++i) {
    const RunTrip& trip = trips[i];
    ASSERT_TRUE(trip.departure.has_value()) << i;
    EXPECT_EQ(trip.trip_id, "I0");
    EXPECT_EQ(trip.route_id, "R53");
    EXPECT_EQ(trip.direction_id, directions[i]) << i;
    EXPECT_EQ(trip.completed, true) << i;
    EXPECT_EQ(trip.shape_share, 1.0) << i;
    EXPECT_GE(trip.minute_share.value_or(0), 0.99) << i;
    EXPECT_EQ(trip.conforming, true) << i;
  }
  // Each trip runs from its departure (the last position at the terminal) to its arrival
  // (the first within 1,000 m of the far end): the waits at the terminals are no trip's.
  for (const RunTrip& trip : trips) {
    EXPECT_EQ(trip.first_time, trip.departure->departure_time);
  }
  EXPECT_GT(trips[0].first_time, Local(6, 0) + minutes(3));
  EXPECT_LT(trips[0].last_time, back - minutes(5));
  EXPECT_GT(trips[1].first_time, back);
  EXPECT_LT(trips[1].first_time, back + minutes(3));
  EXPECT_LT(trips[1].last_time, again - minutes(5));
  EXPECT_GT(trips[2].first_time, again);
  EXPECT_LT(trips[2].first_time, again + minutes(3));
  // 5,000 m at 8 m/s, less the 1,000 m at each end spent inside the terminals' circles.
  for (const RunTrip& trip : trips) {
    EXPECT_NEAR((trip.last_time - trip.first_time).count() / 1e6, 3000.0 / 8, 60);
    EXPECT_NEAR(trip.distance_m, 3000, 500);
  }
}

TEST_F(RunsTest, ATagRunWithoutDepartureIsOneUncompletedTrip) {
  Stand(Local(6, 0), minutes(20), 0, "I0");
  const auto trips = Split();
  ASSERT_EQ(trips.size(), 1U);
  EXPECT_FALSE(trips[0].departure.has_value());
  EXPECT_EQ(trips[0].route_id, "R53");  // the tag's trip's pattern
  EXPECT_EQ(trips[0].direction_id, 0);
  EXPECT_EQ(trips[0].completed, false);
  EXPECT_EQ(trips[0].conforming, true);  // on the shape, every minute seen
}

TEST_F(RunsTest, ATagThatStartsAfterTheBusLeftKeepsItsDeparture) {
  auto t = Stand(Local(6, 0), minutes(3), 0, "");
  t = Drive(t, 0, 1500, "");
  Drive(t, 1500, kStreetM, "I1");
  const auto trips = Split();
  ASSERT_EQ(trips.size(), 1U);
  ASSERT_TRUE(trips[0].departure.has_value());
  EXPECT_TRUE(trips[0].departure->tagged_late);
  EXPECT_LT(trips[0].departure->departure_time, trips[0].first_time);
  EXPECT_EQ(trips[0].completed, true);
}

TEST_F(RunsTest, ARunThatTurnsBackEarlyIsNotCompleted) {
  auto t = Stand(Local(6, 0), minutes(3), 0, "I0");
  t = Drive(t, 0, 3500, "I0");
  Drive(t, 3500, 2000, "I0");
  const auto trips = Split();
  ASSERT_EQ(trips.size(), 1U);
  ASSERT_TRUE(trips[0].departure.has_value());
  EXPECT_EQ(trips[0].completed, false);  // 1,500 m short of E
}

TEST_F(RunsTest, ARunOffTheShapeDoesNotConform) {
  auto t = Stand(Local(6, 0), minutes(3), 0, "I0");
  t = Drive(t, 0, 1200, "I0");
  // Two thirds of the way 700 m north of the street: off the shape, still completed.
  t = Drive(t, 1200, 4000, "I0", 700);
  Drive(t, 4000, kStreetM, "I0");
  const auto trips = Split();
  ASSERT_EQ(trips.size(), 1U);
  EXPECT_EQ(trips[0].completed, true);
  EXPECT_LT(trips[0].shape_share.value_or(1), 0.8);
  EXPECT_GE(trips[0].minute_share.value_or(0), 0.99);
  EXPECT_EQ(trips[0].conforming, false);
}

TEST_F(RunsTest, ARunSeenEveryThreeMinutesDoesNotConform) {
  auto t = Stand(Local(6, 0), minutes(1), 0, "I0");
  Drive(t, 0, kStreetM, "I0", 0, seconds(180));
  const auto trips = Split();
  ASSERT_EQ(trips.size(), 1U);
  EXPECT_EQ(trips[0].completed, true);
  EXPECT_EQ(trips[0].shape_share, 1.0);
  EXPECT_LT(trips[0].minute_share.value_or(1), 0.5);
  EXPECT_EQ(trips[0].conforming, false);
}

TEST_F(RunsTest, AnotherTagsDepartureDoesNotSplitARun) {
  // I0 reaches E and the feed keeps it while the bus leaves E westwards; trip V0 is
  // tagged from 1,500 m out and chooses that departure: I0 is not split by it.
  auto t = Stand(Local(6, 0), minutes(3), 0, "I0");
  t = Drive(t, 0, kStreetM, "I0");
  t = Stand(t, minutes(5), kStreetM, "I0");
  t = Drive(t, kStreetM, kStreetM - 1500, "I0");
  Drive(t, kStreetM - 1500, 0, "V0");
  const auto trips = Split();
  ASSERT_EQ(trips.size(), 2U);
  EXPECT_EQ(trips[0].trip_id, "I0");
  EXPECT_EQ(trips[0].direction_id, 0);
  EXPECT_EQ(trips[1].trip_id, "V0");
  EXPECT_EQ(trips[1].direction_id, 1);
  ASSERT_TRUE(trips[1].departure.has_value());
  EXPECT_EQ(trips[1].departure->trip_id, "V0");
  EXPECT_EQ(trips[1].completed, true);
}

TEST_F(RunsTest, ADepartureStartsOneTripOnly) {
  // I0 leaves W and reaches E; silent 16 minutes, it comes back with the same tag: a new
  // tag run, within 30 minutes of the departure its first run took.
  auto t = Stand(Local(6, 0), minutes(3), 0, "I0");
  t = Drive(t, 0, kStreetM, "I0");
  Stand(t + minutes(16), minutes(3), kStreetM, "I0");
  const auto trips = Split();
  ASSERT_EQ(trips.size(), 2U);
  EXPECT_TRUE(trips[0].departure.has_value());
  EXPECT_FALSE(trips[1].departure.has_value());
}

TEST_F(RunsTest, UntaggedPositionsMakeNoTrip) {
  auto t = Stand(Local(6, 0), minutes(3), 0, "");
  Drive(t, 0, kStreetM, "");
  EXPECT_TRUE(Split().empty());
}

TEST_F(RunsTest, ATagSilentForMoreThanFifteenMinutesIsTwoRuns) {
  auto t = Stand(Local(6, 0), minutes(3), 0, "I0");
  Stand(t + minutes(16), minutes(3), 0, "I0");
  EXPECT_EQ(Split().size(), 2U);
}

}  // namespace
}  // namespace frota::regularity
