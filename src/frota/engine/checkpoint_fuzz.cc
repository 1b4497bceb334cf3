// Fuzz target: opening arbitrary bytes as a checkpoint never crashes, and anything it
// accepts re-seals to the same bytes.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "frota/engine/checkpoint.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view bytes(reinterpret_cast<const char*>(data), size);
  const auto payload = frota::engine::OpenCheckpoint(bytes, "job-shard", 1);
  if (payload.ok() && frota::engine::SealCheckpoint("job-shard", 1, *payload) != bytes) {
    std::abort();
  }
  return 0;
}
