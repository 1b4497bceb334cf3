// Fuzz target: the Rio archive CSV reader on any bytes, in memory, plain or gzip.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string_view>

#include "frota/codec/format.h"
#include "frota/codec/fuzz_invariants.h"

namespace {

// Reads everything in batches of `chunk`; nullopt when the reader stops with an error.
std::optional<frota::codec::DecodedBatch> ReadInChunks(std::string_view bytes, std::size_t chunk) {
  using namespace frota::codec;  // NOLINT(google-build-using-namespace)
  DecodeOptions options;
  options.first_offset = 3;
  auto reader = ArchiveCsvReader::FromBytes(bytes, options);
  if (!reader.ok()) {
    return std::nullopt;
  }
  DecodedBatch batch;
  while (true) {
    const std::size_t before = batch.size();
    const auto more = (*reader)->Next(batch, chunk);
    if (!more.ok()) {
      return std::nullopt;
    }
    fuzz::Require(batch.size() - before <= chunk, "at most max_records per call");
    if (!*more) {
      return batch;
    }
  }
}

// The same records read interned, materialised back into a batch; nullopt on an error.
std::optional<frota::codec::DecodedBatch> ReadInterned(std::string_view bytes) {
  using namespace frota::codec;  // NOLINT(google-build-using-namespace)
  DecodeOptions options;
  options.first_offset = 3;
  auto reader = ArchiveCsvReader::FromBytes(bytes, options);
  if (!reader.ok()) {
    return std::nullopt;
  }
  auto strings = std::make_shared<frota::model::StringDictionary>();
  frota::model::RecordInterner interner(strings);
  InternedBatch interned;
  while (true) {
    const auto more = (*reader)->Next(interned, 7, interner);
    if (!more.ok()) {
      return std::nullopt;
    }
    if (!*more) {
      break;
    }
  }
  DecodedBatch batch;
  for (const auto& position : interned.positions) {
    batch.positions.push_back(frota::model::MaterializePosition(position, *strings));
  }
  for (const auto& rejection : interned.rejections) {
    batch.rejections.push_back(frota::model::MaterializeRejection(rejection, *strings));
  }
  return batch;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace frota::codec;  // NOLINT(google-build-using-namespace)
  const std::string_view bytes(reinterpret_cast<const char*>(data), size);
  (void)DetectFormat(bytes);

  const auto one_by_one = ReadInChunks(bytes, 1);
  const auto all_at_once = ReadInChunks(bytes, 1 << 20);
  fuzz::Require(one_by_one.has_value() == all_at_once.has_value(), "chunking does not matter");
  const auto interned = ReadInterned(bytes);
  fuzz::Require(interned.has_value() == all_at_once.has_value(), "interning does not matter");
  if (interned) {
    fuzz::Require(fuzz::SameBatch(*interned, *all_at_once), "the same records interned");
  }
  if (one_by_one) {
    fuzz::Require(fuzz::SameBatch(*one_by_one, *all_at_once), "same records in any chunking");
    fuzz::CheckBatch(*one_by_one, static_cast<std::int64_t>(one_by_one->size()), 3,
                     "rio-archive-csv");
  }

  DecodeOptions options;
  options.first_offset = 3;
  DecodedBatch batch;
  const auto info = DecodeResponse(Format::kRioArchiveCsv, bytes, options, batch);
  fuzz::Require(info.ok() == all_at_once.has_value(), "DecodeResponse agrees with the reader");
  if (!info.ok()) {
    fuzz::Require(batch.size() == 0, "an error appends nothing");
  } else {
    fuzz::Require(fuzz::SameBatch(batch, *all_at_once), "DecodeResponse gives the same records");
  }
  return 0;
}
