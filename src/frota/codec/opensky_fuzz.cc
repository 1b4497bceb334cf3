// Fuzz target: the OpenSky states/all reader on any bytes.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "frota/codec/format.h"
#include "frota/codec/fuzz_invariants.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace frota::codec;  // NOLINT(google-build-using-namespace)
  const std::string_view bytes(reinterpret_cast<const char*>(data), size);
  (void)DetectFormat(bytes);
  DecodeOptions options;
  options.first_offset = 7;
  DecodedBatch batch;
  const auto info = DecodeResponse(Format::kOpenSky, bytes, options, batch);
  if (!info.ok()) {
    fuzz::Require(batch.size() == 0, "an error appends nothing");
    return 0;
  }
  fuzz::CheckBatch(batch, info->records, options.first_offset, "opensky");
  for (const auto& position : batch.positions) {
    fuzz::Require(position.mode == frota::model::Mode::kAircraft, "aircraft");
  }
  return 0;
}
