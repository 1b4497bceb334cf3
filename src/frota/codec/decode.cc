#include "frota/codec/decode.h"

#include <fast_float/fast_float.h>

#include <charconv>
#include <cmath>
#include <cstring>

#include "frota/codec/decode_internal.h"

namespace frota::codec {

base::Result<ResponseInfo> DecodeResponse(Format format, std::string_view bytes,
                                          const DecodeOptions& options, DecodedBatch& out) {
  switch (format) {
    case Format::kGtfsRt:
      return internal::DecodeGtfsRt(bytes, options, out);
    case Format::kRioSppo:
      return internal::DecodeRioSppo(bytes, options, out);
    case Format::kRioBrt:
      return internal::DecodeRioBrt(bytes, options, out);
    case Format::kRioArchiveCsv:
      return internal::DecodeArchiveCsv(bytes, options, out);
    case Format::kOpenSky:
      return internal::DecodeOpenSky(bytes, options, out);
  }
  return base::Internal("unknown format {}", static_cast<int>(format));
}

void InternedBatch::Append(DecodedBatch&& batch, model::RecordInterner& interner) {
  interner.BeginResponse();
  for (const auto& position : batch.positions) {
    positions.push_back(interner.Intern(position, &position_keys.emplace_back()));
  }
  for (auto& rejection : batch.rejections) {
    rejections.push_back(interner.Intern(std::move(rejection), &rejection_keys.emplace_back()));
  }
  batch.clear();
}

namespace internal {

namespace {

// Length of the valid UTF-8 sequence starting at text[i], or 0 when the bytes there are
// not one (details must stay valid UTF-8 for the sinks).
std::size_t Utf8SequenceLength(std::string_view text, std::size_t i) {
  const auto byte = [&](std::size_t k) { return static_cast<unsigned char>(text[k]); };
  const unsigned char lead = byte(i);
  std::size_t length = 0;
  unsigned char min_second = 0x80;
  unsigned char max_second = 0xbf;
  if (lead >= 0xc2 && lead <= 0xdf) {
    length = 2;
  } else if (lead >= 0xe0 && lead <= 0xef) {
    length = 3;
    if (lead == 0xe0) {
      min_second = 0xa0;  // overlong
    } else if (lead == 0xed) {
      max_second = 0x9f;  // surrogates
    }
  } else if (lead >= 0xf0 && lead <= 0xf4) {
    length = 4;
    if (lead == 0xf0) {
      min_second = 0x90;
    } else if (lead == 0xf4) {
      max_second = 0x8f;
    }
  } else {
    return 0;
  }
  if (i + length > text.size()) {
    return 0;
  }
  if (byte(i + 1) < min_second || byte(i + 1) > max_second) {
    return 0;
  }
  for (std::size_t k = 2; k < length; ++k) {
    if (byte(i + k) < 0x80 || byte(i + k) > 0xbf) {
      return 0;
    }
  }
  return length;
}

}  // namespace

bool Field::HasValue() const { return present && (container || !Trim(raw).empty()); }

void DetailWriter::Separate() {
  if (!detail_.empty()) {
    detail_.push_back(' ');
  }
}

std::string DetailWriter::Take() {
  if (detail_.size() > kMaxDetailBytes) {
    // Cut on a character boundary and say so.
    std::size_t cut = kMaxDetailBytes - 3;
    while (cut > 0 && (static_cast<unsigned char>(detail_[cut]) & 0xc0) == 0x80) {
      --cut;
    }
    detail_.resize(cut);
    detail_.append("...");
  }
  return std::move(detail_);
}

void DetailWriter::AppendEscaped(std::string_view text) {
  static constexpr char kHex[] = "0123456789abcdef";
  for (std::size_t i = 0; i < text.size();) {
    if (detail_.size() > kMaxDetailBytes) {
      return;  // Take() cuts it; no need to copy a huge field first
    }
    const auto c = static_cast<unsigned char>(text[i]);
    if (c >= 0x80) {
      if (const std::size_t length = Utf8SequenceLength(text, i); length > 0) {
        detail_.append(text.substr(i, length));
        i += length;
        continue;
      }
    }
    if (c == '"' || c == '\\') {
      detail_.push_back('\\');
      detail_.push_back(static_cast<char>(c));
    } else if (c < 0x20 || c >= 0x7f) {
      detail_.append("\\x");
      detail_.push_back(kHex[c >> 4]);
      detail_.push_back(kHex[c & 0xf]);
    } else {
      detail_.push_back(static_cast<char>(c));
    }
    ++i;
  }
}

DetailWriter& DetailWriter::Add(std::string_view name, const Field& field) {
  if (detail_.size() > kMaxDetailBytes) {
    return *this;
  }
  Separate();
  detail_.append(name);
  detail_.push_back('=');
  if (field.container) {
    detail_.append(field.raw.starts_with('{') ? "<object>" : "<array>");
  } else if (!field.present) {
    detail_.append(field.raw == "null" ? "null" : "<absent>");
  } else if (field.quoted) {
    detail_.push_back('"');
    AppendEscaped(field.raw);
    detail_.push_back('"');
  } else {
    AppendEscaped(field.raw);
  }
  return *this;
}

DetailWriter& DetailWriter::AddText(std::string_view name, std::string_view text) {
  return Add(name, Field::Text(text));
}

DetailWriter& DetailWriter::AddNote(std::string_view note) {
  if (detail_.size() > kMaxDetailBytes) {
    return *this;
  }
  Separate();
  AppendEscaped(note);
  return *this;
}

std::optional<double> ParseDecimal(std::string_view text) {
  text = Trim(text);
  if (text.empty() || text.size() > 64) {
    return std::nullopt;
  }
  // Both parsers also take "inf", "nan" and friends; a coordinate or speed never is one.
  const char first = text.front();
  if (first != '-' && first != '.' && first != ',' && (first < '0' || first > '9')) {
    return std::nullopt;
  }
  char buffer[64];
  const char* begin = text.data();
  // One ',' may stand for the '.' ("-22,92122"); "1.234,5" or "1,2,3" is not one number.
  if (const void* comma = std::memchr(text.data(), ',', text.size()); comma != nullptr) {
    const auto at = static_cast<std::size_t>(static_cast<const char*>(comma) - text.data());
    if (text.find('.') != std::string_view::npos ||
        text.find(',', at + 1) != std::string_view::npos) {
      return std::nullopt;
    }
    std::memcpy(buffer, text.data(), text.size());
    buffer[at] = '.';
    begin = buffer;
  }
  const char* end = begin + text.size();
  // fast_float (Eisel-Lemire) gives the correctly rounded double, as std::from_chars
  // does, in a fraction of its time: the CSV archive's 17-digit coordinates took a fifth
  // of its decoding through from_chars. The two differ only on results that are not
  // normal numbers (fast_float gives 0 or an infinity where from_chars says out of
  // range), so those take from_chars, which decides as before.
  double value = 0;
  const auto fast = fast_float::from_chars(begin, end, value);
  if (fast.ec != std::errc() || fast.ptr != end) {
    return std::nullopt;
  }
  if (std::isnormal(value)) {
    return value;
  }
  const auto [ptr, ec] = std::from_chars(begin, end, value);
  if (ec != std::errc() || ptr != end || !std::isfinite(value)) {
    return std::nullopt;
  }
  return value;
}

std::optional<std::int64_t> ParseInteger(std::string_view text) {
  text = Trim(text);
  const char* p = text.data();
  const char* const end = p + text.size();
  const bool negative = p < end && *p == '-';
  if (negative) {
    ++p;
  }
  // Up to 18 digits cannot overflow; longer text takes from_chars, which checks.
  if (p == end || end - p > 18) {
    std::int64_t value = 0;
    const auto [ptr, ec] = std::from_chars(text.data(), end, value);
    if (ec != std::errc() || ptr != end) {
      return std::nullopt;
    }
    return value;
  }
  std::int64_t value = 0;
  for (; p < end; ++p) {
    if (*p < '0' || *p > '9') {
      return std::nullopt;
    }
    value = value * 10 + (*p - '0');
  }
  return negative ? -value : value;
}

Number ReadNumber(const Field& field) {
  if (!field.HasValue()) {
    return {};
  }
  if (field.container) {
    return {NumberState::kInvalid, 0};
  }
  if (const auto value = ParseDecimal(field.raw)) {
    return {NumberState::kOk, *value};
  }
  return {NumberState::kInvalid, 0};
}

std::optional<model::RejectReason> ReadEpoch(const Field& field, EpochUnit unit,
                                             base::Timestamp& out) {
  using model::RejectReason;
  if (!field.HasValue()) {
    return RejectReason::kMissingTimestamp;
  }
  if (field.container) {
    return RejectReason::kMalformedRecord;
  }
  const double max_magnitude = unit == EpochUnit::kSeconds ? kMaxEpochSeconds : kMaxEpochMillis;
  const std::int64_t micros_per_unit = unit == EpochUnit::kSeconds ? 1'000'000 : 1'000;
  if (const auto integer = ParseInteger(field.raw)) {
    const auto value = static_cast<double>(*integer);
    if (value > max_magnitude) {
      return unit == EpochUnit::kSeconds ? RejectReason::kTimestampInMilliseconds
                                         : RejectReason::kMalformedRecord;
    }
    if (value < -max_magnitude) {
      return RejectReason::kMalformedRecord;
    }
    out = base::FromUnixMicros(*integer * micros_per_unit);
    return std::nullopt;
  }
  const auto decimal = ParseDecimal(field.raw);
  if (!decimal) {
    return RejectReason::kMalformedRecord;
  }
  if (*decimal > max_magnitude) {
    return unit == EpochUnit::kSeconds ? RejectReason::kTimestampInMilliseconds
                                       : RejectReason::kMalformedRecord;
  }
  if (*decimal < -max_magnitude) {
    return RejectReason::kMalformedRecord;
  }
  out = base::FromUnixMicros(std::llround(*decimal * static_cast<double>(micros_per_unit)));
  return std::nullopt;
}

std::optional<model::RejectReason> CheckEpochSeconds(std::uint64_t seconds, base::Timestamp& out) {
  if (static_cast<double>(seconds) > kMaxEpochSeconds) {
    return model::RejectReason::kTimestampInMilliseconds;
  }
  out = base::FromUnixSeconds(static_cast<std::int64_t>(seconds));
  return std::nullopt;
}

std::optional<model::RejectReason> CoordinateRangeReason(double lat, double lon) {
  // Written so that NaN fails too.
  if (!(lat >= -90.0 && lat <= 90.0)) {
    return model::RejectReason::kLatitudeOutOfRange;
  }
  if (!(lon >= -180.0 && lon <= 180.0)) {
    return model::RejectReason::kLongitudeOutOfRange;
  }
  if (lat == 0.0 && lon == 0.0) {
    return model::RejectReason::kNullIsland;
  }
  return std::nullopt;
}

std::optional<model::RejectReason> ReadCoordinates(std::string_view lat_name, const Field& lat,
                                                   std::string_view lon_name, const Field& lon,
                                                   double& lat_out, double& lon_out,
                                                   DetailWriter& detail) {
  using model::RejectReason;
  if (!lat.HasValue() || !lon.HasValue()) {
    detail.Add(lat_name, lat).Add(lon_name, lon);
    return RejectReason::kMissingCoordinates;
  }
  const Number lat_number = ReadNumber(lat);
  const Number lon_number = ReadNumber(lon);
  if (lat_number.state != NumberState::kOk || lon_number.state != NumberState::kOk) {
    if (lat_number.state != NumberState::kOk) {
      detail.Add(lat_name, lat);
    }
    if (lon_number.state != NumberState::kOk) {
      detail.Add(lon_name, lon);
    }
    return RejectReason::kMalformedRecord;
  }
  const auto reason = CoordinateRangeReason(lat_number.value, lon_number.value);
  if (reason == RejectReason::kLatitudeOutOfRange) {
    detail.Add(lat_name, lat);
  } else if (reason == RejectReason::kLongitudeOutOfRange) {
    detail.Add(lon_name, lon);
  } else if (reason == RejectReason::kNullIsland) {
    detail.Add(lat_name, lat).Add(lon_name, lon);
  }
  if (!reason) {
    lat_out = lat_number.value;
    lon_out = lon_number.value;
  }
  return reason;
}

RecordSink::RecordSink(Format format, const DecodeOptions& options, DecodedBatch& out)
    : out_(out),
      feed_id_(options.feed_id.empty() ? std::string(FormatName(format)) : options.feed_id),
      mode_(options.mode.value_or(DefaultMode(format))),
      source_(options.source),
      first_offset_(options.first_offset),
      next_offset_(options.first_offset),
      positions_before_(out.positions.size()),
      rejections_before_(out.rejections.size()) {}

model::Position& RecordSink::AddPosition() {
  model::Position& position = out_.positions.emplace_back();
  position.feed_id = feed_id_;
  position.mode = mode_;
  position.source = model::SourceRef{source_, next_offset_++};
  return position;
}

void RecordSink::AddRejection(model::RejectReason reason, std::string_view vehicle_id,
                              std::optional<base::Timestamp> event_time,
                              std::optional<base::Timestamp> ingest_time, std::string detail) {
  model::Rejection& rejection = out_.rejections.emplace_back();
  rejection.reason = reason;
  rejection.feed_id = feed_id_;
  rejection.vehicle_id = std::string(vehicle_id);
  rejection.event_time = event_time;
  rejection.ingest_time = ingest_time;
  rejection.source = model::SourceRef{source_, next_offset_++};
  rejection.detail = std::move(detail);
}

void RecordSink::Rollback() {
  out_.positions.resize(positions_before_);
  out_.rejections.resize(rejections_before_);
  next_offset_ = first_offset_;
}

}  // namespace internal
}  // namespace frota::codec
