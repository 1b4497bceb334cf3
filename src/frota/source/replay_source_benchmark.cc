// Records per second of a replay's reading thread: CSV files decoded and merged in ingest
// order (ReplaySource), each record handed out as decoded or interned.
#include <benchmark/benchmark.h>
#include <fmt/format.h>

#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include "frota/source/replay_source.h"
#include "frota/testing/subprocess.h"

namespace frota::source {
namespace {

// Files as bench/compare/to_csv.py writes the simulated day: a response of 3,600
// vehicles every 15 s, a file per 10 minutes of them (four files, 576,000 rows, 71 MB),
// every vehicle's trip the same for 40 responses, half the responses repeated (the
// duplicates of the Rio feeds).
class SimulatedFiles {
 public:
  SimulatedFiles() : dir_("replay-source-benchmark") {
    constexpr int kVehicles = 3600;
    constexpr int kFiles = 4;
    constexpr int kResponsesPerFile = 40;
    std::int64_t seq = 0;
    for (int file = 0; file < kFiles; ++file) {
      const auto path = dir_.path() / fmt::format("part-{:05d}.csv", file);
      std::ofstream out(path);
      out << "seq,id_veiculo,timestamp_gps,timestamp_captura,latitude,longitude,servico,"
             "trip_id,data,direction\n";
      std::string text;
      for (int r = 0; r < kResponsesPerFile; ++r) {
        const int response = file * kResponsesPerFile + r;
        const int capture = 5 * 3600 + response * 15;
        const int state = response - response % 2;  // every other response repeats
        for (int v = 0; v < kVehicles; ++v) {
          const int gps = 5 * 3600 + state * 15 - 3 - (v % 40);
          fmt::format_to(
              std::back_inserter(text),
              "{},A{:05d},2024-06-05T{:02d}:{:02d}:{:02d}Z,2024-06-05T{:02d}:{:02d}:{:02d}."
              "223000Z,{:.17g},{:.17g},{},{}_U_{}_{:03d},2024-06-05,{}\n",
              seq++, v, gps / 3600, gps / 60 % 60, gps % 60, capture / 3600, capture / 60 % 60,
              capture % 60,
              static_cast<double>(static_cast<float>(-22.9 - v * 1e-5 - state * 1e-6)),
              static_cast<double>(static_cast<float>(-43.5 + v * 1e-5)), 100 + v % 300,
              100 + v % 300, v % 2, response / 40, v % 2 == 0 ? 'I' : 'V');
        }
      }
      out << text;
      rows_ += kVehicles * kResponsesPerFile;
      specs_.push_back(*ParseInputSpec("rio-archive-csv:" + path.string()));
    }
  }
  [[nodiscard]] std::int64_t rows() const { return rows_; }
  std::unique_ptr<ReplaySource> Open(model::SourceCatalog& catalog) const {
    auto partitions = ExpandInputs(specs_, "frota-sim");
    ReplayOptions options;
    options.mode = model::Mode::kBus;
    auto source = ReplaySource::Open(std::move(*partitions), &catalog, options, {});
    return std::move(*source);
  }

 private:
  testing::TempDir dir_;
  std::vector<InputSpec> specs_;
  std::int64_t rows_ = 0;
};

const SimulatedFiles& Files() {
  static const SimulatedFiles files;
  return files;
}

template <typename Record, typename Next>
void ReadAll(benchmark::State& state, Next next) {
  const SimulatedFiles& files = Files();
  std::int64_t records = 0;
  std::vector<Record> batch;
  for (auto _ : state) {
    model::SourceCatalog catalog;
    auto source = files.Open(catalog);
    auto strings = std::make_shared<model::StringDictionary>();
    model::RecordInterner interner(strings);
    while (true) {
      const auto more = next(*source, batch, interner);
      if (!more.ok()) {
        state.SkipWithError(more.error().message().c_str());
        return;
      }
      if (!*more) {
        break;
      }
      records += static_cast<std::int64_t>(batch.size());
      benchmark::DoNotOptimize(batch.data());
    }
  }
  if (records != files.rows() * static_cast<std::int64_t>(state.iterations())) {
    state.SkipWithError("records went missing");
  }
  state.SetItemsProcessed(records);
}

// Decoded records as they are (what reconcile and publish read).
void BM_ReplaySourceDecoded(benchmark::State& state) {
  ReadAll<SourceRecord>(
      state, [](ReplaySource& source, std::vector<SourceRecord>& batch,
                model::RecordInterner& /*interner*/) { return source.Next(batch, 16384); });
}
BENCHMARK(BM_ReplaySourceDecoded)->Unit(benchmark::kMillisecond);

// Decoded and interned, a replay's reading thread.
void BM_ReplaySourceInterned(benchmark::State& state) {
  ReadAll<InternedRecord>(
      state, [](ReplaySource& source, std::vector<InternedRecord>& batch,
                model::RecordInterner& interner) { return source.Next(batch, 16384, interner); });
}
BENCHMARK(BM_ReplaySourceInterned)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace frota::source
