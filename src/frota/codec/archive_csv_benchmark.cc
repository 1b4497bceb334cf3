// Rows per second of the Rio archive reader, streaming the real .csv.gz files.
#include <benchmark/benchmark.h>

#include <filesystem>
#include <vector>

#include "frota/codec/decode.h"
#include "frota/testing/shared_data.h"

namespace frota::codec {
namespace {

std::vector<std::filesystem::path> ArchiveFiles() {
  std::vector<std::filesystem::path> files;
  if (const auto dir = testing::SharedFile("rio-brt-2022/gps")) {
    for (const auto& entry : std::filesystem::directory_iterator(*dir)) {
      if (entry.path().string().ends_with(".csv.gz")) {
        files.push_back(entry.path());
      }
    }
  }
  return files;
}

// Every line file of the 2022 archive, gunzipped, parsed and converted, in 64k batches
// that the loop hands back (as a replay would) before reading on.
void BM_ArchiveCsvGzipAllLines(benchmark::State& state) {
  const auto files = ArchiveFiles();
  if (files.empty()) {
    state.SkipWithError("real capture not found (set FROTA_SHARED_DATA)");
    return;
  }
  DecodedBatch batch;
  std::int64_t rows = 0;
  for (auto _ : state) {
    for (const auto& file : files) {
      auto reader = ArchiveCsvReader::Open(file, {});
      if (!reader.ok()) {
        state.SkipWithError(reader.error().message().c_str());
        return;
      }
      while (true) {
        batch.clear();
        const auto more = (*reader)->Next(batch, 1 << 16);
        if (!more.ok()) {
          state.SkipWithError(more.error().message().c_str());
          return;
        }
        rows += static_cast<std::int64_t>(batch.size());
        benchmark::DoNotOptimize(batch.positions.data());
        if (!*more) {
          break;
        }
      }
    }
  }
  state.SetItemsProcessed(rows);
}
BENCHMARK(BM_ArchiveCsvGzipAllLines)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace frota::codec
