#include "frota/gtfs/csv_reader.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

namespace frota::gtfs {
namespace {

// Hands out its bytes `chunk` at a time, to push records across buffer refills.
class ChunkedSource final : public ByteSource {
 public:
  ChunkedSource(std::string bytes, std::size_t chunk) : bytes_(std::move(bytes)), chunk_(chunk) {}
  base::Result<std::size_t> Read(char* buffer, std::size_t size) override {
    const std::size_t n = std::min({size, chunk_, bytes_.size() - offset_});
    std::copy_n(bytes_.data() + offset_, n, buffer);
    offset_ += n;
    return n;
  }

 private:
  std::string bytes_;
  std::size_t chunk_;
  std::size_t offset_ = 0;
};

struct Parsed {
  std::vector<std::string> header;
  std::vector<std::vector<std::string>> rows;
  std::vector<std::int64_t> lines;
  std::string error;
};

Parsed ParseAll(const std::string& text, std::size_t chunk = 1 << 20,
                std::size_t buffer = CsvReader::kDefaultBufferBytes) {
  Parsed parsed;
  auto reader = CsvReader::Open(std::make_unique<ChunkedSource>(text, chunk), "t.csv", buffer);
  if (!reader.ok()) {
    parsed.error = reader.error().message();
    return parsed;
  }
  parsed.header = reader->header();
  while (true) {
    auto more = reader->Next();
    if (!more.ok()) {
      parsed.error = more.error().message();
      return parsed;
    }
    if (!*more) {
      return parsed;
    }
    std::vector<std::string> row;
    for (std::size_t i = 0; i < reader->field_count(); ++i) {
      row.emplace_back(reader->field(i));
    }
    parsed.rows.push_back(row);
    parsed.lines.push_back(reader->line());
  }
}

using Row = std::vector<std::string>;

TEST(CsvReader, ReadsQuotedCommasDoubledQuotesAndLineBreaksInsideQuotes) {
  const Parsed p =
      ParseAll("id,name\n1,\"a, b\"\n2,\"say \"\"hi\"\"\"\n3,\"two\nlines\"\n4,\"\"\n");
  ASSERT_EQ(p.error, "");
  EXPECT_EQ(p.header, (Row{"id", "name"}));
  ASSERT_EQ(p.rows.size(), 4u);
  EXPECT_EQ(p.rows[0], (Row{"1", "a, b"}));
  EXPECT_EQ(p.rows[1], (Row{"2", "say \"hi\""}));
  EXPECT_EQ(p.rows[2], (Row{"3", "two\nlines"}));
  EXPECT_EQ(p.rows[3], (Row{"4", ""}));
  EXPECT_EQ(p.lines, (std::vector<std::int64_t>{2, 3, 4, 6}));
}

TEST(CsvReader, StripsTheByteOrderMarkAndTrimsHeaderNames) {
  const Parsed p = ParseAll("\xEF\xBB\xBFtrip_id, exact_times \nt1, 1\n");
  ASSERT_EQ(p.error, "");
  EXPECT_EQ(p.header, (Row{"trip_id", "exact_times"}));
  EXPECT_EQ(p.rows[0], (Row{"t1", " 1"})) << "values are kept as written";
}

TEST(CsvReader, AcceptsCrlfLoneCrAndAMissingFinalLineEnd) {
  for (const std::string text : {"a,b\r\n1,2\r\n3,4", "a,b\r1,2\r3,4\r", "a,b\n1,2\n3,4\n"}) {
    const Parsed p = ParseAll(text);
    ASSERT_EQ(p.error, "") << text;
    EXPECT_EQ(p.rows, (std::vector<Row>{{"1", "2"}, {"3", "4"}})) << text;
    EXPECT_EQ(p.lines, (std::vector<std::int64_t>{2, 3})) << text;
  }
}

TEST(CsvReader, SkipsEmptyLinesButCountsThem) {
  const Parsed p = ParseAll("a,b\n\n1,2\r\n\r\n3,4\n\n");
  ASSERT_EQ(p.error, "");
  EXPECT_EQ(p.rows, (std::vector<Row>{{"1", "2"}, {"3", "4"}}));
  EXPECT_EQ(p.lines, (std::vector<std::int64_t>{3, 5}));
}

TEST(CsvReader, SkipsRecordsWhoseFieldsAreAllEmpty) {
  const Parsed p = ParseAll("a,b,c\n1,2,3\n,,\n\"\",,\n4,5,6\n");
  ASSERT_EQ(p.error, "");
  EXPECT_EQ(p.rows, (std::vector<Row>{{"1", "2", "3"}, {"4", "5", "6"}}));
  EXPECT_EQ(p.lines, (std::vector<std::int64_t>{2, 5}));
}

TEST(CsvReader, KeepsEmptyTrailingFields) {
  const Parsed p = ParseAll("a,b,c\n1,,\n");
  ASSERT_EQ(p.error, "");
  EXPECT_EQ(p.rows[0], (Row{"1", "", ""}));
}

TEST(CsvReader, GivesTheSameRecordsWhateverTheReadAndBufferSizes) {
  const std::string text =
      "\xEF\xBB\xBFid,name,note\r\n1,\"a, "
      "\"\"b\"\"\",x\r\n2,\"multi\r\nline\",\r\n\r\n3,c,\"\"\"\"\r\n";
  const Parsed whole = ParseAll(text);
  ASSERT_EQ(whole.error, "");
  ASSERT_EQ(whole.rows.size(), 3u);
  EXPECT_EQ(whole.rows[2], (Row{"3", "c", "\""}));
  for (const std::size_t chunk : {1, 2, 3, 5, 64}) {
    for (std::size_t buffer = 1; buffer <= text.size() + 1; ++buffer) {
      const Parsed p = ParseAll(text, chunk, buffer);
      EXPECT_EQ(p.error, "") << "chunk " << chunk << " buffer " << buffer;
      EXPECT_EQ(p.header, whole.header) << "chunk " << chunk << " buffer " << buffer;
      EXPECT_EQ(p.rows, whole.rows) << "chunk " << chunk << " buffer " << buffer;
      EXPECT_EQ(p.lines, whole.lines) << "chunk " << chunk << " buffer " << buffer;
    }
  }
}

TEST(CsvReader, ReadsRecordsLongerThanItsBuffer) {
  const std::string long_value(600'000, 'x');
  const Parsed p = ParseAll("a,b\n\"" + long_value + "\",2\n3,4\n", 70'000, 1024);
  ASSERT_EQ(p.error, "");
  ASSERT_EQ(p.rows.size(), 2u);
  EXPECT_EQ(p.rows[0][0], long_value);
  EXPECT_EQ(p.rows[1], (Row{"3", "4"}));
}

TEST(CsvReaderErrors, AFieldCountDifferentFromTheHeaderNamesTheLine) {
  EXPECT_EQ(ParseAll("a,b\n1,2\n1,2,3\n").error, "t.csv: line 3: 3 fields, but the header has 2");
  EXPECT_EQ(ParseAll("a,b\n1,2\n\n1\n").error, "t.csv: line 4: 1 fields, but the header has 2");
}

TEST(CsvReaderErrors, AnUnclosedQuoteNamesTheLineWhereItOpened) {
  EXPECT_EQ(ParseAll("a,b\n1,2\n3,\"open\n\n").error,
            "t.csv: line 3: quoted field is not closed before the end of the file");
}

TEST(CsvReaderErrors, TextAfterAClosingQuoteIsAnError) {
  EXPECT_EQ(ParseAll("a,b\n1,\"x\"y\n").error,
            "t.csv: line 2: a quoted field must be followed by a comma or a line end, not 'y'");
}

TEST(CsvReaderErrors, AnEmptyInputHasNoHeader) {
  EXPECT_EQ(ParseAll("").error, "t.csv: empty file (expected a header line)");
  EXPECT_EQ(ParseAll("\xEF\xBB\xBF\r\n\n").error, "t.csv: empty file (expected a header line)");
}

TEST(CsvReader, AHeaderOnlyFileHasNoRecords) {
  const Parsed p = ParseAll("trip_id,arrival_time\n");
  EXPECT_EQ(p.error, "");
  EXPECT_EQ(p.header.size(), 2u);
  EXPECT_TRUE(p.rows.empty());
}

TEST(CsvReader, FindsAndCountsColumns) {
  auto reader = CsvReader::Open(MemorySource("a,b,a\n"), "t.csv");
  ASSERT_TRUE(reader.ok());
  EXPECT_EQ(reader->FindColumn("b"), 1u);
  EXPECT_EQ(reader->FindColumn("a"), 0u);
  EXPECT_EQ(reader->CountColumn("a"), 2u);
  EXPECT_FALSE(reader->FindColumn("c"));
}

}  // namespace
}  // namespace frota::gtfs
