// Fuzz target: the Rio SPPO and BRT JSON readers on any bytes (each input feeds both).
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "frota/codec/format.h"
#include "frota/codec/fuzz_invariants.h"

namespace {

void DecodeAs(frota::codec::Format format, std::string_view bytes) {
  using namespace frota::codec;  // NOLINT(google-build-using-namespace)
  DecodeOptions options;
  options.first_offset = 42;
  DecodedBatch batch;
  const auto info = DecodeResponse(format, bytes, options, batch);
  if (!info.ok()) {
    fuzz::Require(batch.size() == 0, "an error appends nothing");
    return;
  }
  fuzz::CheckBatch(batch, info->records, options.first_offset, FormatName(format));
  // Decoding is a function of the bytes: a second run gives the same records.
  DecodedBatch again;
  const auto again_info = DecodeResponse(format, bytes, options, again);
  fuzz::Require(again_info.ok() && fuzz::SameBatch(batch, again), "deterministic");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view bytes(reinterpret_cast<const char*>(data), size);
  (void)frota::codec::DetectFormat(bytes);
  DecodeAs(frota::codec::Format::kRioSppo, bytes);
  DecodeAs(frota::codec::Format::kRioBrt, bytes);
  return 0;
}
