#include "frota/sim/simulator.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <nlohmann/json.hpp>

#include "frota/base/file.h"
#include "frota/codec/decode.h"
#include "frota/codec/format.h"
#include "frota/codec/gtfs_realtime.pb.h"
#include "frota/sim/city.h"
#include "frota/sim/sim_test_util.h"
#include "frota/sim/truth.h"
#include "frota/source/bronze_archive.h"

namespace frota::sim {
namespace {

namespace fs = std::filesystem;
using testing_util::ScratchDir;
using testing_util::SmallDay;

std::map<std::string, std::string> ReadTree(const fs::path& root) {
  std::map<std::string, std::string> files;
  for (const auto& entry : fs::recursive_directory_iterator(root)) {
    if (entry.is_regular_file()) {
      auto bytes = base::ReadFile(entry.path());
      files[entry.path().lexically_relative(root).string()] = bytes.ok() ? *bytes : "<unreadable>";
    }
  }
  return files;
}

TEST(Simulator, TheSameSeedWritesTheSameBytes) {
  ScratchDir dir("same-seed");
  const auto first = Simulate(SmallDay(dir.path() / "a"));
  ASSERT_TRUE(first.ok()) << first.error().message();
  const auto second = Simulate(SmallDay(dir.path() / "b"));
  ASSERT_TRUE(second.ok()) << second.error().message();
  const auto a = ReadTree(dir.path() / "a");
  const auto b = ReadTree(dir.path() / "b");
  EXPECT_GT(a.size(), 200U);
  ASSERT_EQ(a.size(), b.size());
  for (const auto& [name, bytes] : a) {
    const auto it = b.find(name);
    ASSERT_NE(it, b.end()) << name;
    EXPECT_TRUE(it->second == bytes) << name << " differs";
  }
  auto other = SmallDay(dir.path() / "c");
  other.seed = 8;
  ASSERT_TRUE(Simulate(other).ok());
  EXPECT_NE(ReadTree(dir.path() / "c").at("truth.json"), a.at("truth.json"));
}

TEST(Simulator, RefusesAnOutputThatAlreadyHoldsTheArchive) {
  ScratchDir dir("refuse");
  ASSERT_TRUE(Simulate(SmallDay(dir.path(), 20)).ok());
  const auto again = Simulate(SmallDay(dir.path(), 20));
  ASSERT_FALSE(again.ok());
  EXPECT_NE(again.error().message().find("already holds an archive"), std::string::npos);
}

TEST(Simulator, EachFaultAppearsAtItsConfiguredRate) {
  ScratchDir dir("rates");
  auto options = SmallDay(dir.path(), 300);
  options.departures_between_s = std::pair(6 * 3600, 12 * 3600);
  FaultConfig& f = options.faults;
  for (double* rate : {&f.future_clock, &f.gps_jump, &f.outside_city, &f.missing_vehicle_id,
                       &f.missing_coordinates, &f.latitude_out_of_range, &f.longitude_out_of_range,
                       &f.null_island, &f.timestamp_in_milliseconds}) {
    *rate = 0.02;
  }
  f.headerless_response = 0.1;
  f.missing_timestamp = 0.2;
  f.never_run = 0.5;
  f.duplicate_slot = 0.5;
  f.tagged_late = 0.5;
  f.never_tagged = 0.2;
  f.reassigned_while_parked = 0.5;
  f.late_responses = 3;
  const auto summary = Simulate(options);
  ASSERT_TRUE(summary.ok()) << summary.error().message();
  const auto truth = ReadTruth(summary->truth);
  ASSERT_TRUE(truth.ok()) << truth.error().message();
  std::int64_t checked = 0;
  for (const auto& fault : truth->faults) {
    if (fault.fault == "late_response") {
      EXPECT_EQ(fault.injected, 3);
      continue;
    }
    if (fault.configured_rate <= 0) {
      continue;
    }
    ASSERT_GT(fault.opportunities, 0) << fault.fault;
    const double rate =
        static_cast<double>(fault.injected) / static_cast<double>(fault.opportunities);
    EXPECT_NEAR(rate, fault.configured_rate, 0.1 * fault.configured_rate)
        << fault.fault << ": " << fault.injected << " of " << fault.opportunities << " "
        << fault.unit;
    ++checked;
  }
  EXPECT_EQ(checked, 17);
  // The truth counts the records the run wrote (the delay's shape is checked by
  // ReportDelayHasARioLikeMedianAndTail).
  EXPECT_EQ(truth->records, summary->records);
}

TEST(Simulator, ReportDelayHasARioLikeMedianAndTail) {
  ScratchDir dir("delay");
  const auto summary = Simulate(SmallDay(dir.path(), 60));
  ASSERT_TRUE(summary.ok()) << summary.error().message();
  const auto truth = ReadTruth(summary->truth);
  ASSERT_TRUE(truth.ok());
  const auto text = base::ReadFile(summary->truth);
  const auto j = nlohmann::json::parse(*text);
  EXPECT_NEAR(j["latency"]["p50_s"].get<double>(), 33, 3);
  EXPECT_GT(j["latency"]["over_300s_share"].get<double>(), 0.005);
  EXPECT_LT(j["latency"]["over_300s_share"].get<double>(), 0.04);
}

TEST(Simulator, ResponsesDecodeWithTheProjectsReaders) {
  ScratchDir dir("decode");
  auto options = SmallDay(dir.path(), 40);
  options.sppo = true;
  for (double* rate :
       {&options.faults.missing_vehicle_id, &options.faults.missing_coordinates,
        &options.faults.latitude_out_of_range, &options.faults.longitude_out_of_range,
        &options.faults.null_island, &options.faults.timestamp_in_milliseconds}) {
    *rate = 0.005;
  }
  options.faults.headerless_response = 0.05;
  options.faults.missing_timestamp = 0.2;
  const auto summary = Simulate(options);
  ASSERT_TRUE(summary.ok()) << summary.error().message();
  const auto truth = ReadTruth(summary->truth);
  ASSERT_TRUE(truth.ok());

  const auto archive = source::ListArchive(dir.path());
  ASSERT_TRUE(archive.ok()) << archive.error().message();
  ASSERT_EQ(archive->size(), 1U);
  const auto& feed = archive->front();
  EXPECT_EQ(feed.info.feed_id, "frota-sim");
  EXPECT_EQ(feed.info.format, codec::Format::kGtfsRt);
  EXPECT_EQ(feed.info.time_zone, "America/Sao_Paulo");
  EXPECT_EQ(static_cast<std::int64_t>(feed.files.size()), summary->responses);
  std::map<std::string, std::int64_t> rule_one;
  std::int64_t records = 0;
  std::int64_t headerless = 0;
  base::Timestamp previous_ingest = base::Timestamp::min();
  std::int64_t backwards = 0;
  for (const auto& file : feed.files) {
    const auto bytes = base::ReadFile(file.body);
    ASSERT_TRUE(bytes.ok());
    const auto format = codec::DetectFormat(std::string_view(*bytes).substr(0, 65536));
    ASSERT_TRUE(format.ok()) << file.body;
    EXPECT_EQ(*format, codec::Format::kGtfsRt);
    codec::gtfs_realtime::FeedMessage message;
    ASSERT_TRUE(message.ParseFromString(*bytes)) << file.body;  // every required field set
    EXPECT_EQ(message.header().gtfs_realtime_version(), "2.0");
    headerless += message.header().has_timestamp() ? 0 : 1;
    codec::DecodeOptions decode;
    decode.feed_id = "frota-sim";
    decode.ingest_time = file.ingest_time;
    codec::DecodedBatch batch;
    const auto info = codec::DecodeResponse(codec::Format::kGtfsRt, *bytes, decode, batch);
    ASSERT_TRUE(info.ok()) << file.body << ": " << info.error().message();
    EXPECT_EQ(info->records, message.entity_size());
    EXPECT_EQ(info->skipped_entities, 0);
    records += info->records;
    for (const auto& rejection : batch.rejections) {
      ++rule_one[std::string(model::RejectReasonName(rejection.reason))];
    }
    for (const auto& position : batch.positions) {
      EXPECT_FALSE(position.vehicle_id.empty());
      EXPECT_FALSE(position.route_id.empty());
      EXPECT_FALSE(position.event_time_from_header);
    }
    backwards += file.ingest_time < previous_ingest ? 1 : 0;
    previous_ingest = std::max(previous_ingest, file.ingest_time);
  }
  EXPECT_EQ(records, summary->records);
  EXPECT_GT(headerless, 0);
  EXPECT_EQ(backwards, options.faults.late_responses);  // late responses go back in time
  for (const std::string reason : {"missing_vehicle_id", "missing_coordinates",
                                   "latitude_out_of_range", "longitude_out_of_range", "null_island",
                                   "missing_timestamp", "timestamp_in_milliseconds"}) {
    EXPECT_GT(rule_one[reason], 0) << reason;
    EXPECT_EQ(rule_one[reason], truth->expected_rejected.at(reason)) << reason;
  }

  // The Rio SPPO rendering: what the city's API returns, record for record.
  const auto sppo = source::ListArchive(dir.path() / "sppo");
  ASSERT_TRUE(sppo.ok()) << sppo.error().message();
  ASSERT_EQ(sppo->size(), 1U);
  EXPECT_EQ(sppo->front().info.format, codec::Format::kRioSppo);
  ASSERT_EQ(sppo->front().files.size(), feed.files.size());
  std::int64_t sppo_records = 0;
  for (std::size_t i = 0; i < sppo->front().files.size(); i += 97) {
    const auto& file = sppo->front().files[i];
    const auto bytes = base::ReadFile(file.body);
    ASSERT_TRUE(bytes.ok());
    const auto format = codec::DetectFormat(*bytes);
    ASSERT_TRUE(format.ok());
    EXPECT_EQ(*format, codec::Format::kRioSppo);
    EXPECT_EQ(bytes->find("\"latitude\":-"), std::string::npos);  // values are strings
    codec::DecodeOptions decode;
    decode.ingest_time = file.ingest_time;
    codec::DecodedBatch batch;
    const auto info = codec::DecodeResponse(codec::Format::kRioSppo, *bytes, decode, batch);
    ASSERT_TRUE(info.ok()) << info.error().message();
    codec::DecodedBatch gtfs_batch;
    const auto gtfs_bytes = base::ReadFile(feed.files[i].body);
    codec::DecodeOptions gtfs_decode;
    gtfs_decode.ingest_time = feed.files[i].ingest_time;
    ASSERT_TRUE(
        codec::DecodeResponse(codec::Format::kGtfsRt, *gtfs_bytes, gtfs_decode, gtfs_batch).ok());
    EXPECT_EQ(batch.size(), gtfs_batch.size());
    for (std::size_t k = 0; k < std::min(batch.positions.size(), gtfs_batch.positions.size());
         ++k) {
      if (batch.positions[k].vehicle_id == gtfs_batch.positions[k].vehicle_id) {
        EXPECT_NEAR(batch.positions[k].lat, gtfs_batch.positions[k].lat, 1e-5);
        EXPECT_EQ(batch.positions[k].event_time, gtfs_batch.positions[k].event_time);
      }
    }
    sppo_records += info->records;
  }
  EXPECT_GT(sppo_records, 0);
}

// A whole default day of a small city, simulated once for the tests below.
class DefaultDay : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = new ScratchDir("default-day");
    SimulateOptions options = SmallDay(dir_->path(), 60);
    options.departures_between_s.reset();
    const auto summary = Simulate(options);
    ASSERT_TRUE(summary.ok()) << summary.error().message();
    auto truth = ReadTruth(summary->truth);
    ASSERT_TRUE(truth.ok()) << truth.error().message();
    truth_ = new Truth(std::move(*truth));
    city_ = new City(BuildCity({options.vehicles, options.seed, options.date}));
  }
  static void TearDownTestSuite() {
    delete truth_;
    delete city_;
    delete dir_;
  }
  static ScratchDir* dir_;
  static Truth* truth_;
  static City* city_;
};
ScratchDir* DefaultDay::dir_ = nullptr;
Truth* DefaultDay::truth_ = nullptr;
City* DefaultDay::city_ = nullptr;

TEST_F(DefaultDay, HasEveryFaultKindAndAFeedOutageOfFiveMinutesInServiceHours) {
  ASSERT_NE(truth_, nullptr);
  EXPECT_EQ(truth_->version, 2);
  ASSERT_EQ(truth_->faults.size(), kFaultCount);
  for (const auto& fault : truth_->faults) {
    EXPECT_GT(fault.injected, 0) << fault.fault;
    EXPECT_TRUE(ParseFault(fault.fault).has_value()) << fault.fault;
  }
  std::int64_t first = std::numeric_limits<std::int64_t>::max();
  std::int64_t last = std::numeric_limits<std::int64_t>::min();
  for (const auto& d : truth_->departures) {
    first = std::min(first, d.time_us);
    last = std::max(last, d.time_us);
  }
  const bool long_outage_in_service =
      std::any_of(truth_->outages.begin(), truth_->outages.end(), [&](const auto& o) {
        return o.end_us - o.start_us >= 300'000'000 && o.start_us > first && o.end_us < last;
      });
  EXPECT_TRUE(long_outage_in_service);
  EXPECT_FALSE(truth_->line_silences.empty());
  EXPECT_FALSE(truth_->stale_plan.empty());
  const auto tagged_late = std::count_if(truth_->departures.begin(), truth_->departures.end(),
                                         [](const auto& d) { return d.tagged_late; });
  EXPECT_NEAR(static_cast<double>(tagged_late) / static_cast<double>(truth_->departures.size()),
              0.3, 0.06);
}

// The truth's coverage gaps are the feed's, by the minute of event time (its feed_blind
// alerts): every outage of 10 minutes or more leaves one, and no measured true headway
// spans one.
TEST_F(DefaultDay, TrueHeadwaysNeverSpanACoverageGapWithoutTheCoverageGapExclusion) {
  ASSERT_NE(truth_, nullptr);
  ASSERT_FALSE(truth_->headways.empty());
  std::vector<std::pair<std::int64_t, std::int64_t>> gaps;
  for (const auto& a : truth_->alerts) {
    if (a.kind == "feed_blind") {
      EXPECT_GE(a.end_us - a.start_us, 300'000'000);
      gaps.emplace_back(a.start_us, a.end_us);
    }
  }
  for (const auto& o : truth_->outages) {
    if (o.end_us - o.start_us >= 600'000'000) {
      EXPECT_TRUE(
          std::any_of(gaps.begin(), gaps.end(),
                      [&](const auto& g) { return g.first < o.end_us && g.second > o.start_us; }))
          << "outage at " << o.start_us;
    }
  }
  std::int64_t coverage_gaps = 0;
  for (const auto& h : truth_->headways) {
    const std::int64_t previous =
        h.time_us - static_cast<std::int64_t>(std::llround(h.headway_s * 1e6));
    const bool spans = std::any_of(gaps.begin(), gaps.end(), [&](const auto& g) {
      return g.first < h.time_us && g.second > previous;
    });
    if (spans) {
      EXPECT_NE(h.exclusion, "") << h.route_id << " " << h.direction_id << " at " << h.time_us;
    }
    coverage_gaps += h.exclusion == "coverage_gap" ? 1 : 0;
  }
  EXPECT_GT(coverage_gaps, 0);
}

TEST_F(DefaultDay, DeparturesExitAfterLeavingAndAlertsStayInTheirServicePeriod) {
  ASSERT_NE(truth_, nullptr);
  // Semantics §7's moment comes after the bus leaves the terminal: 1,000 m at bus speeds
  // (and its first stops) take a minute or a few, never more than a quarter of an hour.
  std::int64_t later = 0;
  for (const auto& d : truth_->departures) {
    EXPECT_GE(d.exit_time_us, d.time_us) << d.vehicle_id << " " << d.trip_id;
    EXPECT_LE(d.exit_time_us - d.time_us, std::int64_t{900} * 1'000'000)
        << d.vehicle_id << " " << d.trip_id;
    later += d.exit_time_us > d.time_us ? 1 : 0;
  }
  EXPECT_GT(later, static_cast<std::int64_t>(truth_->departures.size()) * 9 / 10);
  // Peak-only lines break for hours between their peaks: that break is never the planned
  // headway of an alert, and no gap_in_progress runs across it.
  std::map<std::string, std::int64_t> kinds;
  for (const auto& a : truth_->alerts) {
    ++kinds[a.kind];
    if (a.kind == "feed_blind") {
      continue;
    }
    EXPECT_LE(a.planned_headway_s, 7200) << a.kind << " " << a.route_id << " at " << a.start_us;
    if (a.kind == "gap_in_progress" && a.end_us > 0) {
      EXPECT_GT(a.end_us - a.start_us, std::llround(2e6 * a.planned_headway_s)) << a.route_id;
    }
  }
  for (const std::string kind : {"bunching", "gap", "gap_in_progress", "feed_blind"}) {
    EXPECT_GT(kinds[kind], 0) << kind;
  }
}

TEST_F(DefaultDay, PeakOnlyLinesHaveAServiceBreakAndTheNightLineRunsPastMidnight) {
  ASSERT_NE(truth_, nullptr);
  std::int64_t peak_only = 0;
  for (const auto& route : city_->routes) {
    if (!route.peak_only) {
      continue;
    }
    ++peak_only;
    for (const std::int32_t direction : {0, 1}) {
      const auto breaks =
          std::count_if(truth_->headways.begin(), truth_->headways.end(), [&](const auto& h) {
            return h.route_id == route.id && h.direction_id == direction &&
                   h.exclusion == "service_break";
          });
      EXPECT_EQ(breaks, 1) << route.id << " direction " << direction;
    }
  }
  EXPECT_GT(peak_only, 0);
  // The night line's departures go on past midnight, on the same service date.
  std::int64_t after_midnight = 0;
  for (const auto& route : city_->routes) {
    if (!route.night_only) {
      continue;
    }
    for (const auto& d : truth_->departures) {
      after_midnight += d.route_id == route.id && d.start_time >= "24:00:00" ? 1 : 0;
    }
  }
  EXPECT_GT(after_midnight, 0);
  // Every exclusion is one of the two reasons.
  for (const auto& h : truth_->headways) {
    EXPECT_TRUE(h.exclusion.empty() || h.exclusion == "service_break" ||
                h.exclusion == "coverage_gap");
  }
}

}  // namespace
}  // namespace frota::sim
