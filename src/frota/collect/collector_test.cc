#include "frota/collect/collector.h"

#include <gtest/gtest.h>
#include <httplib.h>
#include <spdlog/spdlog.h>

#include <cstdlib>
#include <nlohmann/json.hpp>
#include <utility>

#include "frota/base/file.h"
#include "frota/codec/decode.h"
#include "frota/collect/report.h"
#include "frota/collect/testing/fault_server.h"
#include "frota/sink/duckdb_connection.h"
#include "frota/source/bronze_archive.h"
#include "frota/testing/shared_data.h"
#include "frota/testing/subprocess.h"

namespace frota::collect {
namespace {

namespace fs = std::filesystem;
using testing::Fault;
using testing::FaultServer;
using testing::FeedScript;
using testing::ServedRequest;

const base::Timestamp kStart = *base::ParseIso8601("2024-06-06T12:00:00Z");

std::string Read(const fs::path& path) { return *base::ReadFile(path); }

FeedConfig Feed(const std::string& id, codec::Format format, std::string url) {
  FeedConfig f;
  f.id = id;
  f.format = format;
  f.url = std::move(url);
  f.interval = std::chrono::seconds(15);
  // Generous for a loaded machine; the slow fault sleeps longer than this.
  f.timeout = std::chrono::milliseconds(1500);
  f.connect_timeout = std::chrono::milliseconds(1000);
  f.max_retries = 3;
  f.backoff_initial = std::chrono::seconds(1);
  f.backoff_max = std::chrono::seconds(8);
  return f;
}

CollectorConfig Config(const fs::path& root) {
  CollectorConfig c;
  c.archive = root / "bronze";
  c.silver = root / "silver";
  c.gold = root / "gold";
  c.reports = root / "reports";
  return c;
}

// What the collector must have counted, derived from what the server did.
struct Expected {
  std::int64_t requests = 0;
  std::int64_t responses = 0;
  std::int64_t not_modified = 0;
  std::int64_t repeats = 0;
  std::int64_t positions = 0;
  std::int64_t decode_failures = 0;
  std::map<std::string, std::int64_t> failures;
  std::vector<std::string> archived;
  std::vector<bool> repeat_flags;
};

Expected Expect(const std::vector<ServedRequest>& served, codec::Format format) {
  Expected e;
  for (const auto& s : served) {
    ++e.requests;
    switch (s.fault) {
      case Fault::kSlow:
        ++e.failures["timeout"];
        break;
      case Fault::kTruncated:
        ++e.failures["truncated"];
        break;
      case Fault::kServerError:
      case Fault::kUnavailable:
        ++e.failures["http_5xx"];
        break;
      case Fault::kRateLimitSeconds:
      case Fault::kRateLimitDate:
      case Fault::kRateLimitOpenSky:
      case Fault::kRateLimitBare:
        ++e.failures["rate_limited"];
        break;
      case Fault::kNotFound:
        ++e.failures["http_4xx"];
        break;
      case Fault::kNotModified:
        ++e.not_modified;
        break;
      default:
        e.archived.push_back(s.body);
    }
  }
  std::optional<std::string> previous;
  std::optional<base::Timestamp> previous_header;
  for (const auto& body : e.archived) {
    codec::DecodedBatch batch;
    const auto info = codec::DecodeResponse(format, body, codec::DecodeOptions{}, batch);
    std::optional<base::Timestamp> header;
    if (info.ok()) {
      e.positions += static_cast<std::int64_t>(batch.positions.size());
      header = info->header_time;
    } else {
      ++e.decode_failures;
    }
    const bool repeat = (previous && *previous == body) ||
                        (header && previous_header && *header == *previous_header);
    e.repeats += repeat ? 1 : 0;
    e.repeat_flags.push_back(repeat);
    previous = body;
    previous_header = header;
  }
  e.responses = static_cast<std::int64_t>(e.archived.size());
  return e;
}

void ExpectCountsMatch(const FeedStats& stats, const Expected& e) {
  EXPECT_EQ(stats.requests, e.requests) << stats.feed_id;
  EXPECT_EQ(stats.responses, e.responses) << stats.feed_id;
  EXPECT_EQ(stats.not_modified, e.not_modified) << stats.feed_id;
  EXPECT_EQ(stats.repeats, e.repeats) << stats.feed_id;
  EXPECT_EQ(stats.positions, e.positions) << stats.feed_id;
  EXPECT_EQ(stats.decode_failures, e.decode_failures) << stats.feed_id;
  EXPECT_EQ(stats.failures, e.failures) << stats.feed_id;
}

// Every body the server delivered with status 200 is in bronze, byte for byte, in order.
void ExpectArchived(const fs::path& archive, const std::string& feed, const Expected& e) {
  const auto feeds = source::ListArchive(archive);
  ASSERT_TRUE(feeds.ok()) << feeds.error().message();
  const source::ArchivedFeed* found = nullptr;
  for (const auto& f : *feeds) {
    if (f.info.feed_id == feed) {
      found = &f;
    }
  }
  ASSERT_NE(found, nullptr) << feed;
  ASSERT_EQ(found->files.size(), e.archived.size()) << feed;
  for (std::size_t i = 0; i < e.archived.size(); ++i) {
    EXPECT_EQ(Read(found->files[i].body), e.archived[i]) << found->files[i].body;
    EXPECT_EQ(found->files[i].repeat, e.repeat_flags[i]) << found->files[i].body;
    const auto meta = nlohmann::json::parse(Read(found->files[i].body.string() + ".meta.json"));
    EXPECT_EQ(meta.at("http_status").get<int>(), 200);
  }
}

struct Captures {
  std::vector<std::string> sppo, brt, gtfs_rt, opensky;
};

std::optional<Captures> LoadCaptures() {
  const auto sppo = frota::testing::SharedFile("rio-api-snapshots/sppo_api_2024-06-06.json");
  const auto brt = frota::testing::SharedFile("rio-api-snapshots/brt_api_realtime_2024-01-13.json");
  const auto caltrain = frota::testing::SharedFile("gtfs-rt/caltrain/ct-vehicle-positions.pb");
  const auto bull =
      frota::testing::SharedFile("gtfs-rt/bullrunner/bullrunner-vehicle-positions.pb");
  const auto denver = frota::testing::SharedFile("opensky/denver_bbox_series");
  if (!sppo || !brt || !caltrain || !bull || !denver) {
    return std::nullopt;
  }
  Captures c;
  c.sppo = testing::JsonVariants(Read(*sppo), 3);
  c.brt = testing::JsonVariants(Read(*brt), 3);
  c.gtfs_rt = {Read(*caltrain), Read(*bull)};
  std::vector<fs::path> files;
  for (const auto& entry : fs::directory_iterator(*denver)) {
    files.push_back(entry.path());
  }
  std::sort(files.begin(), files.end());
  for (const auto& f : files) {
    c.opensky.push_back(Read(f));
  }
  // No aircraft in the box: OpenSky answers with `states: null`.
  c.opensky.push_back(R"({"time": 1615141900, "states": null})");
  return c;
}

#define FROTA_REQUIRE_CAPTURES(var)                                                            \
  auto var##_optional = LoadCaptures();                                                        \
  if (!var##_optional) {                                                                       \
    FROTA_SHARED_MISSING("real captures not found under " << frota::testing::SharedDataDir()); \
  }                                                                                            \
  const Captures var = std::move(*var##_optional)

class CollectorTest : public ::testing::Test {
 protected:
  void SetUp() override { spdlog::set_level(spdlog::level::err); }
  void TearDown() override { spdlog::set_level(spdlog::level::info); }
};

TEST_F(CollectorTest, CountsEveryFaultAsTheServerServedItAndArchivesEvery200) {
  FROTA_REQUIRE_CAPTURES(captures);
  frota::testing::TempDir dir("collect-faults");
  base::ManualClock clock(kStart);
  FaultServer server([&] { return clock.Now(); });
  using F = Fault;
  FeedScript sppo{captures.sppo,
                  "application/json",
                  {F::kOk,          F::kServerError, F::kOk,          F::kSlow,
                   F::kOk,          F::kTruncated,   F::kOk,          F::kHtml,
                   F::kRepeat,      F::kNotModified, F::kEmpty,       F::kRateLimitSeconds,
                   F::kOk,          F::kUnavailable, F::kUnavailable, F::kUnavailable,
                   F::kUnavailable, F::kOk,          F::kNotFound,    F::kOk},
                  F::kOk,
                  20,
                  2500};
  FeedScript brt{
      captures.brt,
      "application/json",
      {F::kOk, F::kRepeat, F::kRepeat, F::kRateLimitDate, F::kOk, F::kServerError, F::kServerError,
       F::kOk, F::kHtml, F::kOk, F::kNotModified, F::kNotModified, F::kOk},
      F::kOk,
      45,
      2500};
  FeedScript gtfs{captures.gtfs_rt,
                  "application/x-protobuf",
                  {F::kOk, F::kOk, F::kRepeat, F::kTruncated, F::kOk, F::kEmpty, F::kRateLimitBare,
                   F::kOk, F::kHtml, F::kSlow},
                  F::kOk,
                  30,
                  2500};
  FeedScript opensky{captures.opensky,
                     "application/json",
                     {F::kOk, F::kRateLimitOpenSky, F::kOk, F::kOk, F::kOk, F::kOk, F::kOk,
                      F::kRepeat, F::kNotModified},
                     F::kOk,
                     40,
                     2500};
  server.SetScript("sppo", sppo);
  server.SetScript("brt", brt);
  server.SetScript("gtfs", gtfs);
  server.SetScript("opensky", opensky);

  auto config = Config(dir.path());
  config.feeds = {Feed("rio-sppo", codec::Format::kRioSppo, server.Url("sppo")),
                  Feed("rio-brt", codec::Format::kRioBrt, server.Url("brt")),
                  Feed("gtfs-rt", codec::Format::kGtfsRt, server.Url("gtfs")),
                  Feed("opensky", codec::Format::kOpenSky, server.Url("opensky"))};
  CollectorOptions options;
  options.clock = &clock;
  options.run_id = "faults";
  options.seed = 7;
  auto collector = Collector::Open(config, options);
  ASSERT_TRUE(collector.ok()) << collector.error().message();
  base::StopSignal stop;
  const auto run = (*collector)->RunVirtual(clock, kStart + std::chrono::minutes(20), stop);
  ASSERT_TRUE(run.ok()) << run.error().message();

  const std::map<std::string, std::pair<std::string, codec::Format>> feeds = {
      {"rio-sppo", {"sppo", codec::Format::kRioSppo}},
      {"rio-brt", {"brt", codec::Format::kRioBrt}},
      {"gtfs-rt", {"gtfs", codec::Format::kGtfsRt}},
      {"opensky", {"opensky", codec::Format::kOpenSky}}};
  const auto stats = (*collector)->feed_stats();
  ASSERT_EQ(stats.size(), 4U);
  const auto report = nlohmann::json::parse(Read(dir.path() / "reports/faults/bronze.json"));
  std::int64_t total_requests = 0;
  for (const auto& s : stats) {
    const auto& [path, format] = feeds.at(s.feed_id);
    const auto served = server.Served(path);
    const auto expected = Expect(served, format);
    ExpectCountsMatch(s, expected);
    ExpectArchived(config.archive, s.feed_id, expected);
    total_requests += expected.requests;
    // The report says the same as the counters.
    const auto& r = report.at("feeds").at(s.feed_id);
    EXPECT_EQ(r.at("requests").get<std::int64_t>(), expected.requests);
    EXPECT_EQ(r.at("responses").get<std::int64_t>(), expected.responses);
    EXPECT_EQ(r.at("repeats").get<std::int64_t>(), expected.repeats);
    EXPECT_EQ(r.at("positions").get<std::int64_t>(), expected.positions);
    using Counts = std::map<std::string, std::int64_t>;
    EXPECT_EQ(r.at("failures").get<Counts>(), expected.failures);

    // Politeness, request by request, in the collector's (virtual) time.
    for (std::size_t i = 0; i + 1 < served.size(); ++i) {
      const auto gap = served[i + 1].at - served[i].at;
      switch (served[i].fault) {
        case F::kRateLimitSeconds:
        case F::kRateLimitOpenSky:
          EXPECT_GE(gap, std::chrono::seconds(path == "sppo" ? 20 : 40)) << path << " #" << i;
          break;
        case F::kRateLimitDate:
          EXPECT_GE(gap, std::chrono::seconds(45 - 1)) << path << " #" << i;
          break;
        case F::kRateLimitBare:
          EXPECT_GE(gap, std::chrono::seconds(60)) << path << " #" << i;
          break;
        case F::kServerError:
        case F::kUnavailable:
        case F::kSlow:
        case F::kTruncated:
          EXPECT_GE(gap, std::chrono::milliseconds(500)) << path << " #" << i;  // backoff
          break;
        default:
          // The next grid point: 15 s after the cycle's start, which retries (at most
          // 1 + 2 + 4 s of backoff here) may have moved back.
          EXPECT_GE(gap, std::chrono::seconds(15 - 7)) << path << " #" << i;
      }
      // Conditional requests once a 200 carried an ETag.
      if (served[i].status == 200 && served[i].fault != F::kEmpty && served[i].fault != F::kHtml &&
          served[i].fault != F::kTruncated && served[i].fault != F::kSlow) {
        EXPECT_TRUE(served[i + 1].conditional) << path << " #" << i + 1;
      }
    }
  }
  EXPECT_EQ(report.at("requests").get<std::int64_t>(), total_requests);
  EXPECT_EQ(report.at("status").get<std::string>(), "degraded");

  // Four exhausted retries in a row (503 x 4) for SPPO: one poll, three retries.
  EXPECT_EQ(stats[0].failures.at("http_5xx"), 5);
  // OpenSky's empty box is zero aircraft, not an error.
  EXPECT_EQ(stats[3].decode_failures, 0);
  EXPECT_EQ(stats[3].failures.at("rate_limited"), 1);

  // Silver and gold: Parquet files named by run id, rows adding up to the counts.
  auto db = sink::DuckDbConnection::Open("");
  ASSERT_TRUE(db.ok());
  auto count = [&](const std::string& glob) -> std::int64_t {
    auto r = (*db)->Query("SELECT count(*) FROM read_parquet('" + glob + "')");
    EXPECT_TRUE(r.ok()) << r.error().message();
    return r.ok() ? r->Int64(0, 0) : -1;
  };
  const auto medallion = *(*collector)->medallion_stats();
  const auto root = dir.path().string();
  EXPECT_EQ(count(root + "/silver/positions/*/*/faults-*.parquet"), medallion.accepted);
  std::int64_t rejected = 0;
  for (const auto& [reason, n] : medallion.rejected) {
    rejected += n;
  }
  EXPECT_EQ(count(root + "/silver/rejected/*/*/faults-*.parquet"), rejected);
  std::int64_t archived = 0;
  for (const auto& s : stats) {
    archived += s.responses;
  }
  EXPECT_EQ(count(root + "/gold/poll_summary/*/*/faults-*.parquet"), archived);
  auto null_states = (*db)->Query(
      "SELECT observations, unique_vehicles FROM read_parquet('" + root +
      "/gold/poll_summary/feed=opensky/*/*.parquet') WHERE bronze_file IN (SELECT bronze_file "
      "FROM read_parquet('" +
      root +
      "/gold/poll_summary/feed=opensky/*/*.parquet') WHERE "
      "decoded AND observations = 0)");
  ASSERT_TRUE(null_states.ok());
  EXPECT_GE(null_states->rows(), 1U);  // the states:null polls, summarised as zero aircraft
  auto latest = (*db)->Query("SELECT count(*), count(DISTINCT vehicle_id) FROM read_parquet('" +
                             root + "/gold/latest_state/feed=rio-sppo/faults.parquet')");
  ASSERT_TRUE(latest.ok()) << latest.error().message();
  EXPECT_EQ(latest->Int64(0, 0), latest->Int64(0, 1));  // one row per vehicle
  EXPECT_GT(latest->Int64(0, 0), 600);
}

TEST_F(CollectorTest, GzipIsUndoneAndTheEncodingKeptInTheEnvelope) {
  FROTA_REQUIRE_CAPTURES(captures);
  frota::testing::TempDir dir("collect-gzip");
  base::ManualClock clock(kStart);
  FaultServer server([&] { return clock.Now(); });
  server.SetScript("sppo", FeedScript{{captures.sppo[0]}, "application/json", {}, Fault::kOk});
  auto config = Config(dir.path());
  config.medallion = false;
  config.feeds = {Feed("rio-sppo", codec::Format::kRioSppo, server.Url("sppo"))};
  CollectorOptions options;
  options.clock = &clock;
  auto collector = Collector::Open(config, options);
  ASSERT_TRUE(collector.ok());
  base::StopSignal stop;
  ASSERT_TRUE((*collector)->RunVirtual(clock, kStart + std::chrono::seconds(20), stop).ok());
  const auto feeds = source::ListArchive(config.archive);
  ASSERT_TRUE(feeds.ok());
  ASSERT_EQ((*feeds)[0].files.size(), 2U);
  const auto& body = (*feeds)[0].files[0].body;
  EXPECT_EQ(Read(body), captures.sppo[0]);
  const auto meta = nlohmann::json::parse(Read(body.string() + ".meta.json"));
  EXPECT_EQ(meta.at("headers").at("content-encoding").get<std::string>(), "gzip");
  EXPECT_TRUE((*feeds)[0].files[1].repeat);  // the same body again
  EXPECT_EQ((*collector)->feed_stats()[0].repeats, 1);
}

TEST_F(CollectorTest, SealedHoursArePackedAsItGoesAndReadBackTheSame) {
  FROTA_REQUIRE_CAPTURES(captures);
  frota::testing::TempDir dir("collect-compact");
  base::ManualClock clock(kStart);
  FaultServer server([&] { return clock.Now(); });
  server.SetScript("sppo", FeedScript{captures.sppo, "application/json", {}, Fault::kOk});
  auto config = Config(dir.path());
  config.medallion = false;
  auto feed = Feed("rio-sppo", codec::Format::kRioSppo, server.Url("sppo"));
  feed.interval = std::chrono::minutes(5);
  config.feeds = {feed};
  CollectorOptions options;
  options.clock = &clock;
  auto collector = Collector::Open(config, options);
  ASSERT_TRUE(collector.ok());
  base::StopSignal stop;
  // 12:00 to 14:20: hour 12 is sealed from 13:10 on, hour 13 from 14:10; 14 is open.
  ASSERT_TRUE((*collector)->RunVirtual(clock, kStart + std::chrono::minutes(140), stop).ok());
  const auto packs = [&] {
    std::vector<std::string> names;
    for (const auto& e : fs::recursive_directory_iterator(config.archive)) {
      if (e.path().extension() == ".pack") {
        names.push_back(e.path().filename().string());
      }
    }
    std::sort(names.begin(), names.end());
    return names;
  };
  EXPECT_EQ(packs(), (std::vector<std::string>{"hour=12.pack", "hour=13.pack"}));
  EXPECT_FALSE(fs::exists(config.archive / "rio-sppo/date=2024-06-06/hour=12"));
  EXPECT_EQ(
      (*collector)
          ->metrics()
          .GetCounter("frota_collect_bronze_packs_total", "Sealed bronze hours packed by this run")
          .value(),
      2);
  const auto feeds = source::ListArchive(config.archive);
  ASSERT_TRUE(feeds.ok()) << feeds.error().message();
  const auto& files = (*feeds)[0].files;
  ASSERT_EQ(files.size(), 29U);  // every 5 minutes, 12:00 to 14:20
  source::ResponseBodies bodies;
  for (std::size_t i = 0; i < files.size(); ++i) {
    EXPECT_EQ(files[i].packed, i < 24) << files[i].body;
    EXPECT_EQ(files[i].records >= 0, i < 24) << files[i].body;
    const auto body = bodies.Body(files[i].body, files[i].packed);
    ASSERT_TRUE(body.ok()) << body.error().message();
    EXPECT_NE(std::find(captures.sppo.begin(), captures.sppo.end(), *body), captures.sppo.end());
  }
}

TEST_F(CollectorTest, OversizedBodiesAndRefusedConnectionsAreCountedNotFatal) {
  FROTA_REQUIRE_CAPTURES(captures);
  frota::testing::TempDir dir("collect-limits");
  base::ManualClock clock(kStart);
  FaultServer server([&] { return clock.Now(); });
  server.SetScript("sppo", FeedScript{{captures.sppo[0]}, "application/json", {}, Fault::kOk});
  auto config = Config(dir.path());
  config.medallion = false;
  auto big = Feed("rio-sppo", codec::Format::kRioSppo, server.Url("sppo"));
  big.max_body_bytes = 10'000;
  big.max_retries = 0;
  auto gone = Feed("gone", codec::Format::kRioBrt,
                   fmt::format("http://127.0.0.1:{}/feed/x", testing::ClosedPort()));
  config.feeds = {big, gone};
  CollectorOptions options;
  options.clock = &clock;
  auto collector = Collector::Open(config, options);
  ASSERT_TRUE(collector.ok());
  base::StopSignal stop;
  ASSERT_TRUE((*collector)->RunVirtual(clock, kStart + std::chrono::minutes(1), stop).ok());
  const auto stats = (*collector)->feed_stats();
  EXPECT_EQ(stats[0].failures.at("too_large"), stats[0].requests);
  EXPECT_EQ(stats[0].responses, 0);
  EXPECT_EQ(stats[1].failures.at("connection"), stats[1].requests);
  EXPECT_EQ(stats[1].polls, 4);
  EXPECT_EQ(stats[1].requests, 16);  // each poll retried three times
  const auto report =
      nlohmann::json::parse(Read(dir.path() / "reports" / (*collector)->run_id() / "bronze.json"));
  EXPECT_EQ(report.at("status").get<std::string>(), "failed");
  EXPECT_EQ(report.at("feeds").at("gone").at("health").get<std::string>(), "failing");
}

TEST_F(CollectorTest, OpenSkyAnonymousBudgetSpreadsPollsAndTheBoxMayBeEmpty) {
  FROTA_REQUIRE_CAPTURES(captures);
  frota::testing::TempDir dir("collect-opensky");
  base::ManualClock clock(kStart);
  FaultServer server([&] { return clock.Now(); });
  server.SetScript("opensky",
                   FeedScript{{captures.opensky.back()}, "application/json", {}, Fault::kOk});
  auto config = Config(dir.path());
  auto feed = Feed("opensky-rio", codec::Format::kOpenSky, server.Url("opensky"));
  feed.daily_budget = 400;  // anonymous credits per day, 1 per call for a box <= 25 sq deg
  config.feeds = {feed};
  CollectorOptions options;
  options.clock = &clock;
  auto collector = Collector::Open(config, options);
  ASSERT_TRUE(collector.ok());
  base::StopSignal stop;
  ASSERT_TRUE(
      (*collector)
          ->RunVirtual(clock, kStart + std::chrono::hours(24) - std::chrono::seconds(1), stop)
          .ok());
  const auto served = server.Served("opensky");
  EXPECT_LE(served.size(), 400U);
  EXPECT_GE(served.size(), 399U);
  for (std::size_t i = 0; i + 1 < served.size(); ++i) {
    EXPECT_GE(served[i + 1].at - served[i].at, std::chrono::seconds(216));
  }
  const auto s = (*collector)->feed_stats()[0];
  EXPECT_EQ(s.positions, 0);
  EXPECT_EQ(s.decode_failures, 0);
  EXPECT_EQ(s.failures_total(), 0);
}

TEST_F(CollectorTest, OAuthTokensAreFetchedAndSecretsNeverStored) {
  FROTA_REQUIRE_CAPTURES(captures);
  frota::testing::TempDir dir("collect-oauth");
  base::ManualClock clock(kStart);
  FaultServer server([&] { return clock.Now(); });
  server.SetScript("opensky", FeedScript{captures.opensky, "application/json", {}, Fault::kOk});
  ::setenv("FROTA_TEST_CLIENT_ID", "frota-test", 1);
  ::setenv("FROTA_TEST_CLIENT_SECRET", "s3cret", 1);
  auto config = Config(dir.path());
  auto feed = Feed("opensky", codec::Format::kOpenSky, server.Url("opensky"));
  feed.auth.kind = AuthConfig::Kind::kOAuth2;
  feed.auth.token_url = fmt::format("http://127.0.0.1:{}/token", server.port());
  feed.auth.client_id_env = "FROTA_TEST_CLIENT_ID";
  feed.auth.client_secret_env = "FROTA_TEST_CLIENT_SECRET";
  config.feeds = {feed};
  CollectorOptions options;
  options.clock = &clock;
  auto collector = Collector::Open(config, options);
  ASSERT_TRUE(collector.ok());
  base::StopSignal stop;
  // 40 minutes: the 30-minute token is refreshed once, 30 s before it expires.
  ASSERT_TRUE((*collector)->RunVirtual(clock, kStart + std::chrono::minutes(40), stop).ok());
  EXPECT_EQ(server.token_requests(), 2);
  for (const auto& s : server.Served("opensky")) {
    EXPECT_EQ(s.authorization.rfind("Bearer tok-", 0), 0U);
  }
  for (const auto& [name, bytes] : frota::testing::ReadTree(dir.path())) {
    EXPECT_EQ(bytes.find("s3cret"), std::string::npos) << name;
    EXPECT_EQ(bytes.find("tok-1"), std::string::npos) << name;
  }
  ::unsetenv("FROTA_TEST_CLIENT_SECRET");
}

TEST_F(CollectorTest, MetricsAndHealthAreServedWhereConfigured) {
  FROTA_REQUIRE_CAPTURES(captures);
  frota::testing::TempDir dir("collect-metrics");
  base::ManualClock clock(kStart);
  FaultServer server([&] { return clock.Now(); });
  server.SetScript(
      "brt",
      FeedScript{captures.brt, "application/json", {Fault::kOk, Fault::kServerError}, Fault::kOk});
  auto config = Config(dir.path());
  config.metrics_listen = "127.0.0.1:0";
  config.feeds = {Feed("rio-brt", codec::Format::kRioBrt, server.Url("brt"))};
  CollectorOptions options;
  options.clock = &clock;
  auto collector = Collector::Open(config, options);
  ASSERT_TRUE(collector.ok());
  ASSERT_TRUE((*collector)->StartMetricsServer().ok());
  base::StopSignal stop;
  ASSERT_TRUE((*collector)->RunVirtual(clock, kStart + std::chrono::seconds(40), stop).ok());
  httplib::Client client("127.0.0.1", (*collector)->metrics_port());
  const auto metrics = client.Get("/metrics");
  ASSERT_TRUE(metrics);
  EXPECT_EQ(metrics->status, 200);
  const auto s = (*collector)->feed_stats()[0];
  EXPECT_NE(metrics->body.find(
                fmt::format("frota_collect_requests_total{{feed=\"rio-brt\"}} {}", s.requests)),
            std::string::npos)
      << metrics->body;
  EXPECT_NE(
      metrics->body.find("frota_collect_failures_total{feed=\"rio-brt\",kind=\"http_5xx\"} 1"),
      std::string::npos);
  EXPECT_NE(metrics->body.find("frota_collect_rejections_total{feed=\"rio-brt\",reason=\"stale\"}"),
            std::string::npos);
  const auto health = client.Get("/healthz");
  ASSERT_TRUE(health);
  // The run is over (final reports written): the endpoint says so.
  EXPECT_EQ(health->status, 503);
  EXPECT_NE(health->body.find("\"rio-brt\""), std::string::npos);
  // Every interface, as in a container whose network a Prometheus shares.
  MetricsServer everywhere((*collector)->metrics(), [] { return std::pair(true, std::string()); });
  ASSERT_TRUE(everywhere.Start("0.0.0.0:0").ok());
  const auto scraped = httplib::Client("127.0.0.1", everywhere.port()).Get("/metrics");
  ASSERT_TRUE(scraped);
  EXPECT_NE(scraped->body.find(
                fmt::format("frota_collect_requests_total{{feed=\"rio-brt\"}} {}", s.requests)),
            std::string::npos);
  const auto refused = MetricsServer((*collector)->metrics(), [] {
                         return std::pair(true, std::string());
                       }).Start("9464");
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.error().message(), "metrics_listen '9464': expected HOST:PORT");
}

TEST_F(CollectorTest, RealTimeThreadsStopCleanlyAndStatusSummarisesTheRun) {
  FROTA_REQUIRE_CAPTURES(captures);
  frota::testing::TempDir dir("collect-threads");
  FaultServer server([] { return base::SystemClock::Get().Now(); });
  server.SetScript("brt", FeedScript{captures.brt, "application/json", {}, Fault::kOk});
  server.SetScript(
      "gtfs",
      FeedScript{captures.gtfs_rt, "application/x-protobuf", {Fault::kServerError}, Fault::kOk});
  auto config = Config(dir.path());
  auto brt = Feed("rio-brt", codec::Format::kRioBrt, server.Url("brt"));
  brt.interval = std::chrono::milliseconds(100);
  auto gtfs = Feed("gtfs-rt", codec::Format::kGtfsRt, server.Url("gtfs"));
  gtfs.interval = std::chrono::milliseconds(150);
  gtfs.backoff_initial = std::chrono::milliseconds(20);
  config.feeds = {brt, gtfs};
  config.flush_interval = std::chrono::milliseconds(300);
  CollectorOptions options;
  options.stagger = std::chrono::milliseconds(10);
  auto collector = Collector::Open(config, options);
  ASSERT_TRUE(collector.ok());
  base::StopSignal stop;
  ASSERT_TRUE((*collector)->Run(stop, std::chrono::milliseconds(1500)).ok());
  const auto stats = (*collector)->feed_stats();
  EXPECT_EQ(stats[0].requests, static_cast<std::int64_t>(server.Served("brt").size()));
  EXPECT_EQ(stats[1].requests, static_cast<std::int64_t>(server.Served("gtfs").size()));
  EXPECT_GE(stats[0].responses, 5);
  EXPECT_EQ(stats[1].failures.at("http_5xx"), 1);
  EXPECT_EQ(stats[1].retries, 1);

  const auto runs = ListRuns(config.reports, 10);
  ASSERT_TRUE(runs.ok()) << runs.error().message();
  ASSERT_EQ(runs->size(), 1U);
  EXPECT_EQ((*runs)[0].status, "degraded");
  EXPECT_EQ((*runs)[0].responses, stats[0].responses + stats[1].responses);
  const auto text = StatusText(*runs);
  EXPECT_NE(text.find("rio-brt"), std::string::npos) << text;
  const auto json = nlohmann::json::parse(StatusJson(*runs));
  EXPECT_EQ(json.at("runs").at(0).at("feeds").size(), 2U);
}

TEST_F(CollectorTest, KillDuringWritesLeavesNoPartialFileAndTheNextStartCarriesOn) {
  FROTA_REQUIRE_CAPTURES(captures);
  const auto binary = frota::testing::FrotaBinary();
  ASSERT_TRUE(fs::exists(binary)) << "frota binary not built: " << binary;
  frota::testing::TempDir dir("collect-kill");
  FaultServer server([] { return base::SystemClock::Get().Now(); });
  server.SetScript("sppo",
                   FeedScript{captures.sppo, "application/json", {}, Fault::kOk, 30, 1500, false});
  const auto archive = dir.path() / "bronze";
  std::int64_t last_count = 0;
  for (int round = 0; round < 4; ++round) {
    const auto result = frota::testing::RunAndKillAfter(
        {binary.string(), "--quiet", "collect", "--feed", "rio-sppo=rio-sppo," + server.Url("sppo"),
         "--interval", "0.02", "--archive", archive.string(), "--reports",
         (dir.path() / "reports").string(), "--no-medallion"},
        std::chrono::milliseconds(700 + 130 * round));
    EXPECT_EQ(result.signal, SIGKILL) << result.err;
    const auto feeds = source::ListArchive(archive);
    ASSERT_TRUE(feeds.ok()) << feeds.error().message();
    const auto& files = (*feeds)[0].files;
    // Every visible body is complete: one of the variants, byte for byte.
    for (const auto& f : files) {
      const auto body = Read(f.body);
      EXPECT_NE(std::find(captures.sppo.begin(), captures.sppo.end(), body), captures.sppo.end())
          << f.body << " has " << body.size() << " bytes";
    }
    // The next start appends: nothing was overwritten, names keep growing.
    EXPECT_GT(static_cast<std::int64_t>(files.size()), last_count);
    last_count = static_cast<std::int64_t>(files.size());
    std::set<std::string> names;
    for (const auto& f : files) {
      names.insert(f.body.filename().string().substr(14, 6));
    }
    EXPECT_EQ(names.size(), files.size());
  }
}

}  // namespace
}  // namespace frota::collect
