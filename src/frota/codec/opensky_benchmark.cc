// States per second of the OpenSky reader on the real global captures.
#include <benchmark/benchmark.h>

#include "frota/base/file.h"
#include "frota/codec/decode.h"
#include "frota/testing/shared_data.h"

namespace frota::codec {
namespace {

void DecodeFile(benchmark::State& state, std::string_view relative) {
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
  DecodedBatch batch;
  std::int64_t records = 0;
  for (auto _ : state) {
    batch.clear();
    const auto info = DecodeResponse(Format::kOpenSky, *bytes, {}, batch);
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

void BM_OpenSkyGlobal2021(benchmark::State& state) {
  DecodeFile(state, "opensky/global_states_all_1634471390.json");
}
BENCHMARK(BM_OpenSkyGlobal2021);

void BM_OpenSkyUsaBox2025(benchmark::State& state) {
  DecodeFile(state, "opensky/usa_bbox_states_1738361582.json");
}
BENCHMARK(BM_OpenSkyUsaBox2025);

}  // namespace
}  // namespace frota::codec
