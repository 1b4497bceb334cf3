// Positions per second of the Rio GPS API readers on the real snapshots.
#include <benchmark/benchmark.h>

#include <string>

#include "frota/base/file.h"
#include "frota/codec/decode.h"
#include "frota/testing/shared_data.h"

namespace frota::codec {
namespace {

void DecodeFile(benchmark::State& state, Format format, std::string_view relative) {
  const auto path = testing::SharedFile(relative);
  if (!path) {
    state.SkipWithError("real capture not found (set FROTA_SHARED_DATA)");
    return;
  }
  const auto bytes = base::ReadFile(*path);
  if (!bytes.ok()) {
    state.SkipWithError(bytes.error().message().c_str());
    return;
  }
  DecodeOptions options;
  DecodedBatch batch;
  std::int64_t records = 0;
  for (auto _ : state) {
    batch.clear();
    const auto info = DecodeResponse(format, *bytes, options, batch);
    if (!info.ok()) {
      state.SkipWithError(info.error().message().c_str());
      return;
    }
    records += info->records;
    benchmark::DoNotOptimize(batch.positions.data());
  }
  state.SetItemsProcessed(records);
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * bytes->size()));
}

void BM_RioSppoSnapshot(benchmark::State& state) {
  DecodeFile(state, Format::kRioSppo, "rio-api-snapshots/sppo_api_2024-06-06.json");
}
BENCHMARK(BM_RioSppoSnapshot);

void BM_RioBrtSnapshot(benchmark::State& state) {
  DecodeFile(state, Format::kRioBrt, "rio-api-snapshots/brt_api_realtime_2024-01-13.json");
}
BENCHMARK(BM_RioBrtSnapshot);

}  // namespace
}  // namespace frota::codec
