#include "frota/source/bronze_retention.h"

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <random>

#include "frota/base/file.h"
#include "frota/source/bronze_archive.h"
#include "frota/source/bronze_compact.h"
#include "frota/source/input.h"
#include "frota/source/poll_journal.h"
#include "frota/source/replay_source.h"
#include "frota/testing/shared_data.h"
#include "frota/testing/subprocess.h"

namespace frota::source {
namespace {

namespace fs = std::filesystem;

struct Seen {
  std::string partition;
  std::int64_t offset;
  std::string source;
  bool operator==(const Seen&) const = default;
};

std::vector<Seen> Replay(const fs::path& root) {
  auto partitions = ExpandInputs({InputSpec{std::nullopt, true, root}}, "");
  EXPECT_TRUE(partitions.ok()) << partitions.error().message();
  if (!partitions.ok()) {
    return {};
  }
  model::SourceCatalog catalog;
  auto replay = ReplaySource::Open(*partitions, &catalog, {}, {});
  std::vector<Seen> out;
  std::vector<SourceRecord> batch;
  while (true) {
    const auto more = (*replay)->Next(batch, 64);
    EXPECT_TRUE(more.ok()) << more.error().message();
    if (!more.ok() || !*more) {
      return out;
    }
    for (const auto& r : batch) {
      const auto source = std::visit([](const auto& x) { return x.source.source; }, r.record);
      // Without a resume, partition ids follow the sorted inputs.
      const auto& input = (*replay)->partitions()[static_cast<std::size_t>(r.partition.value())];
      out.push_back({fs::path(input.name).filename().string(), r.offset, catalog.Name(source)});
    }
  }
}

std::vector<JournalPoll> Polls(const fs::path& root) {
  PollJournalReader reader(root, {});
  std::vector<JournalPoll> polls;
  EXPECT_TRUE(reader.Read(polls).ok());
  return polls;
}

// Two feeds polled every 20 minutes for a day and a half (hours 00 of the 13th to 12 of
// the 14th), the older half packed; a poll journal line per response.
class Retention : public ::testing::Test {
 protected:
  void SetUp() override {
    const auto gtfs = testing::SharedFile("gtfs-rt/bullrunner/bullrunner-vehicle-positions.pb");
    const auto brt = testing::SharedFile("rio-api-snapshots/brt_api_realtime_2024-01-13.json");
    if (!gtfs || !brt) {
      if (testing::SharedDataOptional()) {
        GTEST_SKIP() << "real captures missing";
      }
      FAIL() << "real captures missing under " << testing::SharedDataDir();
    }
    fs::copy(Template(), root(), fs::copy_options::recursive);
  }
  // Written once (every file fsynced: seconds), copied for each test.
  static fs::path Template() {
    static testing::TempDir dir("bronze-retention-template");
    static bool written = false;
    if (!written) {
      Write(dir.path());
      written = true;
    }
    return dir.path();
  }
  static void Write(const fs::path& root) {
    const auto gtfs = testing::SharedFile("gtfs-rt/bullrunner/bullrunner-vehicle-positions.pb");
    const auto brt = testing::SharedFile("rio-api-snapshots/brt_api_realtime_2024-01-13.json");
    auto bull = BronzeWriter::Open(root, {"bull", codec::Format::kGtfsRt, {}, "UTC", ""});
    auto rio = BronzeWriter::Open(
        root, {"rio-brt", codec::Format::kRioBrt, model::Mode::kBrt, "America/Sao_Paulo", ""});
    auto journal = PollJournalWriter::Open(root, "bull");
    ASSERT_TRUE(bull.ok() && rio.ok() && journal.ok());
    const auto gtfs_body = *base::ReadFile(*gtfs);
    const auto brt_body = *base::ReadFile(*brt);
    auto t = *base::ParseIso8601("2024-01-13T00:05:00Z");
    for (int i = 0; t < *base::ParseIso8601("2024-01-14T12:00:00Z"); ++i) {
      ResponseEnvelope e;
      e.ingest_time = t;
      const auto written = (*bull)->Write(e, gtfs_body);
      ASSERT_TRUE(written.ok());
      ASSERT_TRUE((*rio)->Write(e, i % 7 == 3 ? std::string("<html/>") : brt_body).ok());
      model::PollRow poll;
      poll.feed_id = "bull";
      poll.polled_at = t;
      poll.http_status = 200;
      poll.body = written->string();
      ASSERT_TRUE((*journal)->Append(poll).ok());
      t += std::chrono::minutes(20);
    }
    ASSERT_TRUE(CompactArchive(root, *base::ParseIso8601("2024-01-14T00:00:00Z")).ok());
  }
  [[nodiscard]] fs::path root() const { return dir_.path() / "bronze"; }
  // Everything committed: the offsets after the last record of each feed and journal.
  [[nodiscard]] CommittedOffsets AllCommitted() const {
    CommittedOffsets c;
    for (const auto& s : Replay(root())) {
      c.feeds[s.partition] = std::max(c.feeds[s.partition], s.offset + 1);
    }
    for (const auto& p : Polls(root())) {
      c.journals["bull"] = std::max(c.journals["bull"], p.offset + 1);
    }
    return c;
  }
  static std::vector<Seen> From(const std::vector<Seen>& all, const std::string& feed_hour_end) {
    std::vector<Seen> out;
    for (const auto& s : all) {
      if (s.source.find("date=") != std::string::npos &&
          s.source.substr(s.source.find("date=")) >= feed_hour_end) {
        out.push_back(s);
      }
    }
    return out;
  }

  testing::TempDir dir_{"bronze-retention"};
};

TEST_F(Retention, RemovesOldCommittedHoursAndKeepsOffsetsAndSources) {
  const auto all = Replay(root());
  const auto polls = Polls(root());
  // Everything before 2024-01-13T10:00 goes, packed hours all of it.
  const auto before = *base::ParseIso8601("2024-01-13T10:00:00Z");
  const auto report = RemoveArchivedBefore(root(), before, AllCommitted());
  ASSERT_TRUE(report.ok()) << report.error().message();
  ASSERT_EQ(report->removed.size(), 2U);  // the two feeds; the journal's day has not ended
  EXPECT_EQ(report->removed[0].feed, "bull");
  EXPECT_EQ(report->removed[0].hours, 10);
  EXPECT_EQ(report->removed[0].responses, 30);
  EXPECT_EQ(report->removed[0].records, 300);
  EXPECT_EQ(report->removed[0].files, 10);
  EXPECT_EQ(report->removed[0].last, "date=2024-01-13/hour=09");
  EXPECT_FALSE(fs::exists(root() / "bull/date=2024-01-13/hour=09.pack"));
  EXPECT_TRUE(fs::exists(root() / "bull/date=2024-01-13/hour=10.pack"));
  const auto ledger = ReadRemovedPrefix(root() / "bull");
  ASSERT_TRUE(ledger.ok());
  EXPECT_EQ(ledger->through, "date=2024-01-13/hour=09");
  EXPECT_EQ(ledger->records, 300);
  // The kept records have their old offsets and sources.
  const auto kept = Replay(root());
  EXPECT_EQ(kept, From(all, "date=2024-01-13/hour=10"));
  ASSERT_FALSE(kept.empty());
  EXPECT_EQ(kept.front().offset, 300);

  // Loose hours too, once their day has ended: and the journal's first day.
  const auto later =
      RemoveArchivedBefore(root(), *base::ParseIso8601("2024-01-14T06:00:00Z"), AllCommitted());
  ASSERT_TRUE(later.ok()) << later.error().message();
  ASSERT_EQ(later->removed.size(), 3U);
  EXPECT_TRUE(later->removed[2].journal);
  EXPECT_EQ(later->removed[2].records, 72);  // a line every 20 minutes for a day
  EXPECT_EQ(Replay(root()), From(all, "date=2024-01-14/hour=06"));
  const auto rest = Polls(root());
  ASSERT_FALSE(rest.empty());
  EXPECT_EQ(rest.front().offset, 72);
  EXPECT_EQ(rest.front().poll.polled_at, polls[72].poll.polled_at);
}

TEST_F(Retention, NeverRemovesWhatIsNotCommittedNorTheNewestHour) {
  const auto all = Replay(root());
  CommittedOffsets committed = AllCommitted();
  committed.feeds.erase("rio-brt");  // nothing of it committed
  committed.feeds["bull"] = 95;      // into the fourth hour (30 records an hour)
  committed.journals["bull"] = 10;   // into the first day
  const auto report = RemoveArchivedBefore(root(), base::Timestamp::max(), committed);
  ASSERT_TRUE(report.ok());
  ASSERT_EQ(report->removed.size(), 1U);
  EXPECT_EQ(report->removed[0].hours, 3);
  EXPECT_EQ(report->removed[0].records, 90);
  EXPECT_EQ(report->kept.size(), 3U);
  // Everything committed, and every hour over: all but the newest hour go.
  const auto rest = RemoveArchivedBefore(root(), base::Timestamp::max(), AllCommitted());
  ASSERT_TRUE(rest.ok());
  const auto hours = ListHours(root() / "bull");
  ASSERT_TRUE(hours.ok());
  EXPECT_EQ(*hours, std::vector<std::string>{"date=2024-01-14/hour=11"});
  EXPECT_EQ(Replay(root()), From(all, "date=2024-01-14/hour=11"));
}

TEST_F(Retention, CommittedOfFindsTheArchivesFeedsHoweverItIsSpelled) {
  std::vector<engine::SourceProgress> progress = {
      {(root() / "bull").string(), base::PartitionId(0), base::Offset(5)},
      {(root() / "." / "rio-brt").string(), base::PartitionId(1), base::Offset(7)},
      {(root() / "_polls" / "bull").string(), base::PartitionId(1'000'000), base::Offset(3)},
      {"/elsewhere/bull", base::PartitionId(2), base::Offset(9)}};
  const auto committed = CommittedOf(root() / "x" / "..", progress);
  EXPECT_EQ(committed.feeds, (std::map<std::string, std::int64_t>{{"bull", 5}, {"rio-brt", 7}}));
  EXPECT_EQ(committed.journals, (std::map<std::string, std::int64_t>{{"bull", 3}}));
}

TEST_F(Retention, MeasuresBytesOnDisk) {
  const auto usage = MeasureArchive(root());
  ASSERT_TRUE(usage.ok());
  EXPECT_GT(usage->bytes, 0);
  EXPECT_GE(usage->disk_bytes, usage->bytes / 2);
  EXPECT_EQ(usage->disk_bytes_by_folder.size(), 3U);  // bull, rio-brt, _polls
  ASSERT_TRUE(RemoveArchivedBefore(root(), base::Timestamp::max(), AllCommitted()).ok());
  const auto after = MeasureArchive(root());
  ASSERT_TRUE(after.ok());
  EXPECT_LT(after->bytes, usage->bytes);
  EXPECT_LT(after->files, usage->files);
}

// SIGKILL at random moments of a retention: a reader sees either nothing or all of it
// removed (the ledger is written first), never other offsets; the next call finishes.
TEST_F(Retention, ASigkillAtAnyMomentLosesNothingThatStaysAndTheNextCallFinishes) {
  const auto all = Replay(root());
  const auto polls = Polls(root());
  const auto committed = AllCommitted();
  const auto before = *base::ParseIso8601("2024-01-14T06:00:00Z");
  const fs::path pristine = dir_.path() / "pristine";
  fs::copy(root(), pristine, fs::copy_options::recursive);
  const auto time_it = std::chrono::steady_clock::now();
  ASSERT_TRUE(RemoveArchivedBefore(root(), before, committed).ok());
  const auto took = std::chrono::steady_clock::now() - time_it;
  const auto expected = Replay(root());
  const auto expected_polls = Polls(root());
  std::mt19937 random(42);
  int interrupted = 0;
  for (int round = 0; round < 30; ++round) {
    fs::remove_all(root());
    fs::copy(pristine, root(), fs::copy_options::recursive);
    const auto delay = std::chrono::duration_cast<std::chrono::microseconds>(took * 1.2).count();
    const pid_t child = ::fork();
    ASSERT_GE(child, 0);
    if (child == 0) {
      const auto done = RemoveArchivedBefore(root(), before, committed);
      ::_exit(done.ok() ? 0 : 1);
    }
    ::usleep(
        static_cast<useconds_t>(std::uniform_int_distribution<std::int64_t>(0, delay)(random)));
    ::kill(child, SIGKILL);
    int status = 0;
    ::waitpid(child, &status, 0);
    interrupted += WIFSIGNALED(status) ? 1 : 0;
    // Feeds are removed one after another, each with its own ledger: each feed's records
    // are all there or all that should stay.
    const auto seen = Replay(root());
    for (const auto* feed : {"bull", "rio-brt"}) {
      const auto of = [&](const std::vector<Seen>& v) {
        std::vector<Seen> out;
        std::copy_if(v.begin(), v.end(), std::back_inserter(out),
                     [&](const Seen& s) { return s.partition == feed; });
        return out;
      };
      EXPECT_TRUE(of(seen) == of(all) || of(seen) == of(expected)) << feed << " round " << round;
    }
    const auto seen_polls = Polls(root());
    EXPECT_TRUE(seen_polls.size() == polls.size() || seen_polls.size() == expected_polls.size());
    ASSERT_TRUE(RemoveArchivedBefore(root(), before, committed).ok());
    EXPECT_EQ(Replay(root()), expected) << "round " << round;
    const auto finished = Polls(root());
    ASSERT_EQ(finished.size(), expected_polls.size());
    EXPECT_EQ(finished.front().offset, expected_polls.front().offset);
    for (const auto* feed : {"bull", "rio-brt"}) {
      const auto hours = ListHours(root() / feed);
      ASSERT_TRUE(hours.ok());
      EXPECT_EQ(hours->front(), "date=2024-01-14/hour=06") << "round " << round;
    }
  }
  EXPECT_GT(interrupted, 5);
}

}  // namespace
}  // namespace frota::source
