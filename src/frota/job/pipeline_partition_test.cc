// Kafka routing (one state partition per source partition, each with its own watermark):
// the rows are a function of each partition's records alone, however a consumer
// interleaves partitions, however partitions move between consumers, and whatever
// crashes happen between commits.
#include <gtest/gtest.h>

#include <map>
#include <random>
#include <set>

#include "frota/base/hash.h"
#include "frota/geo/area.h"
#include "frota/job/pipeline.h"
#include "frota/job/testing/random_feed.h"
#include "frota/job/testing/reference_jobs.h"

namespace frota::job {
namespace {

using base::PartitionId;
using testing::FromRows;
using testing::GenerateRandomFeed;
using testing::OfferedRecord;
using testing::RandomFeedOptions;
using testing::ReferenceTables;

JobConfig MakeConfig(const geo::Area* area) {
  JobConfig config;
  config.area = area;
  config.time_zone =
      std::make_shared<const base::TimeZone>(*base::TimeZone::Load("America/Sao_Paulo"));
  return config;
}

// The records of each "Kafka partition": keyed by feed/vehicle, in arrival order.
using Partitioned = std::vector<std::vector<model::Position>>;

Partitioned PartitionByKey(const std::vector<OfferedRecord>& records, int partitions) {
  Partitioned out(static_cast<std::size_t>(partitions));
  for (const auto& record : records) {
    const auto& p = record.position;
    const auto hash = base::StableHashParts({p.feed_id, "/", p.vehicle_id});
    out[hash % out.size()].push_back(p);
  }
  return out;
}

struct RowCounts {
  std::size_t positions = 0;
  std::size_t rejected = 0;
  std::size_t stops = 0;
  std::size_t trips = 0;
  bool operator==(const RowCounts&) const = default;
};

RowCounts Count(const std::vector<model::EpochRows>& rows) {
  RowCounts c;
  for (const auto& r : rows) {
    c.positions += r.positions.size();
    c.rejected += r.rejected.size();
    c.stops += r.of<model::StopRow>().size();
    c.trips += r.of<model::TripRow>().size();
  }
  return c;
}

// A small model of N consumers over a sink with exactly-once commits: each partition's
// committed state and next record index, plus the rows committed so far. A consumer
// commits (snapshot of its partitions + its rows) at random moments; a partition moves
// to another consumer after its owner committed; a consumer crashes, losing everything
// since its last commit, and restarts from the committed state of its partitions.
class ConsumerGroupModel {
 public:
  ConsumerGroupModel(const JobConfig& config, model::SourceCatalog& catalog,
                     const Partitioned& input, int consumers, std::uint64_t seed)
      : config_(config), catalog_(catalog), input_(input), rng_(seed) {
    for (int c = 0; c < consumers; ++c) {
      consumers_.push_back(NewPipeline());
    }
    committed_.resize(input.size());
    next_.assign(input.size(), 0);
    for (std::size_t p = 0; p < input.size(); ++p) {
      owner_.push_back(static_cast<int>(p % static_cast<std::size_t>(consumers)));
      consumers_[owner_[p]]->AddPartition(PartitionId(static_cast<std::int32_t>(p)));
    }
  }

  std::vector<model::EpochRows> Run(bool moves, bool crashes) {
    while (true) {
      std::vector<std::size_t> open;
      for (std::size_t p = 0; p < input_.size(); ++p) {
        if (!finished_sent_.contains(p)) {
          open.push_back(p);
        }
      }
      if (open.empty()) {
        break;
      }
      // Offer a random run of one partition's records (a fetch), or its end marker.
      const std::size_t p = open[rng_() % open.size()];
      auto& pipeline = *consumers_[owner_[p]];
      const std::size_t run = 1 + rng_() % 40;
      for (std::size_t i = 0; i < run && next_[p] < input_[p].size(); ++i) {
        model::Position position = input_[p][next_[p]++];
        pipeline.Offer(PartitionId(static_cast<std::int32_t>(p)), std::move(position));
      }
      if (next_[p] == input_[p].size()) {
        pipeline.FinishPartition(PartitionId(static_cast<std::int32_t>(p)));
        finished_sent_.insert(p);
      }
      if (rng_() % 4 == 0) {
        pipeline.Advance();
      }
      const auto roll = rng_() % 100;
      if (roll < 15) {
        Commit(owner_[p]);
      } else if (moves && roll < 20) {
        Move(p);
      } else if (crashes && roll < 23) {
        Crash(owner_[p]);
      }
    }
    for (std::size_t c = 0; c < consumers_.size(); ++c) {
      Commit(static_cast<int>(c));
    }
    return std::move(output_);
  }

 private:
  std::unique_ptr<Pipeline> NewPipeline() {
    return std::make_unique<Pipeline>(config_, Routing::kBySourcePartition, 0, &catalog_, 1);
  }

  void Commit(int consumer) {
    auto& pipeline = *consumers_[static_cast<std::size_t>(consumer)];
    pipeline.Advance();
    output_.push_back(pipeline.TakeRows());
    for (const auto id : pipeline.Partitions()) {
      const auto p = static_cast<std::size_t>(id.value());
      committed_[p] = {pipeline.SnapshotPartition(id), next_[p], finished_sent_.contains(p)};
    }
  }

  // Cooperative revocation: the owner commits, drops the partition; the new owner
  // restores it from the committed state.
  void Move(std::size_t p) {
    const int from = owner_[p];
    const int to = static_cast<int>(rng_() % consumers_.size());
    if (to == from) {
      return;
    }
    Commit(from);
    const PartitionId id(static_cast<std::int32_t>(p));
    consumers_[static_cast<std::size_t>(from)]->DropPartition(id);
    Restore(to, p);
  }

  void Restore(int consumer, std::size_t p) {
    const PartitionId id(static_cast<std::int32_t>(p));
    auto& pipeline = *consumers_[static_cast<std::size_t>(consumer)];
    owner_[p] = consumer;
    const auto& [bytes, next, finished] = committed_[p];
    if (bytes.empty()) {
      pipeline.AddPartition(id);
    } else {
      const auto status = pipeline.RestorePartition(id, bytes);
      ASSERT_TRUE(status.ok()) << status.error().message();
    }
    next_[p] = next;
    if (finished) {
      finished_sent_.insert(p);
    } else {
      finished_sent_.erase(p);
    }
  }

  void Crash(int consumer) {
    std::vector<std::size_t> owned;
    for (const auto id : consumers_[static_cast<std::size_t>(consumer)]->Partitions()) {
      owned.push_back(static_cast<std::size_t>(id.value()));
    }
    consumers_[static_cast<std::size_t>(consumer)] = NewPipeline();
    for (const auto p : owned) {
      Restore(consumer, p);
    }
  }

  struct Committed {
    std::string bytes;
    std::size_t next = 0;
    bool finished = false;
  };
  const JobConfig& config_;
  model::SourceCatalog& catalog_;
  const Partitioned& input_;
  std::mt19937_64 rng_;
  std::vector<std::unique_ptr<Pipeline>> consumers_;
  std::vector<int> owner_;
  std::vector<Committed> committed_;
  std::vector<std::size_t> next_;
  std::set<std::size_t> finished_sent_;
  std::vector<model::EpochRows> output_;
};

class PartitionRouting : public ::testing::TestWithParam<std::uint64_t> {};

TEST_P(PartitionRouting, RowsDependOnlyOnEachPartitionsRecordsWhateverMovesAndCrashes) {
  const std::uint64_t seed = GetParam();
  const auto area = geo::Area::ParseGeoJson(testing::RandomFeedAreaGeoJson(), "random-feed-area");
  ASSERT_TRUE(area.ok());
  const JobConfig config = MakeConfig(&*area);
  model::SourceCatalog catalog;
  RandomFeedOptions options;
  options.seed = seed;
  options.vehicles = 8 + static_cast<int>(seed % 8);
  const auto records = GenerateRandomFeed(options, catalog);
  const auto input = PartitionByKey(records, 4);

  // Baseline: one consumer, partitions read one after the other, never interleaved.
  std::vector<model::EpochRows> baseline_rows;
  {
    Pipeline pipeline(config, Routing::kBySourcePartition, 0, &catalog, 1);
    for (std::size_t p = 0; p < input.size(); ++p) {
      for (auto position : input[p]) {
        pipeline.Offer(PartitionId(static_cast<std::int32_t>(p)), std::move(position));
      }
      pipeline.FinishPartition(PartitionId(static_cast<std::int32_t>(p)));
      pipeline.Advance();
    }
    EXPECT_TRUE(pipeline.finished());
    baseline_rows.push_back(pipeline.TakeRows());
  }
  const ReferenceTables baseline = FromRows(baseline_rows, config, catalog);
  ASSERT_GT(baseline.positions.size(), 100U);
  ASSERT_GT(baseline.stops.size(), 0U);

  for (const int consumers : {1, 2, 3}) {
    for (const bool moves : {false, true}) {
      for (const bool crashes : {false, true}) {
        SCOPED_TRACE(::testing::Message()
                     << "consumers=" << consumers << " moves=" << moves << " crashes=" << crashes);
        ConsumerGroupModel group(config, catalog, input, consumers, seed * 7 + consumers);
        const auto rows = group.Run(moves, crashes);
        EXPECT_TRUE(Count(baseline_rows) == Count(rows));
        EXPECT_TRUE(baseline == FromRows(rows, config, catalog));
      }
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Seeds, PartitionRouting, ::testing::Range<std::uint64_t>(1, 11));

TEST(PartitionRouting, ARestoredPartitionKeepsItsWatermarkAndADroppedOneIsGone) {
  JobConfig config;
  model::SourceCatalog catalog;
  const auto source = catalog.Intern("p0.csv");
  Pipeline a(config, Routing::kBySourcePartition, 0, &catalog, 1);
  model::Position p;
  p.feed_id = "f";
  p.vehicle_id = "v";
  p.lat = -22.9;
  p.lon = -43.2;
  p.event_time = base::FromUnixSeconds(1'656'570'000);
  p.ingest_time = p.event_time + std::chrono::seconds(5);
  p.source = {source, 0};
  a.Offer(PartitionId(3), model::Position(p));
  a.Advance();
  const auto w = a.PartitionWatermark(PartitionId(3));
  EXPECT_EQ(w, p.event_time - config.max_lateness());
  EXPECT_EQ(a.PartitionWatermark(PartitionId(4)), engine::kWatermarkMin);
  const std::string bytes = a.SnapshotPartition(PartitionId(3));

  Pipeline b(config, Routing::kBySourcePartition, 0, &catalog, 1);
  ASSERT_TRUE(b.RestorePartition(PartitionId(3), bytes).ok());
  EXPECT_EQ(b.PartitionWatermark(PartitionId(3)), w);
  EXPECT_EQ(b.pending_records(), 1U);
  // A record at or before the restored watermark is late in the new owner too.
  model::Position late = p;
  late.event_time = w;
  late.ingest_time = w + std::chrono::seconds(5);
  late.source.offset = 1;
  b.Offer(PartitionId(3), std::move(late));
  b.Advance();
  const auto rows = b.TakeRows();
  ASSERT_EQ(rows.rejected.size(), 1U);
  EXPECT_EQ(rows.rejected[0].reason, model::RejectReason::kLate);

  // State of another kind, or corrupt, is refused and leaves the partition as it was.
  EXPECT_FALSE(b.RestorePartition(PartitionId(3), "not a checkpoint").ok());
  EXPECT_EQ(b.PartitionWatermark(PartitionId(3)), w);
  b.DropPartition(PartitionId(3));
  EXPECT_FALSE(b.HasPartition(PartitionId(3)));
  EXPECT_EQ(b.pending_records(), 0U);
  EXPECT_EQ(b.watermark(), engine::kWatermarkMin);

  // End of input of one partition releases it, and only it.
  Pipeline c(config, Routing::kBySourcePartition, 0, &catalog, 1);
  c.Offer(PartitionId(0), model::Position(p));
  model::Position other = p;
  other.vehicle_id = "w";
  c.Offer(PartitionId(1), std::move(other));
  c.FinishPartition(PartitionId(0));
  c.Advance();
  EXPECT_EQ(c.TakeRows().positions.size(), 1U);
  EXPECT_FALSE(c.finished());
  c.FinishPartition(PartitionId(1));
  c.Advance();
  EXPECT_EQ(c.TakeRows().positions.size(), 1U);
  EXPECT_TRUE(c.finished());
}

}  // namespace
}  // namespace frota::job
