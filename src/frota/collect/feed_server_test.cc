#include "frota/collect/feed_server.h"

#include <gtest/gtest.h>
#include <httplib.h>
#include <spdlog/spdlog.h>

#include <nlohmann/json.hpp>

#include "frota/base/file.h"
#include "frota/collect/collector.h"
#include "frota/collect/testing/fault_server.h"
#include "frota/source/bronze_archive.h"
#include "frota/testing/subprocess.h"

namespace frota::collect {
namespace {

namespace fs = std::filesystem;
using std::chrono::seconds;

const base::Timestamp kFirst = *base::ParseIso8601("2024-06-06T12:00:00Z");
// The wall clock of the tests: another day than the archive's, as for any recorded day.
const base::Timestamp kWall = *base::ParseIso8601("2026-12-07T09:00:00Z");

std::int64_t Millis(base::Timestamp t) { return base::ToUnixMicros(t) / 1000; }

// Writes responses of a Rio SPPO feed at `first` + each offset, 3 buses each; returns the
// bodies in order.
std::vector<std::string> WriteSppoFeed(const fs::path& archive, const std::string& feed_id,
                                       const std::vector<seconds>& offsets) {
  source::FeedInfo info;
  info.feed_id = feed_id;
  info.format = codec::Format::kRioSppo;
  auto writer = source::BronzeWriter::Open(archive, info);
  EXPECT_TRUE(writer.ok()) << writer.error().message();
  std::vector<std::string> bodies;
  for (std::size_t i = 0; i < offsets.size(); ++i) {
    const auto at = kFirst + offsets[i];
    bodies.push_back(
        testing::SppoResponse(static_cast<int>(i), 3, Millis(at), 100, /*spacing_ms=*/2000));
    source::ResponseEnvelope envelope;
    envelope.ingest_time = at;
    EXPECT_TRUE((*writer)->Write(envelope, bodies.back()).ok());
  }
  return bodies;
}

std::vector<seconds> EveryFifteenSeconds(int responses) {
  std::vector<seconds> offsets;
  for (int i = 0; i < responses; ++i) {
    offsets.push_back(seconds(15 * i));
  }
  return offsets;
}

class FeedServerTest : public ::testing::Test {
 protected:
  void SetUp() override { spdlog::set_level(spdlog::level::err); }
  void TearDown() override { spdlog::set_level(spdlog::level::info); }

  std::unique_ptr<FeedServer> Start(FeedServerOptions options) {
    options.archive = dir_.path() / "bronze";
    options.listen = "127.0.0.1:0";
    options.clock = &clock_;
    auto server = FeedServer::Open(std::move(options));
    EXPECT_TRUE(server.ok()) << server.error().message();
    if (!server.ok()) {
      return nullptr;
    }
    EXPECT_TRUE((*server)->Start().ok());
    client_ = std::make_unique<httplib::Client>("127.0.0.1", (*server)->port());
    return std::move(*server);
  }

  httplib::Result Get(const std::string& path) { return client_->Get(path); }

  frota::testing::TempDir dir_{"feed-server"};
  base::ManualClock clock_{kWall};
  std::unique_ptr<httplib::Client> client_;
};

TEST_F(FeedServerTest, ServesTheResponseTheArchiveHoldsAtItsTimeByteForByte) {
  const auto bodies = WriteSppoFeed(dir_.path() / "bronze", "rio-sppo", EveryFifteenSeconds(4));
  const auto server = Start({});
  ASSERT_NE(server, nullptr);
  EXPECT_EQ(server->ArchiveTime(), kFirst);
  EXPECT_EQ(server->Url("rio-sppo"),
            "http://127.0.0.1:" + std::to_string(server->port()) + "/feed/rio-sppo");
  for (const auto& [elapsed, expected] : std::vector<std::pair<int, std::size_t>>{
           {0, 0}, {14, 0}, {15, 1}, {29, 1}, {45, 3}, {74, 3}}) {
    clock_.AdvanceTo(kWall + seconds(elapsed));
    const auto res = Get("/feed/rio-sppo?dataInicial=x&dataFinal=y");
    ASSERT_TRUE(res) << elapsed;
    EXPECT_EQ(res->status, 200) << elapsed;
    EXPECT_EQ(res->body, bodies[expected]) << elapsed;
    EXPECT_EQ(res->get_header_value("Content-Type"), "application/json");
  }
  // The last response was current for twice the feed's interval (30 s), then no more.
  clock_.AdvanceTo(kWall + seconds(76));
  EXPECT_EQ(Get("/feed/rio-sppo")->status, 503);
  EXPECT_EQ(Get("/feed/elsewhere")->status, 404);
  EXPECT_EQ(Get("/")->status, 404);
}

TEST_F(FeedServerTest, AGapInTheArchiveIsAnOutageAndTheSpeedScalesTime) {
  // Responses every 15 s, none from 30 s to 120 s: the collector saw an outage there.
  const auto bodies = WriteSppoFeed(dir_.path() / "bronze", "rio-sppo",
                                    {seconds(0), seconds(15), seconds(30), seconds(120)});
  FeedServerOptions options;
  options.speed = 10;
  options.start = kFirst - seconds(20);
  const auto server = Start(options);
  ASSERT_NE(server, nullptr);
  EXPECT_EQ(Get("/feed/rio-sppo")->status, 503);  // before the first response
  clock_.AdvanceTo(kWall + seconds(2));           // archive time: first + 0 s
  EXPECT_EQ(Get("/feed/rio-sppo")->body, bodies[0]);
  clock_.AdvanceTo(kWall + seconds(8));  // first + 60 s: 30 s after the last one before the gap
  EXPECT_EQ(Get("/feed/rio-sppo")->body, bodies[2]);
  clock_.AdvanceTo(kWall + std::chrono::milliseconds(8100));
  EXPECT_EQ(Get("/feed/rio-sppo")->status, 503);
  clock_.AdvanceTo(kWall + seconds(14));  // first + 120 s
  EXPECT_EQ(Get("/feed/rio-sppo")->body, bodies[3]);
}

TEST_F(FeedServerTest, FaultsFallOnEveryNthRequestOfEachFeed) {
  const auto bodies = WriteSppoFeed(dir_.path() / "bronze", "rio-sppo", EveryFifteenSeconds(8));
  WriteSppoFeed(dir_.path() / "bronze", "other", EveryFifteenSeconds(8));
  FeedServerOptions options;
  auto faults = ParseFeedFaults({"rate-limit=3", "server-error=4", "repeat=5", "truncated=7"});
  ASSERT_TRUE(faults.ok()) << faults.error().message();
  options.faults = *faults;
  options.retry_after = seconds(45);
  const auto server = Start(options);
  ASSERT_NE(server, nullptr);
  std::vector<int> statuses;
  for (int request = 1; request <= 8; ++request) {
    clock_.AdvanceTo(kWall + seconds(15 * (request - 1)));
    const auto res = Get("/feed/rio-sppo");
    if (request == 7) {
      // Content-Length says more than arrives: the client reports the broken body.
      EXPECT_TRUE(!res || res->body.size() < bodies[6].size());
      statuses.push_back(res ? res->status : -1);
      continue;
    }
    ASSERT_TRUE(res) << request;
    statuses.push_back(res->status);
    if (request == 3) {
      EXPECT_EQ(res->get_header_value("Retry-After"), "45");
    }
    if (request == 5) {
      EXPECT_EQ(res->body, bodies[1]);  // request 2's response again, not the 5th
    } else if (res->status == 200) {
      EXPECT_EQ(res->body, bodies[static_cast<std::size_t>(request - 1)]) << request;
    }
  }
  EXPECT_EQ(statuses[0], 200);
  EXPECT_EQ(statuses[2], 429);
  EXPECT_EQ(statuses[3], 500);
  EXPECT_EQ(statuses[5], 429);
  EXPECT_EQ(statuses[7], 500);  // 8: server-error (4) comes before nothing else matching
  // Another feed counts its own requests: its first is not a fault.
  EXPECT_EQ(Get("/feed/other")->status, 200);

  const auto health = Get("/healthz");
  ASSERT_TRUE(health);
  EXPECT_EQ(health->status, 200);
  const auto doc = nlohmann::json::parse(health->body);
  const auto& sppo = doc.at("feeds").at(1).at("feed") == "rio-sppo" ? doc.at("feeds").at(1)
                                                                    : doc.at("feeds").at(0);
  EXPECT_EQ(sppo.at("requests"), 8);
  EXPECT_EQ(sppo.at("served"), 3);  // requests 1, 2, 5 (the repeat); 7 was cut
  EXPECT_EQ(sppo.at("faults").at("rate-limit"), 2);
  EXPECT_EQ(sppo.at("faults").at("server-error"), 2);
  EXPECT_EQ(sppo.at("faults").at("repeat"), 1);
  EXPECT_EQ(sppo.at("faults").at("truncated"), 1);
}

TEST_F(FeedServerTest, HealthIsUnhealthyOnceNoFeedHasACurrentResponse) {
  WriteSppoFeed(dir_.path() / "bronze", "rio-sppo", EveryFifteenSeconds(2));
  const auto server = Start({});
  ASSERT_NE(server, nullptr);
  EXPECT_EQ(Get("/healthz")->status, 200);
  clock_.AdvanceTo(kWall + seconds(46));
  const auto health = Get("/healthz");
  EXPECT_EQ(health->status, 503);
  EXPECT_EQ(nlohmann::json::parse(health->body).at("healthy"), false);
}

TEST_F(FeedServerTest, RefusesBadOptionsWithAClearError) {
  auto refused = [&](FeedServerOptions options) {
    auto server = FeedServer::Open(std::move(options));
    EXPECT_FALSE(server.ok());
    return server.ok() ? std::string() : server.error().message();
  };
  FeedServerOptions empty;
  empty.archive = dir_.path() / "bronze";
  fs::create_directories(empty.archive);
  EXPECT_NE(refused(empty).find("not a bronze archive"), std::string::npos);
  WriteSppoFeed(dir_.path() / "bronze", "quiet", {});
  EXPECT_NE(refused(empty).find("no archived response"), std::string::npos);
  WriteSppoFeed(dir_.path() / "bronze", "rio-sppo", EveryFifteenSeconds(1));
  FeedServerOptions slow = empty;
  slow.speed = 0;
  EXPECT_NE(refused(slow).find("--speed"), std::string::npos);
  FeedServerOptions nowhere = empty;
  nowhere.listen = "8000";
  EXPECT_NE(refused(nowhere).find("--listen '8000'"), std::string::npos);
  for (const char* text : {"rate-limit", "rate-limit=0", "teapot=3", "repeat=x", "=2"}) {
    const auto faults = ParseFeedFaults({text});
    ASSERT_FALSE(faults.ok()) << text;
    EXPECT_NE(faults.error().message().find(text), std::string::npos);
  }
}

// The collector polling the feed server archives what the server sent: every 200 byte for
// byte, every fault counted as the failure it is.
TEST_F(FeedServerTest, ACollectorArchivesExactlyWhatTheFeedServerServed) {
  const auto bodies = WriteSppoFeed(dir_.path() / "bronze", "rio-sppo", EveryFifteenSeconds(40));
  FeedServerOptions options;
  auto faults = ParseFeedFaults({"rate-limit=9", "server-error=5", "truncated=7", "repeat=4"});
  ASSERT_TRUE(faults.ok());
  options.faults = *faults;
  options.retry_after = seconds(20);
  const auto server = Start(options);
  ASSERT_NE(server, nullptr);

  CollectorConfig config;
  config.archive = dir_.path() / "collected";
  config.silver = dir_.path() / "silver";
  config.gold = dir_.path() / "gold";
  config.reports = dir_.path() / "reports";
  FeedConfig feed;
  feed.id = "rio-sppo";
  feed.format = codec::Format::kRioSppo;
  feed.url = server->Url("rio-sppo");
  feed.interval = seconds(15);
  feed.timeout = std::chrono::milliseconds(1500);
  feed.connect_timeout = std::chrono::milliseconds(1000);
  feed.backoff_initial = seconds(1);
  feed.backoff_max = seconds(4);
  config.feeds = {feed};
  CollectorOptions collector_options;
  collector_options.clock = &clock_;
  collector_options.run_id = "feed-server";
  auto collector = Collector::Open(config, collector_options);
  ASSERT_TRUE(collector.ok()) << collector.error().message();
  base::StopSignal stop;
  ASSERT_TRUE((*collector)->RunVirtual(clock_, kWall + std::chrono::minutes(9), stop).ok());

  const auto health = nlohmann::json::parse(Get("/healthz")->body).at("feeds").at(0);
  const auto stats = (*collector)->feed_stats().at(0);
  EXPECT_EQ(stats.requests, health.at("requests").get<std::int64_t>());
  EXPECT_EQ(stats.responses, health.at("served").get<std::int64_t>());
  EXPECT_GT(stats.responses, 20);
  using Counts = std::map<std::string, std::int64_t>;
  EXPECT_EQ(stats.failures, (Counts{{"http_5xx", health.at("faults").at("server-error")},
                                    {"rate_limited", health.at("faults").at("rate-limit")},
                                    {"truncated", health.at("faults").at("truncated")}}));
  EXPECT_GT(health.at("faults").at("repeat").get<std::int64_t>(), 0);
  EXPECT_EQ(stats.repeats, health.at("faults").at("repeat").get<std::int64_t>());

  const auto collected = source::ListArchive(config.archive);
  ASSERT_TRUE(collected.ok());
  ASSERT_EQ(collected->size(), 1U);
  std::size_t next = 0;  // the served bodies are the archive's, in order
  for (const auto& file : collected->front().files) {
    const auto body = *base::ReadFile(file.body);
    const auto found =
        std::find(bodies.begin() + static_cast<std::ptrdiff_t>(next), bodies.end(), body);
    ASSERT_NE(found, bodies.end()) << file.body;
    next = static_cast<std::size_t>(found - bodies.begin());
  }
}

}  // namespace
}  // namespace frota::collect
