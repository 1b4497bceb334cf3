#include "frota/sink/csv_writer.h"

#include <fmt/format.h>

#include <cerrno>
#include <cmath>
#include <cstring>

#include "frota/base/time.h"

namespace frota::sink {

namespace {
constexpr std::size_t kFlushBytes = 1 << 20;
}  // namespace

base::Result<std::unique_ptr<CsvWriter>> CsvWriter::Create(const std::filesystem::path& path) {
  std::unique_ptr<CsvWriter> writer(new CsvWriter());
  writer->path_ = path.string();
  writer->file_ = std::fopen(writer->path_.c_str(), "wb");
  if (writer->file_ == nullptr) {
    return base::IoError("{}: cannot create: {}", writer->path_, std::strerror(errno));
  }
  return writer;
}

CsvWriter::~CsvWriter() {
  if (file_ != nullptr) {
    std::fclose(file_);
  }
}

void CsvWriter::Separator() {
  if (!first_in_row_) {
    buffer_.push_back(',');
  }
  first_in_row_ = false;
}

void CsvWriter::Text(std::string_view value) {
  Separator();
  const bool quote = value.find_first_of(",\"\n\r") != std::string_view::npos ||
                     (!value.empty() && (value.front() == ' ' || value.back() == ' '));
  if (!quote) {
    buffer_.append(value);
    return;
  }
  buffer_.push_back('"');
  for (const char c : value) {
    if (c == '"') {
      buffer_.push_back('"');
    }
    buffer_.push_back(c);
  }
  buffer_.push_back('"');
}

void CsvWriter::Int(std::int64_t value) {
  Separator();
  fmt::format_to(std::back_inserter(buffer_), "{}", value);
}

void CsvWriter::Double(double value) {
  Separator();
  if (std::isnan(value)) {
    buffer_.append("NaN");
    return;
  }
  if (value == 0) {
    value = 0;  // no "-0"
  }
  fmt::format_to(std::back_inserter(buffer_), "{}", value);
}

void CsvWriter::Float(float value) {
  Separator();
  if (std::isnan(value)) {
    buffer_.append("NaN");
    return;
  }
  if (value == 0) {
    value = 0;
  }
  fmt::format_to(std::back_inserter(buffer_), "{}", value);
}

void CsvWriter::Bool(bool value) {
  Separator();
  buffer_.append(value ? "true" : "false");
}

void CsvWriter::TimestampMicros(std::int64_t micros) {
  Separator();
  buffer_.append(base::FormatIso8601(base::FromUnixMicros(micros)));
}

void CsvWriter::DateDays(std::int32_t days) {
  Separator();
  buffer_.append(base::FormatDate(base::LocalDateFromDays(days)));
}

void CsvWriter::Null() { Separator(); }

void CsvWriter::EndRow() {
  buffer_.push_back('\n');
  first_in_row_ = true;
  if (buffer_.size() >= kFlushBytes) {
    std::fwrite(buffer_.data(), 1, buffer_.size(), file_);
    buffer_.clear();
  }
}

base::Status CsvWriter::Close() {
  if (file_ == nullptr) {
    return base::Status::Ok();
  }
  const bool wrote = std::fwrite(buffer_.data(), 1, buffer_.size(), file_) == buffer_.size();
  buffer_.clear();
  const bool closed = std::fclose(file_) == 0;
  file_ = nullptr;
  if (!wrote || !closed) {
    return base::IoError("{}: write failed: {}", path_, std::strerror(errno));
  }
  return base::Status::Ok();
}

}  // namespace frota::sink
