// Pieces shared by the readers: field text, number parsing, rule 1 and record output.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "frota/base/status.h"
#include "frota/base/time.h"
#include "frota/codec/decode.h"
#include "frota/model/position.h"
#include "frota/model/rejection.h"

namespace frota::codec::internal {

/// Details are cut to at most this many bytes (semantics: "truncated to ~200 bytes").
inline constexpr std::size_t kMaxDetailBytes = 200;

/// A seconds field above this only makes sense as milliseconds (year 5138 in seconds).
inline constexpr double kMaxEpochSeconds = 1e11;
/// A milliseconds field beyond this is not a time at all (and would overflow microseconds).
inline constexpr double kMaxEpochMillis = 1e14;

/// One input field as read, before any interpretation.
///
/// `raw` points into the input (or the JSON parser's string buffer) and lives as long
/// as the record being decoded.
struct Field {
  std::string_view raw;
  bool present = false;    // the key or column exists and is not JSON null
  bool quoted = true;      // print `raw` in quotes in details (strings, CSV cells)
  bool container = false;  // a JSON array or object where a scalar belongs

  static Field Text(std::string_view text) { return Field{text, true, true, false}; }
  static Field Token(std::string_view token) { return Field{token, true, false, false}; }
  static Field Null() { return Field{"null", false, false, false}; }
  /// Present with some text (blank counts as missing for every field frota reads).
  [[nodiscard]] bool HasValue() const;
};

/// Builds `detail` strings: `name="raw"` pairs, escaped and cut at kMaxDetailBytes.
class DetailWriter {
 public:
  DetailWriter& Add(std::string_view name, const Field& field);
  DetailWriter& AddText(std::string_view name, std::string_view text);
  /// Appends free text as is (e.g. "line 12: 13 fields, expected 14").
  DetailWriter& AddNote(std::string_view note);
  /// The detail, cut to kMaxDetailBytes with "..." at the end when longer.
  std::string Take();

 private:
  void Separate();
  void AppendEscaped(std::string_view text);
  std::string detail_;
};

/// Trims ASCII spaces, tabs and CR/LF on both ends. Inline: it runs on every field.
inline std::string_view Trim(std::string_view text) {
  const auto blank = [](char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n'; };
  while (!text.empty() && blank(text.front())) {
    text.remove_prefix(1);
  }
  while (!text.empty() && blank(text.back())) {
    text.remove_suffix(1);
  }
  return text;
}

/// Whether `text` holds `c`; a plain loop, faster than memchr on short field text.
inline bool Contains(std::string_view text, char c) {
  for (const char x : text) {
    if (x == c) {
      return true;
    }
  }
  return false;
}

/// A decimal number with '.' or ',' as separator ("-22,92122"), surrounded by optional
/// blanks; nullopt for anything else, including NaN, infinities and hex.
std::optional<double> ParseDecimal(std::string_view text);
/// A base-10 integer, surrounded by optional blanks.
std::optional<std::int64_t> ParseInteger(std::string_view text);

/// The outcome of reading a numeric field.
enum class NumberState : std::uint8_t { kMissing, kInvalid, kOk };
struct Number {
  NumberState state = NumberState::kMissing;
  double value = 0;
};
/// Missing when absent, null or blank; invalid when not a finite decimal number.
Number ReadNumber(const Field& field);

enum class EpochUnit : std::uint8_t { kSeconds, kMillis };
/// Reads an epoch time. Missing → missing_timestamp; unreadable or absurd →
/// malformed_record; a seconds value above kMaxEpochSeconds → timestamp_in_milliseconds.
std::optional<model::RejectReason> ReadEpoch(const Field& field, EpochUnit unit,
                                             base::Timestamp& out);
/// The same rules for a number already decoded (GTFS-RT's uint64 seconds).
std::optional<model::RejectReason> CheckEpochSeconds(std::uint64_t seconds, base::Timestamp& out);

/// Rule 1's coordinate checks in order: latitude range, longitude range, null island.
std::optional<model::RejectReason> CoordinateRangeReason(double lat, double lon);

/// Reads both coordinates with rule 1's order (missing, unreadable, ranges, null island),
/// filling `detail` with the fields that failed.
std::optional<model::RejectReason> ReadCoordinates(std::string_view lat_name, const Field& lat,
                                                   std::string_view lon_name, const Field& lon,
                                                   double& lat_out, double& lon_out,
                                                   DetailWriter& detail);

/// Appends a format's records to a DecodedBatch with one offset sequence, and can undo
/// them all when the response turns out not to be decodable.
class RecordSink {
 public:
  RecordSink(Format format, const DecodeOptions& options, DecodedBatch& out);

  /// A new position with feed_id, mode and source filled in.
  model::Position& AddPosition();
  void AddRejection(model::RejectReason reason, std::string_view vehicle_id,
                    std::optional<base::Timestamp> event_time,
                    std::optional<base::Timestamp> ingest_time, std::string detail);
  /// Removes everything appended since construction.
  void Rollback();
  [[nodiscard]] std::int64_t records() const { return next_offset_ - first_offset_; }
  [[nodiscard]] model::Mode mode() const { return mode_; }

 private:
  DecodedBatch& out_;
  std::string feed_id_;
  model::Mode mode_;
  model::SourceId source_;
  std::int64_t first_offset_;
  std::int64_t next_offset_;
  std::size_t positions_before_;
  std::size_t rejections_before_;
};

/// Per-format entry points behind DecodeResponse.
base::Result<ResponseInfo> DecodeGtfsRt(std::string_view bytes, const DecodeOptions& options,
                                        DecodedBatch& out);
base::Result<ResponseInfo> DecodeRioSppo(std::string_view bytes, const DecodeOptions& options,
                                         DecodedBatch& out);
base::Result<ResponseInfo> DecodeRioBrt(std::string_view bytes, const DecodeOptions& options,
                                        DecodedBatch& out);
base::Result<ResponseInfo> DecodeOpenSky(std::string_view bytes, const DecodeOptions& options,
                                         DecodedBatch& out);
base::Result<ResponseInfo> DecodeArchiveCsv(std::string_view bytes, const DecodeOptions& options,
                                            DecodedBatch& out);

}  // namespace frota::codec::internal
