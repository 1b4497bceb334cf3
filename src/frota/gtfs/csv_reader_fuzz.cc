// Fuzz target: the CSV reader accepts or rejects any bytes without crashing, and
// gives the same records (or the same error) whatever its buffer and read sizes.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <vector>

#include "frota/gtfs/csv_reader.h"

namespace {

class ChunkedSource final : public frota::gtfs::ByteSource {
 public:
  ChunkedSource(std::string_view bytes, std::size_t chunk) : bytes_(bytes), chunk_(chunk) {}
  frota::base::Result<std::size_t> Read(char* buffer, std::size_t size) override {
    const std::size_t n = std::min({size, chunk_, bytes_.size() - offset_});
    std::copy_n(bytes_.data() + offset_, n, buffer);
    offset_ += n;
    return n;
  }

 private:
  std::string_view bytes_;
  std::size_t chunk_;
  std::size_t offset_ = 0;
};

// Every record as one string (fields joined by \x1f, records by \x1e), or the error.
std::string ReadAll(std::string_view text, std::size_t chunk, std::size_t buffer) {
  auto reader =
      frota::gtfs::CsvReader::Open(std::make_unique<ChunkedSource>(text, chunk), "f.csv", buffer);
  if (!reader.ok()) {
    return "error: " + reader.error().message();
  }
  std::string out;
  for (const auto& name : reader->header()) {
    out += name + '\x1f';
  }
  while (true) {
    auto more = reader->Next();
    if (!more.ok()) {
      return out + "error: " + more.error().message();
    }
    if (!*more) {
      return out;
    }
    if (reader->field_count() != reader->header().size()) {
      std::abort();  // the reader promises equal field counts
    }
    out += std::to_string(reader->line()) + '\x1e';
    for (std::size_t i = 0; i < reader->field_count(); ++i) {
      out.append(reader->field(i));
      out += '\x1f';
    }
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  const std::string whole = ReadAll(text, 1 << 20, frota::gtfs::CsvReader::kDefaultBufferBytes);
  const std::size_t chunk = size == 0 ? 1 : 1 + data[0] % 7;
  const std::size_t buffer = size < 2 ? 1 : 1 + data[1] % 16;
  if (ReadAll(text, chunk, buffer) != whole) {
    std::abort();
  }
  return 0;
}
