// PostgreSQL's binary COPY format: a writer for COPY FROM STDIN and a reader for COPY TO STDOUT.
#pragma once

#include <cstdint>
#include <cstring>
#include <optional>
#include <string>
#include <string_view>

#include "frota/base/status.h"

namespace frota::sink {

/// Microseconds and days between the Unix epoch and PostgreSQL's (2000-01-01).
inline constexpr std::int64_t kPgEpochMicros = 946'684'800'000'000;
inline constexpr std::int32_t kPgEpochDays = 10'957;

/// Builds a binary COPY stream: Row(n) then n fields, Finish() at the end. Integers and
/// floats go in network byte order; floats keep their exact bits; timestamps are UTC
/// microseconds (TIMESTAMP without zone), dates days.
class PgCopyWriter {
 public:
  PgCopyWriter() {
    out_.append("PGCOPY\n\377\r\n\0", 11);
    Be<std::uint32_t>(0);  // flags
    Be<std::uint32_t>(0);  // header extension
  }
  void Row(std::int16_t fields) { Be(static_cast<std::uint16_t>(fields)); }
  void Null() { Be<std::uint32_t>(0xFFFFFFFFU); }
  void Int16(std::int16_t v) {
    Field(2);
    Be(static_cast<std::uint16_t>(v));
  }
  void Int32(std::int32_t v) {
    Field(4);
    Be(static_cast<std::uint32_t>(v));
  }
  void Int64(std::int64_t v) {
    Field(8);
    Be(static_cast<std::uint64_t>(v));
  }
  void Float32(float v) {
    std::uint32_t bits = 0;
    std::memcpy(&bits, &v, sizeof bits);
    Field(4);
    Be(bits);
  }
  void Float64(double v) {
    std::uint64_t bits = 0;
    std::memcpy(&bits, &v, sizeof bits);
    Field(8);
    Be(bits);
  }
  void Bool(bool v) {
    Field(1);
    out_.push_back(v ? '\1' : '\0');
  }
  void Text(std::string_view v) {
    Field(static_cast<std::uint32_t>(v.size()));
    out_.append(v);
  }
  void TimestampMicros(std::int64_t unix_micros) { Int64(unix_micros - kPgEpochMicros); }
  void DateDays(std::int32_t unix_days) { Int32(unix_days - kPgEpochDays); }
  /// The whole stream, with its trailer.
  std::string Finish() {
    Be<std::uint16_t>(0xFFFFU);
    return std::move(out_);
  }
  [[nodiscard]] std::size_t size() const { return out_.size(); }

 private:
  void Field(std::uint32_t length) { Be(length); }
  template <typename T>
  void Be(T v) {
    for (int shift = 8 * (static_cast<int>(sizeof(T)) - 1); shift >= 0; shift -= 8) {
      out_.push_back(static_cast<char>((v >> shift) & 0xFFU));
    }
  }
  std::string out_;
};

/// Reads a binary COPY stream written by the server. NextRow() gives the field count (or
/// nullopt at the trailer); then one Field() per column: its bytes, or nullopt for NULL.
class PgCopyReader {
 public:
  explicit PgCopyReader(std::string_view bytes) : bytes_(bytes) {}

  base::Status ReadHeader() {
    if (bytes_.size() < 19 || bytes_.substr(0, 11) != std::string_view("PGCOPY\n\377\r\n\0", 11)) {
      return base::Internal("not a binary COPY stream");
    }
    pos_ = 11 + 4;
    const std::uint32_t extension = static_cast<std::uint32_t>(Be(4));
    pos_ += extension;
    return base::Status::Ok();
  }
  /// Bytes read so far (after ReadHeader(): where the first row starts).
  [[nodiscard]] std::size_t position() const { return pos_; }
  base::Result<std::optional<int>> NextRow() {
    if (pos_ + 2 > bytes_.size()) {
      return base::Internal("binary COPY stream ends without its trailer");
    }
    const auto fields = static_cast<std::int16_t>(static_cast<std::uint16_t>(Be(2)));
    if (fields < 0) {
      return std::optional<int>();
    }
    return std::optional<int>(fields);
  }
  base::Result<std::optional<std::string_view>> Field() {
    if (pos_ + 4 > bytes_.size()) {
      return base::Internal("binary COPY stream is truncated");
    }
    const auto length = static_cast<std::int32_t>(static_cast<std::uint32_t>(Be(4)));
    if (length < 0) {
      return std::optional<std::string_view>();
    }
    if (pos_ + static_cast<std::size_t>(length) > bytes_.size()) {
      return base::Internal("binary COPY stream is truncated");
    }
    const auto out = bytes_.substr(pos_, static_cast<std::size_t>(length));
    pos_ += static_cast<std::size_t>(length);
    return std::optional<std::string_view>(out);
  }

  /// Big-endian decoding of a field's bytes.
  static std::uint64_t BigEndian(std::string_view field) {
    std::uint64_t v = 0;
    for (const char c : field) {
      v = (v << 8) | static_cast<std::uint8_t>(c);
    }
    return v;
  }

 private:
  std::uint64_t Be(std::size_t n) {
    const auto v = BigEndian(bytes_.substr(pos_, n));
    pos_ += n;
    return v;
  }
  std::string_view bytes_;
  std::size_t pos_ = 0;
};

/// A binary COPY stream that arrives in pieces (PgConnection::CopyOut: pieces need not end
/// at row boundaries), cut into rows: Feed() hands each complete row to `on_row` as a
/// PgCopyReader over that row alone (NextRow(), then one Field() per column) and keeps an
/// incomplete rest for the next piece; the trailer ends the stream (ended()). An error
/// from `on_row` is returned at once.
class PgCopyRows {
 public:
  template <typename OnRow>
  base::Status Feed(std::string_view piece, OnRow&& on_row) {
    // Rows are read in place from the piece; only a rest that spans pieces is copied.
    std::string_view data = piece;
    if (!rest_.empty()) {
      rest_.append(piece);
      data = rest_;
    }
    std::size_t pos = 0;
    if (!header_done_) {
      PgCopyReader header(data);
      if (data.size() >= 19) {
        FROTA_RETURN_IF_ERROR(header.ReadHeader());
      }
      if (data.size() < 19 || header.position() > data.size()) {
        Keep(data, 0);
        return base::Status::Ok();
      }
      pos = header.position();
      header_done_ = true;
    }
    while (!ended_) {
      const auto end = RowEnd(data, pos);
      if (!end) {
        break;
      }
      if (ended_) {
        pos = *end;
        break;
      }
      PgCopyReader row(data.substr(pos, *end - pos));
      FROTA_RETURN_IF_ERROR(on_row(row));
      ++rows_;
      pos = *end;
    }
    Keep(data, pos);
    return base::Status::Ok();
  }
  [[nodiscard]] bool ended() const { return ended_; }
  [[nodiscard]] std::int64_t rows() const { return rows_; }

 private:
  // Where the row starting at `pos` ends, if all of it is in `data` (at the trailer: its
  // end, with ended_ set).
  std::optional<std::size_t> RowEnd(std::string_view data, std::size_t pos) {
    if (data.size() - pos < 2) {
      return std::nullopt;
    }
    const auto fields = static_cast<std::int16_t>(PgCopyReader::BigEndian(data.substr(pos, 2)));
    std::size_t at = pos + 2;
    if (fields < 0) {
      ended_ = true;
      return at;
    }
    for (int f = 0; f < fields; ++f) {
      if (data.size() - at < 4) {
        return std::nullopt;
      }
      const auto length = static_cast<std::int32_t>(
          static_cast<std::uint32_t>(PgCopyReader::BigEndian(data.substr(at, 4))));
      at += 4;
      if (length > 0) {
        if (data.size() - at < static_cast<std::size_t>(length)) {
          return std::nullopt;
        }
        at += static_cast<std::size_t>(length);
      }
    }
    return at;
  }
  // Keeps data[pos..] for the next piece (`data` may be rest_ itself).
  void Keep(std::string_view data, std::size_t pos) {
    if (data.data() == rest_.data()) {
      rest_.erase(0, pos);
    } else {
      rest_.assign(data.substr(pos));
    }
  }

  std::string rest_;
  bool header_done_ = false;
  bool ended_ = false;
  std::int64_t rows_ = 0;
};

}  // namespace frota::sink
