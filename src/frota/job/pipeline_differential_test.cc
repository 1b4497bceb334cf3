// The stream pipeline against the naive reference, over random feeds, partition counts,
// advance patterns and crash-and-restore points: the rows must be equal.
#include <gtest/gtest.h>

#include <random>

#include "frota/geo/area.h"
#include "frota/job/pipeline.h"
#include "frota/job/testing/random_feed.h"
#include "frota/job/testing/reference_jobs.h"

namespace frota::job {
namespace {

using testing::FromRows;
using testing::GenerateRandomFeed;
using testing::OfferedRecord;
using testing::RandomFeedOptions;
using testing::ReferenceTables;
using testing::RunReference;

JobConfig MakeConfig(const geo::Area* area) {
  JobConfig config;
  config.area = area;
  config.time_zone =
      std::make_shared<const base::TimeZone>(*base::TimeZone::Load("America/Sao_Paulo"));
  return config;
}

// Runs the pipeline over `records` with `partitions` state partitions. Every so often it
// advances; at `crash_every` records (0: never) it snapshots, throws the pipeline away and
// continues on a new one restored from the snapshot, as a restart after a crash would.
std::vector<model::EpochRows> RunStream(const std::vector<OfferedRecord>& records,
                                        const JobConfig& config, model::SourceCatalog& catalog,
                                        int partitions, std::uint64_t seed, int crash_every) {
  std::mt19937_64 rng(seed);
  auto pipeline = std::make_unique<Pipeline>(config, Routing::kByKeyHash, partitions, &catalog,
                                             static_cast<std::size_t>(1 + seed % 2));
  std::vector<model::EpochRows> rows;
  int since_crash = 0;
  for (const auto& record : records) {
    model::Position p = record.position;
    pipeline->Offer(record.partition, std::move(p));
    if (rng() % 50 == 0) {
      pipeline->Advance();
    }
    if (crash_every > 0 && ++since_crash >= crash_every) {
      since_crash = 0;
      pipeline->Advance();
      rows.push_back(pipeline->TakeRows());
      engine::RecoveredCheckpoint checkpoint;
      checkpoint.states = pipeline->SnapshotPartitions();
      checkpoint.runner_state = pipeline->SnapshotRunner();
      pipeline = std::make_unique<Pipeline>(config, Routing::kByKeyHash, partitions, &catalog, 1);
      const auto status = pipeline->Restore(checkpoint);
      EXPECT_TRUE(status.ok()) << status.error().message();
    }
  }
  pipeline->Finish();
  rows.push_back(pipeline->TakeRows());
  return rows;
}

void ExpectEqualTables(const ReferenceTables& expected, const ReferenceTables& actual) {
  EXPECT_EQ(expected.positions.size(), actual.positions.size());
  EXPECT_TRUE(expected.positions == actual.positions);
  EXPECT_EQ(expected.rejected.size(), actual.rejected.size());
  EXPECT_TRUE(expected.rejected == actual.rejected);
  EXPECT_TRUE(expected.speed_cells == actual.speed_cells);
  EXPECT_TRUE(expected.speed_lines == actual.speed_lines);
  EXPECT_TRUE(expected.fleet_hours == actual.fleet_hours);
  EXPECT_EQ(expected.stops.size(), actual.stops.size());
  EXPECT_TRUE(expected.stops == actual.stops);
  EXPECT_EQ(expected.trips.size(), actual.trips.size());
  EXPECT_TRUE(expected.trips == actual.trips);
  EXPECT_TRUE(expected.quality == actual.quality);
}

class PipelineDifferential : public ::testing::TestWithParam<std::uint64_t> {};

TEST_P(PipelineDifferential, StreamEqualsTheNaiveReferenceForAnyPartitioningAndCrashes) {
  const std::uint64_t seed = GetParam();
  const auto area = geo::Area::ParseGeoJson(testing::RandomFeedAreaGeoJson(), "random-feed-area");
  ASSERT_TRUE(area.ok());
  const JobConfig config = MakeConfig(&*area);
  model::SourceCatalog catalog;
  RandomFeedOptions options;
  options.seed = seed;
  options.vehicles = 6 + static_cast<int>(seed % 10);
  const auto records = GenerateRandomFeed(options, catalog);
  const auto expected = RunReference(records, {}, config, catalog);

  // The generator produces every kind of outcome the rules have.
  std::map<model::RejectReason, int> reasons;
  for (const auto& [ref, reason] : expected.rejected) {
    ++reasons[reason];
  }
  for (const auto& [key, refused] : expected.duplicate_counts) {  // counted, not rows
    reasons[model::RejectReason::kDuplicate] += static_cast<int>(refused);
  }
  EXPECT_GT(reasons[model::RejectReason::kDuplicate], 0);
  EXPECT_GT(reasons[model::RejectReason::kJump], 0);
  EXPECT_GT(reasons[model::RejectReason::kFuture] + reasons[model::RejectReason::kStale], 0);
  EXPECT_GT(reasons[model::RejectReason::kOutOfArea], 0);
  EXPECT_GT(expected.stops.size(), 0U);
  EXPECT_GT(expected.trips.size(), 0U);

  for (const int partitions : {1, 3, 8}) {
    for (const int crash_every : {0, 97, 1000}) {
      SCOPED_TRACE(::testing::Message()
                   << "partitions=" << partitions << " crash_every=" << crash_every);
      const auto rows =
          RunStream(records, config, catalog, partitions, seed + partitions, crash_every);
      ExpectEqualTables(expected, FromRows(rows, config, catalog));
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Seeds, PipelineDifferential, ::testing::Range<std::uint64_t>(1, 21));

// When a runner advances (the rows do not depend on it: the test above advances at
// random): after `min_records`, and once there are vehicles, after
// kOfferedPerVehicleToAdvance records per vehicle.
TEST(PipelineAdvanceDue, WaitsForTheMinimumThenForAShareOfEveryVehicle) {
  model::SourceCatalog catalog;
  Pipeline pipeline(MakeConfig(nullptr), Routing::kByKeyHash, 2, &catalog);
  const base::Timestamp start = base::Timestamp{} + std::chrono::hours(24 * 365 * 54);
  int offered = 0;
  const auto offer = [&](int vehicle) {
    model::Position p;
    p.feed_id = "feed";
    p.vehicle_id = "v" + std::to_string(vehicle);
    p.lat = -22.9;
    p.lon = -43.2;
    p.event_time = start + std::chrono::seconds(offered);
    p.ingest_time = p.event_time + std::chrono::seconds(5);
    p.source = {catalog.Intern("test"), offered++};
    pipeline.Offer(base::PartitionId(0), std::move(p));
  };
  constexpr int kVehicles = 5;
  for (int v = 0; v < kVehicles - 1; ++v) {
    offer(v);
  }
  EXPECT_FALSE(pipeline.AdvanceDue(kVehicles));
  offer(kVehicles - 1);
  EXPECT_TRUE(pipeline.AdvanceDue(kVehicles));  // no vehicle held yet: the minimum alone
  EXPECT_FALSE(pipeline.AdvanceDue(kVehicles + 1));
  pipeline.Advance();
  ASSERT_EQ(pipeline.vehicle_count(), static_cast<std::size_t>(kVehicles));
  EXPECT_FALSE(pipeline.AdvanceDue(0));  // nothing offered since
  const auto share = static_cast<int>(Pipeline::kOfferedPerVehicleToAdvance) * kVehicles;
  for (int i = 0; i < share - 1; ++i) {
    offer(i % kVehicles);
  }
  EXPECT_FALSE(pipeline.AdvanceDue(1));
  offer(0);
  EXPECT_TRUE(pipeline.AdvanceDue(1));
  EXPECT_FALSE(
      pipeline.AdvanceDue(static_cast<std::size_t>(share) + 1));  // the minimum still holds
  pipeline.Advance();
  EXPECT_FALSE(pipeline.AdvanceDue(0));
}

}  // namespace
}  // namespace frota::job
