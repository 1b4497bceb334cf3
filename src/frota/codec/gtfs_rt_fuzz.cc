// Fuzz target: the GTFS-Realtime wire reader on any bytes, held to libprotobuf's parser.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "frota/codec/format.h"
#include "frota/codec/fuzz_invariants.h"
#include "frota/codec/gtfs_rt_internal.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace frota::codec;  // NOLINT(google-build-using-namespace)
  const std::string_view bytes(reinterpret_cast<const char*>(data), size);
  (void)DetectFormat(bytes);

  DecodeOptions options;
  options.first_offset = 5;
  DecodedBatch fast;
  DecodedBatch reference;
  const auto fast_info = internal::DecodeGtfsRt(bytes, options, fast);
  const auto reference_info = internal::DecodeGtfsRtWithGeneratedCode(bytes, options, reference);
  // Differential: the zero-copy reader accepts, rejects and maps exactly what the
  // generated parser does.
  fuzz::Require(fast_info.ok() == reference_info.ok(), "both parsers accept the same bytes");
  if (!fast_info.ok()) {
    fuzz::Require(fast.size() == 0, "an error appends nothing");
    fuzz::Require(fast_info.error().message() == reference_info.error().message(), "same error");
    return 0;
  }
  fuzz::Require(fuzz::SameBatch(fast, reference), "same records as the generated parser");
  fuzz::Require(fast_info->skipped_entities == reference_info->skipped_entities,
                "same skipped entities");
  fuzz::CheckBatch(fast, fast_info->records, options.first_offset, "gtfs-rt");
  return 0;
}
