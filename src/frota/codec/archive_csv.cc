// Rio's historical GPS archive (registros_brt rows) as a streaming CSV reader over zlib.
#include <fcntl.h>
#include <unistd.h>
#include <zlib.h>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include <algorithm>
#include <array>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <vector>

#include "frota/base/bytes.h"
#include "frota/base/time_zone.h"
#include "frota/codec/archive_csv_repeated_rows.h"
#include "frota/codec/archive_csv_sources.h"
#include "frota/codec/archive_csv_time.h"
#include "frota/codec/decode_internal.h"

namespace frota::codec {

namespace {

using internal::DetailWriter;
using internal::Field;
using internal::Number;
using internal::NumberState;
using internal::ReadCoordinates;
using internal::ReadNumber;
using internal::Trim;
using model::RejectReason;

// Files are read in big blocks (the gzip benchmark wants few, large inflate calls);
// bytes already in memory get buffers no bigger than they need.
// A replay opens every file of a day at once (a hundred 15-minute files) and keeps each
// reader's buffer: 1 MiB at most, reached only by readers that are read from.
constexpr std::size_t kFileBuffer = 1 << 20;       // CSV text held at once
constexpr std::size_t kGzipInputBuffer = 1 << 20;  // compressed bytes per read
constexpr std::size_t kMinBuffer = 4 << 10;
constexpr std::size_t kFirstBuffer = 64 << 10;  // grown to the above as the file is read
constexpr std::size_t kMaxRowBytes = 64 << 20;  // a longer row is not an archive row

using archive_csv_internal::ByteSource;
using archive_csv_internal::DateCache;
using archive_csv_internal::DateTimeText;
using archive_csv_internal::FileSource;
using archive_csv_internal::GzipSource;
using archive_csv_internal::IsGzipMagic;
using archive_csv_internal::LoadZone;
using archive_csv_internal::LocalTimeConverter;
using archive_csv_internal::MemorySource;
using archive_csv_internal::ReadDate;
using archive_csv_internal::ReadDateTime;
using archive_csv_internal::RepeatedRows;
using archive_csv_internal::TimeTexts;

// --- the reader -------------------------------------------------------------------------

struct Columns {
  std::size_t count = 0;
  std::optional<std::size_t> data;
  std::optional<std::size_t> id_veiculo;
  std::optional<std::size_t> timestamp_gps;
  std::optional<std::size_t> timestamp_captura;
  std::optional<std::size_t> latitude;
  std::optional<std::size_t> longitude;
  std::optional<std::size_t> servico;
  std::optional<std::size_t> velocidade;
  std::optional<std::size_t> direction;
  std::optional<std::size_t> trip_id;
};

class CsvArchiveReader final : public ArchiveCsvReader {
 public:
  CsvArchiveReader(std::unique_ptr<ByteSource> source, DecodeOptions options, std::string name,
                   std::shared_ptr<const base::TimeZone> zone, std::size_t buffer_size)
      : source_(std::move(source)),
        options_(std::move(options)),
        name_(std::move(name)),
        feed_id_(options_.feed_id.empty() ? std::string(FormatName(Format::kRioArchiveCsv))
                                          : options_.feed_id),
        mode_(options_.mode.value_or(DefaultMode(Format::kRioArchiveCsv))),
        converter_(std::move(zone)),
        buffer_(std::min(buffer_size, kFirstBuffer)),
        max_buffer_(buffer_size),
        next_offset_(options_.first_offset) {}

  base::Status ReadHeader();
  base::Result<bool> Next(DecodedBatch& out, std::size_t max_records) override;
  base::Result<bool> Next(InternedBatch& out, std::size_t max_records,
                          model::RecordInterner& interner) override;
  [[nodiscard]] std::int64_t repeated_rows() const override { return repeated_rows_; }

 private:
  // The next row without its line end, or nullopt at the end of the input.
  base::Result<std::optional<std::string_view>> NextRow();
  base::Status Refill();
  // Splits `row` into fields_ (quoted fields unescaped into scratch_).
  void SplitRow(std::string_view row);
  // Next's loop, each row decoded into `out` (DecodedOut or InternedOut below).
  template <typename Out>
  base::Result<bool> ReadRows(Out& out, std::size_t max_records);
  template <typename Out>
  void DecodeRow(Out& out);
  // A time column's text as a UTC instant, nullopt when it is not a time.
  std::optional<base::Timestamp> ReadTime(std::string_view text);
  [[nodiscard]] std::optional<std::string_view> Cell(
      const std::optional<std::size_t>& column) const {
    return column ? std::optional<std::string_view>(fields_[*column]) : std::nullopt;
  }

  std::unique_ptr<ByteSource> source_;
  DecodeOptions options_;
  std::string name_;
  std::string feed_id_;
  model::Mode mode_;
  LocalTimeConverter converter_;
  DateCache dates_;
  TimeTexts event_times_;
  TimeTexts ingest_times_;
  Columns columns_;
  RepeatedRows repeats_;  // enabled when rows have a capture time (not options_.ingest_time)
  std::int64_t repeated_rows_ = 0;

  std::vector<char> buffer_;
  std::size_t max_buffer_;  // what buffer_ grows to as the file is read
  std::size_t begin_ = 0;   // unread text is buffer_[begin_, end_)
  std::size_t end_ = 0;
  bool input_done_ = false;
  bool finished_ = false;
  std::optional<base::Error> failure_;

  std::int64_t line_ = 1;      // line number of the next row
  std::int64_t row_line_ = 0;  // line number of the row being decoded
  std::int64_t next_offset_;
  std::vector<std::string_view> fields_;
  bool row_quoted_ = false;  // fields_ point into scratch_, not into the row
  std::string scratch_;
  std::array<char, 8> service_date_text_{};  // the row's service date as YYYYMMDD
};

base::Status CsvArchiveReader::Refill() {
  // Read on: a reader that is read from grows its buffer to max_buffer_ (few, large
  // reads); one whose file waits its turn in a replay keeps the small first one.
  if (buffer_.size() < max_buffer_ && begin_ > 0) {
    std::vector<char> bigger(std::min(buffer_.size() * 2, max_buffer_));
    std::memcpy(bigger.data(), buffer_.data() + begin_, end_ - begin_);
    end_ -= begin_;
    begin_ = 0;
    buffer_ = std::move(bigger);
  }
  if (begin_ > 0) {
    std::memmove(buffer_.data(), buffer_.data() + begin_, end_ - begin_);
    end_ -= begin_;
    begin_ = 0;
  }
  if (end_ == buffer_.size()) {  // one row fills the buffer
    if (buffer_.size() >= kMaxRowBytes) {
      return base::InvalidInput("{}: line {} is longer than {} bytes: not an archive row", name_,
                                line_, kMaxRowBytes);
    }
    buffer_.resize(buffer_.size() * 2);
  }
  FROTA_ASSIGN_OR_RETURN(const std::size_t n,
                         source_->Read(buffer_.data() + end_, buffer_.size() - end_));
  end_ += n;
  input_done_ = n == 0;
  return base::Status::Ok();
}

base::Result<std::optional<std::string_view>> CsvArchiveReader::NextRow() {
  std::size_t scan_from = begin_;
  while (true) {
    const char* base = buffer_.data();
    const char* row_begin = base + begin_;
    const char* limit = base + end_;
    const char* scan = base + scan_from;
    const auto* newline = static_cast<const char*>(std::memchr(scan, '\n', limit - scan));
    if (newline != nullptr) {
      // A quote in the row may hide the newline inside a field: find the real end.
      const bool quoted = std::memchr(row_begin, '"', newline - row_begin) != nullptr;
      if (quoted) {
        bool in_quotes = false;
        const char* p = row_begin;
        newline = nullptr;
        for (; p < limit; ++p) {
          if (*p == '"') {
            in_quotes = !in_quotes;
          } else if (*p == '\n' && !in_quotes) {
            newline = p;
            break;
          }
        }
      }
      if (newline != nullptr) {
        std::string_view row(row_begin, static_cast<std::size_t>(newline - row_begin));
        row_line_ = line_;
        line_ += 1 + (quoted ? std::count(row.begin(), row.end(), '\n') : 0);
        begin_ = static_cast<std::size_t>(newline + 1 - base);
        if (!row.empty() && row.back() == '\r') {
          row.remove_suffix(1);
        }
        return std::optional<std::string_view>(row);
      }
    }
    if (input_done_) {
      if (begin_ == end_) {
        return std::optional<std::string_view>();
      }
      // The last row has no line end.
      std::string_view row(row_begin, end_ - begin_);
      row_line_ = line_;
      line_ += 1 + std::count(row.begin(), row.end(), '\n');
      begin_ = end_;
      if (!row.empty() && row.back() == '\r') {
        row.remove_suffix(1);
      }
      return std::optional<std::string_view>(row);
    }
    const std::size_t scanned = end_ - begin_;
    FROTA_RETURN_IF_ERROR(Refill());
    scan_from = begin_ + scanned;
  }
}

void CsvArchiveReader::SplitRow(std::string_view row) {
  fields_.clear();
  row_quoted_ = false;
  // One pass over the bytes, 16 at a time where SSE2 is there (every x86-64): a memchr
  // per field, or a byte loop, each cost a fifth of the whole decode in profiles.
  const char* const begin = row.data();
  const char* const end = begin + row.size();
  const char* field = begin;
  const char* p = begin;
#if defined(__SSE2__)
  const __m128i comma = _mm_set1_epi8(',');
  const __m128i quote = _mm_set1_epi8('"');
  for (; end - p >= 16; p += 16) {
    const __m128i chunk = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
    if (_mm_movemask_epi8(_mm_cmpeq_epi8(chunk, quote)) != 0) {
      break;  // the scalar loop below finds it and hands over to the quoted split
    }
    auto commas = static_cast<unsigned>(_mm_movemask_epi8(_mm_cmpeq_epi8(chunk, comma)));
    while (commas != 0) {
      const char* at = p + __builtin_ctz(commas);
      fields_.emplace_back(field, static_cast<std::size_t>(at - field));
      field = at + 1;
      commas &= commas - 1;
    }
  }
#endif
  for (; p < end; ++p) {
    if (*p == ',') {
      fields_.emplace_back(field, static_cast<std::size_t>(p - field));
      field = p + 1;
    } else if (*p == '"') {
      break;
    }
  }
  if (p == end) {
    fields_.emplace_back(field, static_cast<std::size_t>(end - field));
    return;
  }
  fields_.clear();
  row_quoted_ = true;
  // RFC 4180: a field may be quoted; "" inside quotes is one quote. Unescaped text goes
  // to scratch_, reserved up front so that the views into it stay valid.
  scratch_.clear();
  scratch_.reserve(row.size());
  std::size_t i = 0;
  while (true) {
    const std::size_t field_start = scratch_.size();
    bool in_quotes = false;
    for (; i < row.size(); ++i) {
      const char c = row[i];
      if (in_quotes) {
        if (c == '"') {
          if (i + 1 < row.size() && row[i + 1] == '"') {
            scratch_.push_back('"');
            ++i;
          } else {
            in_quotes = false;
          }
        } else {
          scratch_.push_back(c);
        }
      } else if (c == '"') {
        in_quotes = true;
      } else if (c == ',') {
        break;
      } else {
        scratch_.push_back(c);
      }
    }
    fields_.emplace_back(scratch_.data() + field_start, scratch_.size() - field_start);
    if (i >= row.size()) {
      return;
    }
    ++i;  // the comma
  }
}

base::Status CsvArchiveReader::ReadHeader() {
  FROTA_ASSIGN_OR_RETURN(const auto row, NextRow());
  if (!row) {
    return base::InvalidInput("{}: empty file, no CSV header", name_);
  }
  std::string_view header = *row;
  if (header.starts_with("\xef\xbb\xbf")) {
    header.remove_prefix(3);
  }
  SplitRow(header);
  columns_.count = fields_.size();
  for (std::size_t i = 0; i < fields_.size(); ++i) {
    const std::string_view name = Trim(fields_[i]);
    const std::pair<std::string_view, std::optional<std::size_t>*> known[] = {
        {"data", &columns_.data},
        {"id_veiculo", &columns_.id_veiculo},
        {"timestamp_gps", &columns_.timestamp_gps},
        {"timestamp_captura", &columns_.timestamp_captura},
        {"latitude", &columns_.latitude},
        {"longitude", &columns_.longitude},
        {"servico", &columns_.servico},
        {"velocidade", &columns_.velocidade},
        {"direction", &columns_.direction},
        {"trip_id", &columns_.trip_id},
    };
    for (const auto& [column_name, slot] : known) {
      if (name == column_name && !slot->has_value()) {
        *slot = i;
      }
    }
  }
  const std::pair<std::string_view, const std::optional<std::size_t>*> required[] = {
      {"id_veiculo", &columns_.id_veiculo},
      {"timestamp_gps", &columns_.timestamp_gps},
      {"latitude", &columns_.latitude},
      {"longitude", &columns_.longitude},
      {"timestamp_captura", options_.ingest_time ? nullptr : &columns_.timestamp_captura},
  };
  for (const auto& [column_name, slot] : required) {
    if (slot != nullptr && !slot->has_value()) {
      DetailWriter shown;
      shown.AddNote(header);
      return base::InvalidInput("{}: not a Rio archive CSV: the header has no column '{}' ({})",
                                name_, column_name, shown.Take());
    }
  }
  if (columns_.timestamp_captura && !options_.ingest_time) {
    repeats_.SetColumns({columns_.data, columns_.id_veiculo, columns_.timestamp_gps,
                         columns_.latitude, columns_.longitude, columns_.servico,
                         columns_.velocidade, columns_.direction, columns_.trip_id},
                        *columns_.timestamp_captura, *columns_.id_veiculo);
  }
  return base::Status::Ok();
}

// Where DecodeRow puts a row: a Position or a Rejection in a DecodedBatch...
struct DecodedOut {
  static constexpr bool kInterned = false;
  DecodedBatch& batch;
  void Add(const model::PositionView& position) {
    model::AppendPosition(position, batch.positions);
  }
  void Add(model::Rejection&& rejection) { batch.rejections.push_back(std::move(rejection)); }
};

// ...or the same interned, straight from the row's texts.
struct InternedOut {
  static constexpr bool kInterned = true;
  InternedBatch& batch;
  model::RecordInterner& interner;
  void Add(const model::PositionView& position) {
    batch.positions.push_back(interner.Intern(position, &batch.position_keys.emplace_back()));
  }
  void Add(model::Rejection&& rejection) {
    batch.rejections.push_back(
        interner.Intern(std::move(rejection), &batch.rejection_keys.emplace_back()));
  }
};

base::Result<bool> CsvArchiveReader::Next(DecodedBatch& out, std::size_t max_records) {
  DecodedOut decoded{out};
  return ReadRows(decoded, max_records);
}

base::Result<bool> CsvArchiveReader::Next(InternedBatch& out, std::size_t max_records,
                                          model::RecordInterner& interner) {
  InternedOut interned{out, interner};
  return ReadRows(interned, max_records);
}

template <typename Out>
base::Result<bool> CsvArchiveReader::ReadRows(Out& out, std::size_t max_records) {
  if (failure_) {
    return *failure_;
  }
  std::size_t produced = 0;
  while (!finished_ && produced < max_records) {
    auto row = NextRow();
    if (!row.ok()) {
      failure_ = row.error();
      return row.error();
    }
    if (!*row) {
      finished_ = true;
      break;
    }
    if (Trim(**row).empty()) {
      continue;  // a blank line holds no record
    }
    SplitRow(**row);
    DecodeRow(out);
    ++produced;
  }
  return !finished_;
}

template <typename Out>
void CsvArchiveReader::DecodeRow(Out& out) {
  const std::int64_t offset = next_offset_++;
  const auto reject = [&](RejectReason reason, std::string_view vehicle_id,
                          std::optional<base::Timestamp> event_time,
                          std::optional<base::Timestamp> ingest_time, std::string detail) {
    model::Rejection rejection;
    rejection.reason = reason;
    rejection.feed_id = feed_id_;
    rejection.vehicle_id = vehicle_id;
    rejection.event_time = event_time;
    rejection.ingest_time = ingest_time;
    rejection.source = model::SourceRef{options_.source, offset};
    rejection.detail = std::move(detail);
    out.Add(std::move(rejection));
  };

  if (fields_.size() != columns_.count) {
    DetailWriter detail;
    detail.AddNote(
        fmt::format("line {}: {} fields, expected {}", row_line_, fields_.size(), columns_.count));
    reject(RejectReason::kMalformedRecord, {}, std::nullopt, options_.ingest_time, detail.Take());
    return;
  }

  const auto read_time = [this](std::string_view text) { return ReadTime(text); };
  if constexpr (Out::kInterned) {
    if (repeats_.enabled()) {
      const std::string_view capture = fields_[*columns_.timestamp_captura];
      repeats_.AtCapture(capture);
      const model::KeyTextHashes* keys = nullptr;
      const model::PositionRecord* repeated =
          row_quoted_ ? nullptr : repeats_.Find(fields_, &out.interner, &keys);
      if (repeated != nullptr) {
        if (const auto ingest_time = ingest_times_.Get(capture, read_time)) {
          model::PositionRecord& record = out.batch.positions.emplace_back(*repeated);
          record.ingest_time = *ingest_time;
          record.source = model::SourceRef{options_.source, offset};
          out.batch.position_keys.push_back(*keys);
          repeats_.Remember(fields_, &out.interner, record, *keys);
          ++repeated_rows_;
          return;
        }
      }
    }
  }

  const std::string_view vehicle_id = Trim(*Cell(columns_.id_veiculo));
  const std::string_view gps_text = *Cell(columns_.timestamp_gps);
  const std::optional<base::Timestamp> event_time = event_times_.Get(gps_text, read_time);
  std::optional<base::Timestamp> ingest_time = options_.ingest_time;
  std::string_view capture_text;
  if (!ingest_time) {
    capture_text = *Cell(columns_.timestamp_captura);
    ingest_time = ingest_times_.Get(capture_text, read_time);
  }

  DetailWriter detail;
  double lat = 0;
  double lon = 0;
  std::optional<RejectReason> reason;
  const std::optional<std::string_view> speed_text = Cell(columns_.velocidade);
  const Number speed = speed_text ? ReadNumber(Field::Text(*speed_text)) : Number{};
  const std::optional<std::string_view> date_text = Cell(columns_.data);
  const std::optional<std::chrono::sys_days> service_date =
      date_text && !Trim(*date_text).empty() ? dates_.Read(Trim(*date_text)) : std::nullopt;

  if (vehicle_id.empty()) {
    reason = RejectReason::kMissingVehicleId;
    detail.AddText("id_veiculo", *Cell(columns_.id_veiculo));
  } else if ((reason =
                  ReadCoordinates("latitude", Field::Text(*Cell(columns_.latitude)), "longitude",
                                  Field::Text(*Cell(columns_.longitude)), lat, lon, detail))) {
  } else if (!event_time) {
    reason =
        Trim(gps_text).empty() ? RejectReason::kMissingTimestamp : RejectReason::kMalformedRecord;
    detail.AddText("timestamp_gps", gps_text);
  } else if (!ingest_time) {
    reason = Trim(capture_text).empty() ? RejectReason::kMissingTimestamp
                                        : RejectReason::kMalformedRecord;
    detail.AddText("timestamp_captura", capture_text);
  } else if (speed.state == NumberState::kInvalid) {
    reason = RejectReason::kMalformedRecord;
    detail.AddText("velocidade", *speed_text);
  } else if (date_text && !Trim(*date_text).empty() && !service_date) {
    reason = RejectReason::kMalformedRecord;
    detail.AddText("data", *date_text);
  }
  if (reason) {
    detail.AddNote(fmt::format("line {}", row_line_));
    reject(*reason, vehicle_id, event_time, ingest_time, detail.Take());
    return;
  }

  model::PositionView position;
  position.feed_id = feed_id_;
  position.mode = mode_;
  position.source = model::SourceRef{options_.source, offset};
  position.vehicle_id = vehicle_id;
  position.lat = lat;
  position.lon = lon;
  position.event_time = *event_time;
  position.ingest_time = *ingest_time;
  if (const auto route = Cell(columns_.servico)) {
    position.route_id = Trim(*route);
  }
  if (const auto trip = Cell(columns_.trip_id)) {
    position.trip_id = Trim(*trip);
  }
  if (service_date) {
    // The `data` column is the service date: "2022-06-30 00:00:00" → "20220630".
    const std::string_view date = Trim(*date_text);
    service_date_text_ = {date[0], date[1], date[2], date[3], date[5], date[6], date[8], date[9]};
    position.trip_start_date =
        std::string_view(service_date_text_.data(), service_date_text_.size());
  }
  if (const auto direction = Cell(columns_.direction)) {
    const std::string_view code = Trim(*direction);
    if (code == "I") {
      position.direction_id = 0;  // ida
    } else if (code == "V") {
      position.direction_id = 1;  // volta
    }
  }
  if (speed.state == NumberState::kOk) {
    position.reported_speed_kmh = static_cast<float>(speed.value);
  }
  out.Add(position);
  if constexpr (Out::kInterned) {
    if (repeats_.enabled() && !row_quoted_) {
      repeats_.Remember(fields_, &out.interner, out.batch.positions.back(),
                        out.batch.position_keys.back());
    }
  }
}

std::optional<base::Timestamp> CsvArchiveReader::ReadTime(std::string_view text) {
  const auto local = ReadDateTime(text, dates_);
  if (!local) {
    return std::nullopt;
  }
  return local->offset_seconds
             ? base::FromUnixMicros(local->local_micros - *local->offset_seconds * 1'000'000LL)
             : converter_.ToUtc(local->local_micros);
}

// `size` bounds the buffers: the file size, or the bytes in memory.
base::Result<std::unique_ptr<ArchiveCsvReader>> MakeReader(std::unique_ptr<ByteSource> source,
                                                           bool gzip, std::uint64_t size,
                                                           DecodeOptions options,
                                                           std::string name) {
  FROTA_ASSIGN_OR_RETURN(auto zone, LoadZone(options.time_zone));
  const auto bounded = [&](std::size_t cap, std::uint64_t wanted) {
    return static_cast<std::size_t>(std::clamp<std::uint64_t>(wanted, kMinBuffer, cap));
  };
  // Compressed text is several times larger than its gzip: leave room for that.
  std::size_t buffer_size = bounded(kFileBuffer, gzip ? size * 8 : size + 1);
  if (gzip) {
    auto inflater =
        std::make_unique<GzipSource>(std::move(source), name, bounded(kGzipInputBuffer, size));
    FROTA_RETURN_IF_ERROR(inflater->Init());
    source = std::move(inflater);
  }
  auto reader = std::make_unique<CsvArchiveReader>(std::move(source), std::move(options),
                                                   std::move(name), std::move(zone), buffer_size);
  FROTA_RETURN_IF_ERROR(reader->ReadHeader());
  return std::unique_ptr<ArchiveCsvReader>(std::move(reader));
}

}  // namespace

base::Result<std::unique_ptr<ArchiveCsvReader>> ArchiveCsvReader::Open(
    const std::filesystem::path& path, DecodeOptions options) {
  const std::string name = path.string();
  const int fd = ::open(name.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    return base::IoError("{}: cannot open: {}", name, std::strerror(errno));
  }
  auto file = std::make_unique<FileSource>(fd, name);
  char magic[2] = {0, 0};
  const ssize_t n = ::pread(fd, magic, sizeof magic, 0);
  if (n < 0) {
    return base::IoError("{}: read failed: {}", name, std::strerror(errno));
  }
  const bool gzip = IsGzipMagic(std::string_view(magic, static_cast<std::size_t>(n)));
  std::error_code ec;
  const auto size = std::filesystem::file_size(path, ec);
  return MakeReader(std::move(file), gzip, ec ? kFileBuffer : size, std::move(options), name);
}

base::Result<std::unique_ptr<ArchiveCsvReader>> ArchiveCsvReader::FromBytes(std::string_view bytes,
                                                                            DecodeOptions options,
                                                                            std::string name) {
  return MakeReader(std::make_unique<MemorySource>(bytes), IsGzipMagic(bytes), bytes.size(),
                    std::move(options), std::move(name));
}

namespace internal {

base::Result<ResponseInfo> DecodeArchiveCsv(std::string_view bytes, const DecodeOptions& options,
                                            DecodedBatch& out) {
  FROTA_ASSIGN_OR_RETURN(auto reader, ArchiveCsvReader::FromBytes(bytes, options));
  const std::size_t positions_before = out.positions.size();
  const std::size_t rejections_before = out.rejections.size();
  while (true) {
    auto more = reader->Next(out, 1 << 16);
    if (!more.ok()) {
      out.positions.resize(positions_before);
      out.rejections.resize(rejections_before);
      return more.error();
    }
    if (!*more) {
      break;
    }
  }
  ResponseInfo info;
  info.records = static_cast<std::int64_t>(out.positions.size() - positions_before +
                                           out.rejections.size() - rejections_before);
  return info;
}

}  // namespace internal
}  // namespace frota::codec
