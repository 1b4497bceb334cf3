// The two GTFS-Realtime decoders, exposed for the differential fuzz test and benchmark.
#pragma once

#include <string_view>

#include "frota/base/status.h"
#include "frota/codec/decode.h"

namespace frota::codec::internal {

/// What DecodeResponse(kGtfsRt) uses: the zero-copy wire reader.
base::Result<ResponseInfo> DecodeGtfsRt(std::string_view bytes, const DecodeOptions& options,
                                        DecodedBatch& out);

/// The same mapping over libprotobuf's generated parser: the reference the wire reader
/// must agree with, record for record and error for error.
base::Result<ResponseInfo> DecodeGtfsRtWithGeneratedCode(std::string_view bytes,
                                                         const DecodeOptions& options,
                                                         DecodedBatch& out);

}  // namespace frota::codec::internal
