// Checkpoint framing: operator state bytes sealed with a magic, a format version and a CRC.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "frota/base/status.h"

namespace frota::engine {

/// Seals `payload` as a checkpoint of `kind` (e.g. "shard", "runner") in format `version`:
///   "FROTACKP" | kind (varint-prefixed) | version u32 | payload size u64 | crc32c u32 | payload
std::string SealCheckpoint(std::string_view kind, std::uint32_t version, std::string_view payload);
/// The same for a payload written in two parts (`first` then `second`), without joining
/// them first: a large fleet's shard state is tens of megabytes every epoch.
std::string SealCheckpoint(std::string_view kind, std::uint32_t version, std::string_view first,
                           std::string_view second);

/// Checks a sealed checkpoint and returns its payload. Errors say exactly what is wrong:
/// not a checkpoint, a different kind, a format version this binary does not read (a
/// checkpoint from another version of frota), a truncated or corrupted payload.
base::Result<std::string_view> OpenCheckpoint(std::string_view bytes, std::string_view kind,
                                              std::uint32_t version);

/// A checkpoint's payload and the format version it was written in.
struct OpenedCheckpoint {
  std::string_view payload;
  std::uint32_t version = 0;
};
/// The same for a reader of several versions: any of `oldest`..`newest`.
base::Result<OpenedCheckpoint> OpenCheckpoint(std::string_view bytes, std::string_view kind,
                                              std::uint32_t oldest, std::uint32_t newest);

}  // namespace frota::engine
