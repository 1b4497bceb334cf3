// Deterministic CSV: every value printed the same way on every run and from every database.
#pragma once

#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <string>
#include <string_view>

#include "frota/base/status.h"

namespace frota::sink {

/// Writes a CSV file value by value. Numbers are printed in their shortest round-trip
/// form, timestamps as ISO 8601 UTC, dates as YYYY-MM-DD, booleans as true/false, NULL
/// as an empty field; text is quoted only when it must be (RFC 4180).
class CsvWriter {
 public:
  static base::Result<std::unique_ptr<CsvWriter>> Create(const std::filesystem::path& path);
  ~CsvWriter();
  CsvWriter(const CsvWriter&) = delete;
  CsvWriter& operator=(const CsvWriter&) = delete;

  void Text(std::string_view value);
  void Int(std::int64_t value);
  void Double(double value);
  void Float(float value);
  void Bool(bool value);
  void TimestampMicros(std::int64_t micros);
  void DateDays(std::int32_t days);
  void Null();
  void EndRow();
  base::Status Close();

 private:
  CsvWriter() = default;
  void Separator();
  std::string path_;
  std::FILE* file_ = nullptr;
  std::string buffer_;
  bool first_in_row_ = true;
};

}  // namespace frota::sink
