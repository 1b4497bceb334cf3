// Rows per second of the Rio archive reader, streaming the real .csv.gz files.
#include <benchmark/benchmark.h>
#include <fmt/format.h>

#include <filesystem>
#include <string>
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

// Reads `reader` to its end in 64k batches that the loop hands back (as a replay would)
// before reading on, counting rows (and refused ones); false (the benchmark skipped) on
// an error.
bool ReadAll(ArchiveCsvReader& reader, DecodedBatch& batch, std::int64_t& rows,
             benchmark::State& state, std::int64_t* refused = nullptr) {
  while (true) {
    batch.clear();
    const auto more = reader.Next(batch, 1 << 16);
    if (!more.ok()) {
      state.SkipWithError(more.error().message().c_str());
      return false;
    }
    rows += static_cast<std::int64_t>(batch.size());
    if (refused != nullptr) {
      *refused += static_cast<std::int64_t>(batch.rejections.size());
    }
    benchmark::DoNotOptimize(batch.positions.data());
    if (!*more) {
      return true;
    }
  }
}

// Every line file of the 2022 archive, gunzipped, parsed and converted.
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
      if (!ReadAll(**reader, batch, rows, state)) {
        return;
      }
    }
  }
  state.SetItemsProcessed(rows);
}
BENCHMARK(BM_ArchiveCsvGzipAllLines)->Unit(benchmark::kMillisecond);

// Rows as bench/compare/to_csv.py writes the simulated day (uncompressed, UTC times, the
// 17 significant digits of a float32 coordinate), one response of 3,600 vehicles per
// capture time: the parsing alone, from memory.
void BM_ArchiveCsvSimulatedRows(benchmark::State& state) {
  std::string text =
      "seq,id_veiculo,timestamp_gps,timestamp_captura,latitude,longitude,servico,trip_id,data,"
      "direction\n";
  constexpr int kVehicles = 3600;
  constexpr int kResponses = 40;
  for (int response = 0; response < kResponses; ++response) {
    const int capture = 5 * 3600 + response * 15;
    for (int v = 0; v < kVehicles; ++v) {
      const int gps = capture - 3 - (v % 40);
      fmt::format_to(std::back_inserter(text),
                     "{},A{:05d},2024-06-05T{:02d}:{:02d}:{:02d}Z,2024-06-05T{:02d}:{:02d}:{:02d}."
                     "223000Z,{:.17g},{:.17g},{},{}_U_{}_004,2024-06-05,{}\n",
                     response * kVehicles + v, v, gps / 3600, gps / 60 % 60, gps % 60,
                     capture / 3600, capture / 60 % 60, capture % 60,
                     static_cast<double>(static_cast<float>(-22.9 - v * 1e-5 - response * 1e-6)),
                     static_cast<double>(static_cast<float>(-43.5 + v * 1e-5)), 100 + v % 300,
                     100 + v % 300, v % 2, v % 2 == 0 ? 'I' : 'V');
    }
  }
  DecodeOptions options;
  options.time_zone = "America/Sao_Paulo";
  DecodedBatch batch;
  std::int64_t rows = 0;
  std::int64_t refused = 0;
  for (auto _ : state) {
    auto reader = ArchiveCsvReader::FromBytes(text, options);
    if (!reader.ok()) {
      state.SkipWithError(reader.error().message().c_str());
      return;
    }
    if (!ReadAll(**reader, batch, rows, state, &refused)) {
      return;
    }
  }
  if (refused != 0) {
    state.SkipWithError("a simulated row was refused");
  }
  state.SetItemsProcessed(rows);
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations()) *
                          static_cast<std::int64_t>(text.size()));
}
BENCHMARK(BM_ArchiveCsvSimulatedRows)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace frota::codec
