// A small simulated day end to end: replayed, reconciled without a difference, its
// headways computed, and scored against the simulator's truth: departures from the
// terminal found, and the lines' median headways within 5 % of the true ones.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <nlohmann/json.hpp>
#include <set>
#include <vector>

#include "frota/batch/headways.h"
#include "frota/batch/reconcile.h"
#include "frota/gtfs/static_feed.h"
#include "frota/runner/live_runner.h"
#include "frota/runner/replay_runner.h"
#include "frota/sim/evaluate.h"
#include "frota/sim/sim_test_util.h"
#include "frota/sim/simulator.h"
#include "frota/sink/duckdb_sink.h"

namespace frota::batch {
namespace {

using sim::testing_util::ScratchDir;
using sim::testing_util::SmallDay;

TEST(SimulatedDay, ReconcilesAndHeadwaysMatchTheTruth) {
  ScratchDir dir("batch-day");
  // Departures over five morning hours, so that every line has a run of headways.
  auto options = SmallDay(dir.path() / "day", 80);
  options.departures_between_s = std::pair(6 * 3600, 11 * 3600);
  const auto summary = sim::Simulate(options);
  ASSERT_TRUE(summary.ok()) << summary.error().message();

  runner::ReplayConfig replay;
  replay.inputs = {"archive:" + summary->archive.string()};
  replay.gtfs = summary->gtfs.string();
  replay.area = summary->area.string();
  replay.partitions = 2;
  const auto db_path = dir.path() / "day.duckdb";
  {
    auto context = runner::LoadReplayContext(replay);
    ASSERT_TRUE(context.ok()) << context.error().message();
    model::SourceCatalog catalog;
    auto sink = sink::DuckDbSink::Open(db_path, &catalog, "batch-day-test");
    ASSERT_TRUE(sink.ok()) << sink.error().message();
    const auto report = runner::RunReplay(replay, **context, catalog, **sink);
    ASSERT_TRUE(report.ok()) << report.error().message();
  }

  ReconcileConfig reconcile;
  reconcile.replay = replay;
  reconcile.db = db_path;
  const auto reconciled = Reconcile(reconcile);
  ASSERT_TRUE(reconciled.ok()) << reconciled.error().message();
  EXPECT_TRUE(reconciled->equal) << ReconcileText(*reconciled);
  std::set<std::string> compared;
  for (const auto& table : reconciled->tables) {
    compared.insert(table.table);
    if (table.table == "positions" || table.table == "stops" || table.table == "trips" ||
        table.table == "departures" || table.table == "headways" || table.table == "alerts") {
      EXPECT_GT(table.batch_rows, 0) << table.table;
    }
  }
  // Given the GTFS, the streaming jobs' tables are recomputed and compared too.
  EXPECT_TRUE(compared.contains("departures") && compared.contains("headways") &&
              compared.contains("alerts"))
      << ReconcileText(*reconciled);
  {
    // A copy that lost one alert and one headway: reconcile names both.
    const auto planted = dir.path() / "planted.duckdb";
    std::filesystem::copy_file(db_path, planted);
    {
      auto db = sink::OpenFrotaDuckDb(planted, /*must_exist=*/true);
      ASSERT_TRUE(db.ok()) << db.error().message();
      for (const std::string table : {"alerts", "headways"}) {
        ASSERT_TRUE((*db)
                        ->Execute(fmt::format("DELETE FROM {0} WHERE rowid = "
                                              "(SELECT min(rowid) FROM {0})",
                                              table))
                        .ok());
      }
    }
    ReconcileConfig again = reconcile;
    again.db = planted;
    const auto differs = Reconcile(again);
    ASSERT_TRUE(differs.ok()) << differs.error().message();
    EXPECT_FALSE(differs->equal);
    for (const auto& table : differs->tables) {
      const bool lost = table.table == "alerts" || table.table == "headways";
      EXPECT_EQ(table.missing, lost ? 1 : 0) << table.table;
      EXPECT_EQ(table.extra, 0) << table.table;
    }
  }

  // The replay had a GTFS: the streaming job wrote departures, headways and alerts
  // already, and the evaluation scores them before `frota headways` runs.
  sim::EvaluateOptions evaluate;
  evaluate.db = db_path;
  evaluate.truth = summary->truth;
  {
    const auto before = sim::Evaluate(evaluate);
    ASSERT_TRUE(before.ok()) << before.error().message();
    EXPECT_TRUE(before->departures.computed);
    EXPECT_TRUE(before->headways.computed);
    EXPECT_TRUE(before->alerts.computed);
    // The alerts' target: precision and recall of at least 0.9.
    EXPECT_GT(before->alerts.true_alerts, 10) << sim::EvaluationText(*before);
    EXPECT_GE(before->alerts.precision, 0.9) << sim::EvaluationText(*before);
    EXPECT_GE(before->alerts.recall, 0.9) << sim::EvaluationText(*before);
  }
  {
    auto feed = gtfs::StaticFeed::Load(summary->gtfs);
    ASSERT_TRUE(feed.ok()) << feed.error().message();
    auto db = sink::OpenFrotaDuckDb(db_path, /*must_exist=*/true);
    ASSERT_TRUE(db.ok()) << db.error().message();
    HeadwayOptions headway_options;
    headway_options.min_headways = 1;  // a morning: a few headways per line
    const auto headways = ComputeHeadways(**db, *feed, headway_options);
    ASSERT_TRUE(headways.ok()) << headways.error().message();
    EXPECT_GT(headways->departures, 0);
  }

  const auto evaluation = sim::Evaluate(evaluate);
  ASSERT_TRUE(evaluation.ok()) << evaluation.error().message();
  const auto& d = evaluation->departures;
  EXPECT_GT(d.true_reported_at_terminal, 100);
  EXPECT_GE(static_cast<double>(d.found_reported_at_terminal),
            0.95 * static_cast<double>(d.true_reported_at_terminal));
  // The departures' target, outages and silent lines left out: every fault kind is on.
  EXPECT_GE(d.found_ratio, 0.95) << sim::EvaluationText(*evaluation);
  EXPECT_GT(d.left_out, 0);

  const auto& h = evaluation->headways;
  ASSERT_TRUE(h.computed);
  EXPECT_GE(h.lines.size(), 5U);
  for (const auto& line : h.lines) {
    ASSERT_TRUE(line.found_median_s.has_value()) << line.route_id << " has no headway found";
    ASSERT_TRUE(line.relative_error.has_value()) << line.route_id;
    EXPECT_EQ(line.within, *line.relative_error <= 0.05) << line.route_id;
    EXPECT_GT(line.true_median_s, 0) << line.route_id;
  }
  // A line of a morning has 5-25 headways, so one departure missed (5 % of them are:
  // the feed hides a few trips' ids until 1.5 km out) moves its median a lot: most
  // lines within 5 % (this day: 42 of 56), the typical line's error within 5 %, and all
  // lines' pooled medians within 5 %.
  EXPECT_GE(h.within_share, 0.6) << sim::EvaluationText(*evaluation);
  int within_10 = 0;
  for (const auto& line : h.lines) {
    within_10 += *line.relative_error <= 0.10 ? 1 : 0;
  }
  EXPECT_GE(within_10, 0.9 * static_cast<double>(h.lines.size()))
      << sim::EvaluationText(*evaluation);
  ASSERT_TRUE(h.median_relative_error.has_value());
  EXPECT_LE(*h.median_relative_error, 0.05);
  ASSERT_TRUE(h.found_median_s.has_value());
  EXPECT_GT(h.true_median_s, 0);
  EXPECT_LE(std::abs(*h.found_median_s - h.true_median_s), 0.05 * h.true_median_s);

  const auto json = nlohmann::json::parse(sim::EvaluationJson(*evaluation));
  EXPECT_EQ(json["headways"]["lines"].get<std::int64_t>(),
            static_cast<std::int64_t>(h.lines.size()));
  EXPECT_EQ(json["headways"]["by_line"].size(), h.lines.size());
  for (const char* field : {"route_id", "direction_id", "true_median_s", "found_median_s",
                            "relative_error", "within"}) {
    EXPECT_TRUE(json["headways"]["by_line"][0].contains(field)) << field;
  }
}

// `frota run` given the GTFS runs the regularity jobs too: following the archive in
// epochs (a few thousand records each) and stopping once it has read it all, it writes
// the departures, headways and alerts a replay of the archive writes.
TEST(SimulatedDay, TheLiveRunnerWritesTheReplaysRegularityTables) {
  ScratchDir dir("batch-live-day");
  auto options = SmallDay(dir.path() / "day", 40);
  options.departures_between_s = std::pair(6 * 3600, 9 * 3600);
  const auto summary = sim::Simulate(options);
  ASSERT_TRUE(summary.ok()) << summary.error().message();
  runner::ReplayConfig replay;
  replay.inputs = {"archive:" + summary->archive.string()};
  replay.gtfs = summary->gtfs.string();
  replay.area = summary->area.string();
  auto context = runner::LoadReplayContext(replay);
  ASSERT_TRUE(context.ok()) << context.error().message();
  {
    model::SourceCatalog catalog;
    auto sink = sink::DuckDbSink::Open(dir.path() / "replay.duckdb", &catalog, "replay");
    ASSERT_TRUE(sink.ok()) << sink.error().message();
    const auto report = runner::RunReplay(replay, **context, catalog, **sink);
    ASSERT_TRUE(report.ok()) << report.error().message();
  }
  // Twice: the first run reads the whole archive, its watermark the last event time less
  // the lag, so the last 40 minutes' departures stay undecided in the state it commits;
  // the second resumes from that state with nothing new to read, the ingest clock a day
  // on (the watermark follows it: every feed is idle), and decides them.
  std::vector<std::int64_t> live_departures;
  for (const bool day_over : {false, true}) {
    model::SourceCatalog catalog;
    auto sink = sink::DuckDbSink::Open(dir.path() / "live.duckdb", &catalog, "live");
    ASSERT_TRUE(sink.ok()) << sink.error().message();
    runner::LiveConfig live;
    live.archive = summary->archive;
    live.scan_interval = std::chrono::milliseconds(1);
    live.epoch_interval = std::chrono::milliseconds(0);
    live.epoch_records = 5000;
    live.stopping = [] { return true; };
    if (day_over) {
      live.ingest_floor = [] {
        return std::optional<base::Timestamp>(base::FromUnixSeconds(4'000'000'000));
      };
    }
    const auto report = runner::RunLive(live, **context, catalog, **sink);
    ASSERT_TRUE(report.ok()) << report.error().message();
    EXPECT_EQ(report->resumed, day_over);
    EXPECT_GE(report->epochs, day_over ? 1 : 2);
    auto departures = (*sink)->connection().Query("SELECT count(*) FROM departures");
    ASSERT_TRUE(departures.ok()) << departures.error().message();
    live_departures.push_back(departures->Int64(0, 0));
  }
  ASSERT_EQ(live_departures.size(), 2U);
  EXPECT_GT(live_departures[0], 0);
  EXPECT_GT(live_departures[1], live_departures[0]);  // decided after the resume
  auto db = sink::OpenFrotaDuckDb(dir.path() / "live.duckdb", /*must_exist=*/true);
  ASSERT_TRUE(db.ok()) << db.error().message();
  ASSERT_TRUE((*db)
                  ->Execute(fmt::format("ATTACH '{}' AS replay (READ_ONLY)",
                                        (dir.path() / "replay.duckdb").string()))
                  .ok());
  for (const std::string table : {"departures", "headways", "alerts"}) {
    auto counts = (*db)->Query(fmt::format(
        "SELECT (SELECT count(*) FROM replay.{0}), (SELECT count(*) FROM main.{0}), "
        "(SELECT count(*) FROM (SELECT * FROM replay.{0} EXCEPT ALL SELECT * FROM main.{0})), "
        "(SELECT count(*) FROM (SELECT * FROM main.{0} EXCEPT ALL SELECT * FROM replay.{0}))",
        table));
    ASSERT_TRUE(counts.ok()) << counts.error().message();
    EXPECT_GT(counts->Int64(0, 0), 0) << table;
    EXPECT_EQ(counts->Int64(0, 1), counts->Int64(0, 0)) << table;
    EXPECT_EQ(counts->Int64(0, 2), 0) << table << ": replay rows the live run lacks";
    EXPECT_EQ(counts->Int64(0, 3), 0) << table << ": live rows the replay lacks";
  }
}

}  // namespace
}  // namespace frota::batch
