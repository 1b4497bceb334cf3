#include "frota/sink/pg_copy.h"

#include <gtest/gtest.h>

#include <bit>
#include <string>
#include <vector>

namespace frota::sink {
namespace {

// Three rows of (text, bigint, NULL, double precision) and the trailer, as a server sends
// them.
std::string ThreeRows() {
  PgCopyWriter w;
  for (int i = 0; i < 3; ++i) {
    w.Row(4);
    w.Text(std::string(static_cast<std::size_t>(i) * 5, 'x') + "\t\n,\"");
    w.Int64(-1'000'000'007LL * i);
    w.Null();
    w.Float64(-43.123456789012345 + i);
  }
  return w.Finish();
}

struct Row {
  std::string text;
  std::int64_t number;
  bool null;
  double real;
  bool operator==(const Row&) const = default;
};

// Feeds `stream` in pieces of `size` bytes (the last one shorter).
std::vector<Row> ReadInPieces(const std::string& stream, std::size_t size, bool* ended) {
  std::vector<Row> rows;
  PgCopyRows copy;
  const auto on_row = [&](PgCopyReader& r) -> base::Status {
    auto fields = r.NextRow();
    EXPECT_TRUE(fields.ok() && *fields == std::optional<int>(4));
    auto text = r.Field();
    auto number = r.Field();
    auto null = r.Field();
    auto real = r.Field();
    EXPECT_TRUE(text.ok() && number.ok() && null.ok() && real.ok());
    rows.push_back({std::string(**text),
                    static_cast<std::int64_t>(PgCopyReader::BigEndian(**number)),
                    !null->has_value(), std::bit_cast<double>(PgCopyReader::BigEndian(**real))});
    return base::Status::Ok();
  };
  for (std::size_t at = 0; at < stream.size(); at += size) {
    const auto fed = copy.Feed(std::string_view(stream).substr(at, size), on_row);
    EXPECT_TRUE(fed.ok()) << fed.error().message();
  }
  EXPECT_EQ(copy.rows(), static_cast<std::int64_t>(rows.size()));
  *ended = copy.ended();
  return rows;
}

TEST(PgCopyRows, RowsAreTheSameHoweverTheStreamIsCut) {
  const std::string stream = ThreeRows();
  bool ended = false;
  const auto whole = ReadInPieces(stream, stream.size(), &ended);
  EXPECT_TRUE(ended);
  ASSERT_EQ(whole.size(), 3U);
  EXPECT_EQ(whole[0], (Row{"\t\n,\"", 0, true, -43.123456789012345}));
  EXPECT_EQ(whole[2], (Row{"xxxxxxxxxx\t\n,\"", -2'000'000'014LL, true, -41.123456789012345}));
  for (const std::size_t size : {1, 2, 7, 19, 20, 33}) {
    ended = false;
    EXPECT_EQ(ReadInPieces(stream, size, &ended), whole) << size;
    EXPECT_TRUE(ended) << size;
  }
}

TEST(PgCopyRows, AStreamWithoutItsTrailerHasNotEnded) {
  std::string stream = ThreeRows();
  stream.resize(stream.size() - 2);  // the trailer
  bool ended = true;
  EXPECT_EQ(ReadInPieces(stream, 5, &ended).size(), 3U);
  EXPECT_FALSE(ended);
  stream.resize(stream.size() - 3);  // and the end of the last row
  EXPECT_EQ(ReadInPieces(stream, stream.size(), &ended).size(), 2U);
  EXPECT_FALSE(ended);
}

TEST(PgCopyRows, ABadHeaderAndAnErrorOfTheRowAreReturned) {
  PgCopyRows copy;
  const auto ignore = [](PgCopyReader&) { return base::Status::Ok(); };
  EXPECT_FALSE(copy.Feed("not a binary COPY stream at all", ignore).ok());
  PgCopyRows refusing;
  const auto status = refusing.Feed(
      ThreeRows(), [](PgCopyReader&) -> base::Status { return base::Internal("refused"); });
  ASSERT_FALSE(status.ok());
  EXPECT_EQ(status.error().message(), "refused");
  EXPECT_EQ(refusing.rows(), 0);
}

}  // namespace
}  // namespace frota::sink
