#include "frota/gtfs/csv_reader.h"

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <utility>

namespace frota::gtfs {
namespace {

// A record larger than this is not a GTFS row; stop instead of eating memory.
constexpr std::size_t kMaxRecordBytes = 64 * 1024 * 1024;

class MemoryByteSource final : public ByteSource {
 public:
  explicit MemoryByteSource(std::string_view bytes) : bytes_(bytes) {}
  base::Result<std::size_t> Read(char* buffer, std::size_t size) override {
    const std::size_t n = std::min(size, bytes_.size() - offset_);
    std::memcpy(buffer, bytes_.data() + offset_, n);
    offset_ += n;
    return n;
  }

 private:
  std::string_view bytes_;
  std::size_t offset_ = 0;
};

class FileByteSource final : public ByteSource {
 public:
  FileByteSource(std::FILE* file, std::string path) : file_(file), path_(std::move(path)) {}
  ~FileByteSource() override { std::fclose(file_); }
  FileByteSource(const FileByteSource&) = delete;
  FileByteSource& operator=(const FileByteSource&) = delete;

  base::Result<std::size_t> Read(char* buffer, std::size_t size) override {
    const std::size_t n = std::fread(buffer, 1, size, file_);
    if (n == 0 && std::ferror(file_) != 0) {
      return base::IoError("{}: read failed: {}", path_, std::strerror(errno));
    }
    return n;
  }

 private:
  std::FILE* file_;
  std::string path_;
};

std::string_view Trim(std::string_view text) {
  const auto first = text.find_first_not_of(" \t");
  if (first == std::string_view::npos) {
    return {};
  }
  const auto last = text.find_last_not_of(" \t");
  return text.substr(first, last - first + 1);
}

// The bytes that end an unquoted field.
constexpr auto kEndsUnquotedField = [] {
  std::array<bool, 256> table{};
  table[','] = true;
  table['\n'] = true;
  table['\r'] = true;
  return table;
}();

// Removes the quote doubling of a quoted field's inside, in place; returns the new length.
std::size_t UndoubleQuotes(char* text, std::size_t size) {
  std::size_t out = 0;
  for (std::size_t in = 0; in < size; ++in, ++out) {
    text[out] = text[in];
    if (text[in] == '"') {
      ++in;  // the second quote of a pair
    }
  }
  return out;
}

}  // namespace

std::unique_ptr<ByteSource> MemorySource(std::string_view bytes) {
  return std::make_unique<MemoryByteSource>(bytes);
}

base::Result<std::unique_ptr<ByteSource>> FileSource(const std::filesystem::path& path) {
  std::FILE* file = std::fopen(path.c_str(), "rb");
  if (file == nullptr) {
    return base::IoError("{}: cannot open: {}", path.string(), std::strerror(errno));
  }
  return std::unique_ptr<ByteSource>(std::make_unique<FileByteSource>(file, path.string()));
}

CsvReader::CsvReader(std::unique_ptr<ByteSource> source, std::string name, std::size_t buffer_bytes)
    : source_(std::move(source)),
      name_(std::move(name)),
      buffer_(std::make_unique_for_overwrite<char[]>(std::max<std::size_t>(buffer_bytes, 1))),
      capacity_(std::max<std::size_t>(buffer_bytes, 1)) {}

CsvReader::~CsvReader() = default;

base::Result<CsvReader> CsvReader::Open(std::unique_ptr<ByteSource> source, std::string name) {
  return Open(std::move(source), std::move(name), kDefaultBufferBytes);
}

base::Result<CsvReader> CsvReader::Open(std::unique_ptr<ByteSource> source, std::string name,
                                        std::size_t initial_buffer_bytes) {
  CsvReader reader(std::move(source), std::move(name), initial_buffer_bytes);
  while (!reader.eof_ && reader.end_ < 3) {
    FROTA_RETURN_IF_ERROR(reader.Fill());
  }
  if (reader.end_ >= 3 && std::memcmp(reader.buffer_.get(), "\xEF\xBB\xBF", 3) == 0) {
    reader.begin_ = 3;  // UTF-8 byte order mark
  }
  FROTA_ASSIGN_OR_RETURN(const bool has_header, reader.Next());
  if (!has_header) {
    return base::InvalidInput("{}: empty file (expected a header line)", reader.name_);
  }
  return reader;
}

std::optional<std::size_t> CsvReader::FindColumn(std::string_view column) const {
  for (std::size_t i = 0; i < header_.size(); ++i) {
    if (header_[i] == column) {
      return i;
    }
  }
  return std::nullopt;
}

std::size_t CsvReader::CountColumn(std::string_view column) const {
  return static_cast<std::size_t>(std::count(header_.begin(), header_.end(), column));
}

base::Error CsvReader::ErrorHere(std::string_view message) const {
  return base::InvalidInput("{}: line {}: {}", name_, record_line_, message);
}

base::Error CsvReader::ErrorAt(std::string_view column, std::string_view message) const {
  return base::InvalidInput("{}: line {}: column {}: {}", name_, record_line_, column, message);
}

base::Status CsvReader::Fill() {
  if (begin_ > 0) {
    std::memmove(buffer_.get(), buffer_.get() + begin_, end_ - begin_);
    end_ -= begin_;
    begin_ = 0;
  }
  if (end_ == capacity_) {
    if (capacity_ >= kMaxRecordBytes) {
      return base::InvalidInput("{}: line {}: record longer than {} MiB", name_, next_line_,
                                kMaxRecordBytes >> 20);
    }
    auto bigger = std::make_unique_for_overwrite<char[]>(capacity_ * 2);
    std::memcpy(bigger.get(), buffer_.get(), end_);
    buffer_ = std::move(bigger);
    capacity_ *= 2;
  }
  // Fill the buffer whole: a record cut by the buffer's end is parsed again from its
  // start, so refilling by small reads (a pipe) would make long records quadratic.
  while (end_ < capacity_) {
    FROTA_ASSIGN_OR_RETURN(const std::size_t n,
                           source_->Read(buffer_.get() + end_, capacity_ - end_));
    if (n == 0) {
      eof_ = true;
      break;
    }
    end_ += n;
  }
  return base::Status::Ok();
}

base::Result<bool> CsvReader::Next() {
  while (true) {
    FROTA_ASSIGN_OR_RETURN(const Parse parse, ParseRecord());
    if (parse == Parse::kEnd) {
      fields_.clear();
      return false;
    }
    if (parse == Parse::kNeedMore) {
      FROTA_RETURN_IF_ERROR(Fill());
      continue;
    }
    if (header_.empty()) {
      header_.reserve(fields_.size());
      for (const std::string_view name : fields_) {
        header_.emplace_back(Trim(name));
      }
      return true;
    }
    if (std::all_of(fields_.begin(), fields_.end(),
                    [](std::string_view field) { return field.empty(); })) {
      continue;  // ",,,,": a spreadsheet's empty row carries nothing, like an empty line
    }
    if (fields_.size() != header_.size()) {
      return ErrorHere(
          fmt::format("{} fields, but the header has {}", fields_.size(), header_.size()));
    }
    return true;
  }
}

// Parses one record from buffer_[begin_, end_). Returns kNeedMore, changing nothing
// but skipped empty lines, when the record may continue past end_ and more input
// exists; the caller refills and the record is parsed again from its start.
base::Result<CsvReader::Parse> CsvReader::ParseRecord() {
  char* const buf = buffer_.get();
  // Skip empty lines.
  while (begin_ < end_ && (buf[begin_] == '\n' || buf[begin_] == '\r')) {
    if (buf[begin_] == '\r' && begin_ + 1 < end_ && buf[begin_ + 1] == '\n') {
      ++begin_;
    } else if (buf[begin_] == '\r' && begin_ + 1 == end_ && !eof_) {
      return Parse::kNeedMore;  // CR or CRLF: cannot tell yet
    }
    ++begin_;
    ++next_line_;
  }
  if (begin_ == end_) {
    return eof_ ? Parse::kEnd : Parse::kNeedMore;
  }

  // spans_ only grows; span_count is the number in use for this record.
  std::size_t span_count = 0;
  auto add_span = [&](const Span& span) {
    if (span_count == spans_.size()) {
      spans_.resize(spans_.size() * 2 + 8);
    }
    spans_[span_count++] = span;
  };
  std::size_t p = begin_;
  std::int64_t line = next_line_;
  while (true) {
    // One field starts at p (possibly at end_ after a trailing comma).
    if (p < end_ && buf[p] == '"') {
      const std::int64_t open_line = line;
      const std::size_t start = p + 1;
      bool doubled = false;
      std::size_t q = start;
      while (true) {
        const void* found = std::memchr(buf + q, '"', end_ - q);
        // Count the line breaks the quoted text spans (LF, and CR not before LF).
        const std::size_t stop =
            found != nullptr ? static_cast<std::size_t>(static_cast<const char*>(found) - buf)
                             : end_;
        for (std::size_t i = q; i < stop; ++i) {
          if (buf[i] == '\n' || (buf[i] == '\r' && (i + 1 >= end_ || buf[i + 1] != '\n'))) {
            ++line;
          }
        }
        if (found == nullptr) {
          if (!eof_) {
            return Parse::kNeedMore;
          }
          return base::InvalidInput(
              "{}: line {}: quoted field is not closed before the end of the file", name_,
              open_line);
        }
        q = stop + 1;
        if (q == end_ && !eof_) {
          return Parse::kNeedMore;  // a doubled quote may follow
        }
        if (q < end_ && buf[q] == '"') {
          doubled = true;
          ++q;
          continue;
        }
        break;
      }
      add_span({start, q - 1 - start, doubled});
      p = q;
      if (p < end_ && buf[p] != ',' && buf[p] != '\n' && buf[p] != '\r') {
        return base::InvalidInput(
            "{}: line {}: a quoted field must be followed by a comma or a line end, not '{}'",
            name_, line, buf[p]);
      }
    } else {
      const std::size_t start = p;
      while (p < end_ && !kEndsUnquotedField[static_cast<unsigned char>(buf[p])]) {
        ++p;
      }
      add_span({start, p - start, false});
    }
    // p is at a separator or at end_.
    if (p == end_) {
      if (!eof_) {
        return Parse::kNeedMore;
      }
      break;  // the last record has no line end
    }
    if (buf[p] == ',') {
      ++p;
      continue;
    }
    if (buf[p] == '\r') {
      if (p + 1 == end_ && !eof_) {
        return Parse::kNeedMore;
      }
      if (p + 1 < end_ && buf[p + 1] == '\n') {
        ++p;
      }
    }
    ++p;
    ++line;
    break;
  }

  record_line_ = next_line_;
  begin_ = p;
  next_line_ = line;
  fields_.resize(span_count);
  for (std::size_t i = 0; i < span_count; ++i) {
    const Span& span = spans_[i];
    std::size_t size = span.size;
    if (span.doubled_quotes) {
      size = UndoubleQuotes(buf + span.start, span.size);
    }
    fields_[i] = std::string_view(buf + span.start, size);
  }
  return Parse::kRecord;
}

}  // namespace frota::gtfs
