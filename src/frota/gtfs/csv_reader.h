// A streaming RFC 4180 CSV reader for GTFS tables, with file/line/column error messages.
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "frota/base/status.h"

namespace frota::gtfs {

/// Where a CsvReader gets its bytes: a file, a zip member, or memory.
/// Implementations are single-threaded and used by one reader at a time.
class ByteSource {
 public:
  virtual ~ByteSource() = default;
  /// Reads up to `size` bytes into `buffer`; returns 0 only at the end of the input.
  virtual base::Result<std::size_t> Read(char* buffer, std::size_t size) = 0;
};

/// Bytes already in memory; `bytes` must outlive the source.
std::unique_ptr<ByteSource> MemorySource(std::string_view bytes);
/// A file read in chunks; the error names the path.
base::Result<std::unique_ptr<ByteSource>> FileSource(const std::filesystem::path& path);

/// Reads one CSV table record by record, keeping only a window of the input in memory.
///
/// Accepts what GTFS producers write: a UTF-8 byte order mark, LF, CRLF or CR line
/// ends, RFC 4180 quoting (commas, doubled quotes and line breaks inside quotes).
/// Header names are trimmed of spaces and tabs (" exact_times" is exact_times); values
/// are returned as written. Empty lines are skipped, and so are records whose fields
/// are all empty (",,,,", as spreadsheets export them). Errors, each naming the file
/// and the line: an empty input (no header), a record whose field count differs
/// from the header's, a quote left open at the end of the input, and a character
/// other than a comma or line end after a closing quote.
///
/// Lifecycle: Open() reads the header; Next() advances; the fields of the current
/// record stay valid until the next call to Next(). Not thread-safe; movable.
class CsvReader {
 public:
  /// Reads the header. `name` is how errors name the file (e.g. "routes.txt").
  static base::Result<CsvReader> Open(std::unique_ptr<ByteSource> source, std::string name);
  /// The same with a chosen initial buffer (it grows for longer records); tests and
  /// fuzzers use a few bytes so that records straddle refills.
  static base::Result<CsvReader> Open(std::unique_ptr<ByteSource> source, std::string name,
                                      std::size_t initial_buffer_bytes);

  /// The default initial buffer: 256 KiB.
  static constexpr std::size_t kDefaultBufferBytes = 256 * 1024;

  CsvReader(CsvReader&&) noexcept = default;
  CsvReader& operator=(CsvReader&&) noexcept = default;
  ~CsvReader();

  /// Advances to the next record: true if there is one, false at the end.
  base::Result<bool> Next();

  [[nodiscard]] const std::vector<std::string>& header() const { return header_; }
  /// Index of the first header column called `column`, if any.
  [[nodiscard]] std::optional<std::size_t> FindColumn(std::string_view column) const;
  /// How many header columns are called `column` (a duplicate is usually a mistake).
  [[nodiscard]] std::size_t CountColumn(std::string_view column) const;

  [[nodiscard]] std::size_t field_count() const { return fields_.size(); }
  /// Field `index` of the current record (unquoted, doubled quotes undone).
  [[nodiscard]] std::string_view field(std::size_t index) const { return fields_[index]; }
  /// Line of the input (1-based) on which the current record starts; 1 is the header.
  [[nodiscard]] std::int64_t line() const { return record_line_; }
  [[nodiscard]] const std::string& name() const { return name_; }

  /// "<name>: line <line>: <message>" for the current record.
  [[nodiscard]] base::Error ErrorHere(std::string_view message) const;
  /// "<name>: line <line>: column <column>: <message>" for the current record.
  [[nodiscard]] base::Error ErrorAt(std::string_view column, std::string_view message) const;

 private:
  CsvReader(std::unique_ptr<ByteSource> source, std::string name, std::size_t buffer_bytes);
  enum class Parse { kRecord, kNeedMore, kEnd };
  struct Span {  // a field of the record being parsed, as a range of buffer_
    std::size_t start;
    std::size_t size;
    bool doubled_quotes;
  };
  base::Result<Parse> ParseRecord();
  base::Status Fill();

  std::unique_ptr<ByteSource> source_;
  std::string name_;
  std::vector<std::string> header_;
  // buffer_[begin_, end_) holds unparsed input; fields_ view into buffer_.
  std::unique_ptr<char[]> buffer_;
  std::size_t capacity_ = 0;
  std::size_t begin_ = 0;
  std::size_t end_ = 0;
  bool eof_ = false;
  std::vector<Span> spans_;
  std::vector<std::string_view> fields_;
  std::int64_t next_line_ = 1;    // line at begin_
  std::int64_t record_line_ = 0;  // line of the current record
};

}  // namespace frota::gtfs
