#include "frota/collect/config.h"

#include <gtest/gtest.h>

#include <algorithm>

#include "frota/testing/shared_data.h"

namespace frota::collect {
namespace {

TEST(CollectConfig, TheShippedExampleParsesWithEveryFeed) {
  const auto path = frota::testing::SourceDir() / "config/collector.example.toml";
  const auto config = LoadConfig(path);
  ASSERT_TRUE(config.ok()) << config.error().message();
  ASSERT_EQ(config->feeds.size(), 4U);
  EXPECT_EQ(config->feeds[0].id, "rio-sppo");
  EXPECT_EQ(config->feeds[0].format, codec::Format::kRioSppo);
  EXPECT_EQ(config->feeds[0].window, std::chrono::seconds(60));
  EXPECT_EQ(config->feeds[1].interval, std::chrono::seconds(15));  // from [defaults]
  EXPECT_EQ(config->feeds[2].interval, std::chrono::seconds(30));
  EXPECT_EQ(config->feeds[2].auth.kind, AuthConfig::Kind::kHeader);
  EXPECT_EQ(config->feeds[3].auth.kind, AuthConfig::Kind::kOAuth2);
  EXPECT_EQ(config->feeds[3].daily_budget, 400);
  EXPECT_EQ(config->feeds[3].mode, model::Mode::kAircraft);
  EXPECT_EQ(config->flush_interval, std::chrono::minutes(5));
  EXPECT_EQ(config->archive, path.parent_path() / "data/bronze");
  EXPECT_EQ(config->metrics_listen, "127.0.0.1:9464");
}

TEST(CollectConfig, AnUnknownKeyIsAnErrorNamingTheLine) {
  const auto config = ParseConfig(
      "[collector]\narchive = \"a\"\n\n[[feed]]\nid = \"x\"\nformat = \"rio-brt\"\n"
      "url = \"http://127.0.0.1/x\"\nintervall_s = 5\n",
      "c.toml", ".");
  ASSERT_FALSE(config.ok());
  EXPECT_NE(config.error().message().find("c.toml:8"), std::string::npos)
      << config.error().message();
  EXPECT_NE(config.error().message().find("intervall_s"), std::string::npos);
}

TEST(CollectConfig, BrokenTomlAndBadValuesAreClearErrors) {
  auto bad = ParseConfig("[[feed]\n", "c.toml", ".");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.error().message().find("c.toml:1"), std::string::npos);
  bad = ParseConfig("[[feed]]\nid = \"x\"\nformat = \"csv\"\nurl = \"http://h/\"\n", "c.toml", ".");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.error().message().find("format 'csv'"), std::string::npos);
  bad = ParseConfig("[[feed]]\nid = \"x\"\nformat = \"opensky\"\nurl = \"ftp://h/\"\n", "c.toml",
                    ".");
  ASSERT_FALSE(bad.ok());
  bad = ParseConfig(
      "[[feed]]\nid = \"x\"\nformat = \"opensky\"\nurl = \"http://h/\"\n[feed.auth]\ntype = "
      "\"bearer\"\n",
      "c.toml", ".");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.error().message().find("env"), std::string::npos);
}

TEST(CollectConfig, RulesAndTheLogFilesLevel) {
  constexpr std::string_view kFeed =
      "[[feed]]\nid = \"x\"\nformat = \"rio-brt\"\nurl = \"http://127.0.0.1/x\"\n";
  const auto config = ParseConfig(
      std::string("[collector]\nlog_level_file = \"debug\"\n\n[rules]\nstale_after_s = 600\n"
                  "future_tolerance_s = 12.5\nmax_speed_kmh.ferry = 60\n"
                  "max_speed_kmh.rail = 200\n\n") +
          std::string(kFeed),
      "c.toml", ".");
  ASSERT_TRUE(config.ok()) << config.error().message();
  EXPECT_EQ(config->log_level_file, "debug");
  std::vector<std::string> rules = config->rules;
  std::sort(rules.begin(), rules.end());
  EXPECT_EQ(rules, (std::vector<std::string>{"future_tolerance_s=12.5", "max_speed_kmh.ferry=60",
                                             "max_speed_kmh.rail=200", "stale_after_s=600"}));
  // The speeds as a table of their own.
  const auto table = ParseConfig(
      std::string("[rules.max_speed_kmh]\nbus = 90\n\n") + std::string(kFeed), "c.toml", ".");
  ASSERT_TRUE(table.ok()) << table.error().message();
  EXPECT_EQ(table->rules, std::vector<std::string>{"max_speed_kmh.bus=90"});
  const struct {
    std::string toml;
    std::string says;
  } bad_configs[] = {
      {"[rules]\nstale_s = 5\n", "c.toml:2: unknown rule 'stale_s'"},
      {"[rules]\nstale_after_s = -5\n", "c.toml:2: rule stale_after_s"},
      {"[rules]\nstale_after_s = \"600\"\n", "rules.stale_after_s must be a number"},
      {"[rules]\nmax_speed_kmh.tram = 50\n", "no such mode 'tram'"},
      {"[rules]\nmax_speed_kmh = 50\n", "unknown rule 'max_speed_kmh'"},
      {"[collector]\nlog_level_file = \"loud\"\n", "log_level_file 'loud'"},
  };
  for (const auto& bad : bad_configs) {
    const auto parsed = ParseConfig(bad.toml + "\n" + std::string(kFeed), "c.toml", ".");
    ASSERT_FALSE(parsed.ok()) << bad.toml;
    EXPECT_NE(parsed.error().message().find(bad.says), std::string::npos)
        << parsed.error().message();
  }
}

TEST(CollectConfig, QuickFeedFlag) {
  const auto feed = ParseFeedFlag("rio-brt=rio-brt,https://dados.mobilidade.rio/gps/brt");
  ASSERT_TRUE(feed.ok());
  EXPECT_EQ(feed->id, "rio-brt");
  EXPECT_EQ(feed->format, codec::Format::kRioBrt);
  EXPECT_EQ(feed->url, "https://dados.mobilidade.rio/gps/brt");
  EXPECT_FALSE(ParseFeedFlag("rio-brt").ok());
  EXPECT_FALSE(ParseFeedFlag("x=png,http://h/").ok());
}

TEST(CollectConfig, SecretsAreRedactedFromUrls) {
  EXPECT_EQ(RedactUrl("https://h/p?key=abc&route=1"), "https://h/p?key=***&route=1");
  EXPECT_EQ(RedactUrl("https://h/p?Token=abc"), "https://h/p?Token=***");
  EXPECT_EQ(RedactUrl("https://h/p?x=1&sig=abc", "sig"), "https://h/p?x=1&sig=***");
  EXPECT_EQ(RedactUrl("https://h/p"), "https://h/p");
}

TEST(CollectConfig, FoldersAreRelativeToTheConfigFolderOnce) {
  const auto config = ParseConfig(
      "[collector]\nsilver = \"s\"\n[run]\nepoch_s = 5\n"
      "[[feed]]\nid = \"x\"\nformat = \"rio-brt\"\nurl = \"http://h/\"\n",
      "cfg/c.toml", "cfg");
  ASSERT_TRUE(config.ok()) << config.error().message();
  EXPECT_EQ(config->silver, std::filesystem::path("cfg/s"));
  // Keys left out keep their defaults, under the config's folder (not cfg/cfg/...).
  EXPECT_EQ(config->archive, std::filesystem::path("cfg") / CollectorConfig{}.archive);
  EXPECT_EQ(config->gold, std::filesystem::path("cfg") / CollectorConfig{}.gold);
  EXPECT_EQ(config->reports, std::filesystem::path("cfg/reports"));
  EXPECT_EQ(config->db, "cfg/frota.duckdb");
}

}  // namespace
}  // namespace frota::collect
