// The simulated archive through `frota replay`'s runner: every rejection reason of
// semantics §2, each counted as the truth expects, and the evaluation on top.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "frota/model/rejection.h"
#include "frota/runner/replay_runner.h"
#include "frota/sim/evaluate.h"
#include "frota/sim/sim_test_util.h"
#include "frota/sim/simulator.h"
#include "frota/sim/truth.h"
#include "frota/sink/duckdb_sink.h"

namespace frota::sim {
namespace {

using testing_util::ScratchDir;
using testing_util::SmallDay;

constexpr const char* kSection2Reasons[] = {"missing_vehicle_id",
                                            "missing_coordinates",
                                            "latitude_out_of_range",
                                            "longitude_out_of_range",
                                            "null_island",
                                            "missing_timestamp",
                                            "timestamp_in_milliseconds",
                                            "future",
                                            "stale",
                                            "out_of_area",
                                            "duplicate",
                                            "jump",
                                            "late"};

TEST(SimulatorReplay, EveryReasonOfSemanticsSection2IsReportedAsTheTruthExpects) {
  ScratchDir dir("replay");
  auto options = SmallDay(dir.path() / "day", 60);
  options.departures_between_s = std::pair(6 * 3600, 9 * 3600);
  FaultConfig& f = options.faults;
  for (double* rate : {&f.future_clock, &f.gps_jump, &f.outside_city, &f.missing_vehicle_id,
                       &f.missing_coordinates, &f.latitude_out_of_range, &f.longitude_out_of_range,
                       &f.null_island, &f.timestamp_in_milliseconds}) {
    *rate = 0.002;
  }
  f.headerless_response = 0.05;
  f.late_responses = 2;
  const auto summary = Simulate(options);
  ASSERT_TRUE(summary.ok()) << summary.error().message();
  const auto truth = ReadTruth(summary->truth);
  ASSERT_TRUE(truth.ok()) << truth.error().message();

  runner::ReplayConfig config;
  config.inputs = {"archive:" + summary->archive.string()};
  config.gtfs = summary->gtfs.string();
  config.area = summary->area.string();
  auto context = runner::LoadReplayContext(config);
  ASSERT_TRUE(context.ok()) << context.error().message();
  model::SourceCatalog catalog;
  const auto db_path = dir.path() / "day.duckdb";
  {
    auto sink = sink::DuckDbSink::Open(db_path, &catalog, "sim-test");
    ASSERT_TRUE(sink.ok()) << sink.error().message();
    const auto report = runner::RunReplay(config, **context, catalog, **sink);
    ASSERT_TRUE(report.ok()) << report.error().message();
    EXPECT_EQ(report->records, summary->records);
    EXPECT_EQ(report->accepted, truth->expected_accepted);
    for (const std::string reason : kSection2Reasons) {
      const auto expected = truth->expected_rejected.at(reason);
      EXPECT_GT(expected, 0) << reason << " never happens in the simulated day";
      const auto it = report->rejected.find(reason);
      EXPECT_EQ(it == report->rejected.end() ? 0 : it->second, expected) << reason;
    }
    for (const auto& [reason, n] : report->rejected) {
      EXPECT_EQ(n, truth->expected_rejected.count(reason) ? truth->expected_rejected.at(reason) : 0)
          << reason;
    }
  }

  EvaluateOptions evaluate;
  evaluate.db = db_path;
  evaluate.truth = summary->truth;
  const auto evaluation = Evaluate(evaluate);
  ASSERT_TRUE(evaluation.ok()) << evaluation.error().message();
  EXPECT_GT(evaluation->stops.true_stops, 20);
  EXPECT_GE(evaluation->stops.recall, 0.9);
  EXPECT_GE(evaluation->stops.precision, 0.9);
  // A replay given the GTFS runs the streaming departures and headways (the batch
  // module's regularity_stream_test holds them equal to `frota headways`).
  EXPECT_TRUE(evaluation->departures.computed);
  EXPECT_GE(evaluation->departures.found_ratio, 0.9);
  EXPECT_TRUE(evaluation->headways.computed);
  EXPECT_GT(evaluation->speed.cells, 20);
  EXPECT_LT(evaluation->speed.mae_kmh, 2.0);
  // Record by record, the stream refuses what the truth says it must.
  for (const auto& [fault, score] : evaluation->faults) {
    if (score.expected >= 0) {
      EXPECT_EQ(score.detected, score.expected) << fault;
      EXPECT_EQ(score.as_expected, score.expected) << fault;
    }
  }
  for (const auto& [reason, counts] : evaluation->rejections) {
    EXPECT_EQ(counts.first, counts.second) << reason;
  }
  EXPECT_EQ(evaluation->accepted.first, evaluation->accepted.second);
  const auto json = nlohmann::json::parse(EvaluationJson(*evaluation));
  for (const char* field : {"precision", "recall", "true", "found"}) {
    EXPECT_TRUE(json["stops"].contains(field)) << field;
  }
  for (const char* field : {"computed", "true", "found", "found_ratio"}) {
    EXPECT_TRUE(json["departures"].contains(field)) << field;
  }
  EXPECT_TRUE(json["speed"].contains("cells"));
  EXPECT_TRUE(json["speed"].contains("mae_kmh"));
  EXPECT_TRUE(json["faults"]["gps_jump"].contains("injected"));
  EXPECT_TRUE(json["faults"]["gps_jump"].contains("detected"));
}

}  // namespace
}  // namespace frota::sim
