#include "frota/source/poll_journal.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "frota/base/time.h"
#include "frota/source/bronze_archive.h"

namespace frota::source {
namespace {

namespace fs = std::filesystem;

class PollJournalTest : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ =
        fs::temp_directory_path() /
        ("frota_poll_journal_" + std::to_string(::testing::UnitTest::GetInstance()->random_seed()) +
         "_" + ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(root_);
  }
  void TearDown() override { fs::remove_all(root_); }

  static model::PollRow Poll(std::int64_t at_us, int status, std::string failure = "") {
    model::PollRow p;
    p.feed_id = "rio-brt";
    p.polled_at = base::FromUnixMicros(at_us);
    p.http_status = status;
    p.failure = std::move(failure);
    p.bytes = status == 200 ? 1234 : 0;
    p.duration_ms = 81.5;
    if (status == 200) {
      p.records = 7;
      p.body = "bronze/rio-brt/date=2024-06-05/hour=10/x.json";
    }
    p.run_id = "run-1";
    return p;
  }

  fs::path root_;
};

TEST_F(PollJournalTest, LinesRoundTripExactly) {
  const auto ok = Poll(1717581605123456, 200);
  const auto parsed = ParsePollLine(PollLine(ok));
  ASSERT_TRUE(parsed.ok()) << parsed.error().message();
  EXPECT_EQ(*parsed, ok);
  auto timeout = Poll(1717581635000000, 0, "timeout");
  timeout.attempt = 3;
  EXPECT_EQ(*ParsePollLine(PollLine(timeout)), timeout);
  EXPECT_FALSE(ParsePollLine("{\"feed_id\": \"x\"}").ok());
  EXPECT_FALSE(ParsePollLine("not json").ok());
}

TEST_F(PollJournalTest, AReaderTakesCompleteLinesInOrderAcrossDatesAndResumes) {
  auto writer = PollJournalWriter::Open(root_, "rio-brt");
  ASSERT_TRUE(writer.ok()) << writer.error().message();
  const std::int64_t day = 86'400'000'000;
  const std::int64_t t0 = 1717545600000000;  // 2024-06-05 00:00 UTC
  ASSERT_TRUE((*writer)->Append(Poll(t0 + 1, 200)).ok());
  ASSERT_TRUE((*writer)->Append(Poll(t0 + 2, 503, "http_5xx")).ok());
  ASSERT_TRUE((*writer)->Append(Poll(t0 + day + 3, 200)).ok());  // the next UTC date: a new file
  EXPECT_TRUE(fs::exists(root_ / "_polls/rio-brt/date=2024-06-05.jsonl"));
  EXPECT_TRUE(fs::exists(root_ / "_polls/rio-brt/date=2024-06-06.jsonl"));

  PollJournalReader reader(root_, {});
  std::vector<JournalPoll> polls;
  ASSERT_TRUE(reader.Read(polls).ok());
  ASSERT_EQ(polls.size(), 3U);
  for (std::size_t i = 0; i < polls.size(); ++i) {
    EXPECT_EQ(polls[i].offset, static_cast<std::int64_t>(i));
    EXPECT_EQ(polls[i].source, (root_ / "_polls/rio-brt").lexically_normal().string());
  }
  EXPECT_EQ(polls[1].poll.failure, "http_5xx");
  // A half-written line is not read until its newline arrives.
  {
    std::ofstream out(root_ / "_polls/rio-brt/date=2024-06-06.jsonl", std::ios::app);
    out << PollLine(Poll(t0 + day + 4, 200)).substr(0, 20);
  }
  polls.clear();
  ASSERT_TRUE(reader.Read(polls).ok());
  EXPECT_TRUE(polls.empty());
  const auto progress = reader.Progress();
  ASSERT_EQ(progress.size(), 1U);
  EXPECT_EQ(progress[0].next_offset.value(), 3);
  EXPECT_GE(progress[0].partition.value(), PollJournalReader::kPollPartitionBase);
  EXPECT_TRUE(reader.Owns(progress[0]));

  // A writer opened after a crash cuts the torn line; what it appends is read next.
  writer->reset();
  auto again = PollJournalWriter::Open(root_, "rio-brt");
  ASSERT_TRUE(again.ok());
  ASSERT_TRUE((*again)->Append(Poll(t0 + day + 5, 304)).ok());
  polls.clear();
  ASSERT_TRUE(reader.Read(polls).ok());
  ASSERT_EQ(polls.size(), 1U);
  EXPECT_EQ(polls[0].offset, 3);
  EXPECT_EQ(polls[0].poll.http_status, 304);

  // Resuming from the progress skips what was committed.
  PollJournalReader resumed(root_, {{progress[0].source, progress[0].partition, base::Offset(2)}});
  polls.clear();
  ASSERT_TRUE(resumed.Read(polls).ok());
  ASSERT_EQ(polls.size(), 2U);
  EXPECT_EQ(polls[0].offset, 2);
  EXPECT_EQ(polls[0].poll.polled_at, base::FromUnixMicros(t0 + day + 3));
}

TEST_F(PollJournalTest, AClockSteppingBackNeverWritesToAnOlderFile) {
  auto writer = PollJournalWriter::Open(root_, "rio-brt");
  ASSERT_TRUE(writer.ok());
  const std::int64_t t0 = 1717545600000000;  // 2024-06-05 00:00 UTC
  ASSERT_TRUE((*writer)->Append(Poll(t0 + 5, 200)).ok());
  ASSERT_TRUE((*writer)->Append(Poll(t0 - 5, 200)).ok());  // 2024-06-04 by its time
  EXPECT_FALSE(fs::exists(root_ / "_polls/rio-brt/date=2024-06-04.jsonl"));
  writer->reset();
  auto again = PollJournalWriter::Open(root_, "rio-brt");  // a restart remembers too
  ASSERT_TRUE((*again)->Append(Poll(t0 - 10, 200)).ok());
  EXPECT_FALSE(fs::exists(root_ / "_polls/rio-brt/date=2024-06-04.jsonl"));
  PollJournalReader reader(root_, {});
  std::vector<JournalPoll> polls;
  ASSERT_TRUE(reader.Read(polls).ok());
  ASSERT_EQ(polls.size(), 3U);
  EXPECT_EQ(polls[2].poll.polled_at, base::FromUnixMicros(t0 - 10));
}

TEST_F(PollJournalTest, AFeedCannotBeCalledLikeTheJournalFolder) {
  const auto refused = BronzeWriter::Open(root_, {"_polls", codec::Format::kRioSppo, {}, "", ""});
  ASSERT_FALSE(refused.ok());
}

}  // namespace
}  // namespace frota::source
