#include "frota/job/rules.h"

#include <gtest/gtest.h>

#include "frota/job/validation.h"

namespace frota::job {
namespace {

using std::chrono::minutes;

TEST(RulesTest, DefaultsAreTheContractsNumbers) {
  const JobConfig config;
  const std::vector<RuleValue> expected = {
      {"future_tolerance_s", 30},
      {"stale_after_s", 300},
      {"max_speed_kmh.bus", 120},
      {"max_speed_kmh.brt", 120},
      {"max_speed_kmh.rail", 120},
      {"max_speed_kmh.ferry", 120},
      {"max_speed_kmh.aircraft", 1300},
      {"max_speed_kmh.other", 120},
      {"watermark_slack_s", 30},
      {"idle_timeout_s", 120},
      // A segment's plausible top speed: 90 km/h for bus and BRT, rule 6's for the rest.
      {"max_segment_speed_kmh.bus", 90},
      {"max_segment_speed_kmh.brt", 90},
      {"max_segment_speed_kmh.rail", 120},
      {"max_segment_speed_kmh.ferry", 120},
      {"max_segment_speed_kmh.aircraft", 1300},
      {"max_segment_speed_kmh.other", 120}};
  EXPECT_EQ(RuleValues(config), expected);
  EXPECT_EQ(config.max_lateness(), minutes(6));
}

TEST(RulesTest, ASegmentSpeedRuleIsSetPerModeAndRefusedWhenNotASpeed) {
  JobConfig config;
  ASSERT_TRUE(SetRule(config, "max_segment_speed_kmh.brt", "80").ok());
  EXPECT_EQ(config.MaxSegmentSpeedKmh(model::Mode::kBrt), 80);
  EXPECT_EQ(config.MaxSegmentSpeedKmh(model::Mode::kBus), 90);
  EXPECT_EQ(config.MaxSpeedKmh(model::Mode::kBrt), 120);  // rule 6 untouched
  const auto zero = SetRule(config, "max_segment_speed_kmh.bus", "0");
  ASSERT_FALSE(zero.ok());
  EXPECT_EQ(zero.error().message(), "rule max_segment_speed_kmh.bus: 0 is not a speed > 0 km/h");
  EXPECT_FALSE(SetRule(config, "max_segment_speed_kmh.tram", "50").ok());
}

TEST(RulesTest, TheWatermarkLagIsDerivedAndRoundedUpToTheMinute) {
  JobConfig config;
  ASSERT_TRUE(SetRule(config, "stale_after_s", "600").ok());
  // 600 + 30 + 30 = 660 s: 11 minutes exactly.
  EXPECT_EQ(config.max_lateness(), minutes(11));
  ASSERT_TRUE(SetRule(config, "watermark_slack_s", "0.5").ok());
  // 630.5 s rounds up to 11 minutes.
  EXPECT_EQ(config.max_lateness(), minutes(11));
  ASSERT_TRUE(SetRule(config, "future_tolerance_s", "0").ok());
  ASSERT_TRUE(SetRule(config, "watermark_slack_s", "0").ok());
  EXPECT_EQ(config.max_lateness(), minutes(10));
  ASSERT_TRUE(SetRule(config, "watermark_slack_s", "0.000001").ok());
  EXPECT_EQ(config.max_lateness(), minutes(11));
}

TEST(RulesTest, FlagsSetEachKeyAndTheLastWins) {
  JobConfig config;
  ASSERT_TRUE(ApplyRuleFlags(config, {"max_speed_kmh.ferry=60", "idle_timeout_s=30",
                                      "future_tolerance_s=5", "max_speed_kmh.ferry=70"})
                  .ok());
  EXPECT_EQ(config.MaxSpeedKmh(model::Mode::kFerry), 70);
  EXPECT_EQ(config.MaxSpeedKmh(model::Mode::kBus), 120);
  EXPECT_EQ(config.idle_timeout, std::chrono::seconds(30));
  EXPECT_EQ(config.future_tolerance, std::chrono::seconds(5));
}

TEST(RulesTest, ErrorsNameTheKey) {
  JobConfig config;
  const auto unknown = ApplyRuleFlags(config, {"stale_s=10"});
  ASSERT_FALSE(unknown.ok());
  EXPECT_NE(unknown.error().message().find("unknown rule 'stale_s'"), std::string::npos)
      << unknown.error().message();
  EXPECT_NE(unknown.error().message().find("stale_after_s"), std::string::npos);
  for (const std::string flag : {"stale_after_s=abc", "stale_after_s=-1", "stale_after_s=",
                                 "stale_after_s=10s", "idle_timeout_s=0", "max_speed_kmh.bus=0",
                                 "max_speed_kmh.bus=inf", "future_tolerance_s=nan"}) {
    const auto status = ApplyRuleFlags(config, {flag});
    ASSERT_FALSE(status.ok()) << flag;
    EXPECT_EQ(status.error().kind(), base::Error::Kind::kInvalidInput);
    EXPECT_NE(status.error().message().find(flag.substr(0, flag.find('='))), std::string::npos)
        << status.error().message();
  }
  const auto mode = ApplyRuleFlags(config, {"max_speed_kmh.tram=50"});
  ASSERT_FALSE(mode.ok());
  EXPECT_NE(mode.error().message().find("no such mode 'tram'"), std::string::npos);
  EXPECT_FALSE(ApplyRuleFlags(config, {"stale_after_s"}).ok());
  EXPECT_FALSE(ApplyRuleFlags(config, {"=5"}).ok());
  // Nothing of a refused flag was applied.
  EXPECT_EQ(RuleValues(config), RuleValues(JobConfig{}));
}

TEST(RulesTest, ALoosenedStaleRuleAcceptsWhatTheDefaultRefuses) {
  model::Position p;
  p.ingest_time = base::FromUnixSeconds(1'700'000'000);
  p.event_time = p.ingest_time - std::chrono::seconds(450);
  JobConfig config;
  EXPECT_EQ(CheckRecordRules(p, config), model::RejectReason::kStale);
  ASSERT_TRUE(SetRule(config, "stale_after_s", 600.0).ok());
  EXPECT_EQ(CheckRecordRules(p, config), std::nullopt);
  p.event_time = p.ingest_time + std::chrono::seconds(20);
  ASSERT_TRUE(SetRule(config, "future_tolerance_s", 10.0).ok());
  EXPECT_EQ(CheckRecordRules(p, config), model::RejectReason::kFuture);
}

}  // namespace
}  // namespace frota::job
