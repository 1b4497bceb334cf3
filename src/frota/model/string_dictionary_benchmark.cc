// Interning texts the dictionary already holds: what the pipeline does for every record's
// vehicle id (and for a route, trip or date that changed), at the sizes of a city's fleet
// and of a million vehicles.
#include <benchmark/benchmark.h>
#include <fmt/format.h>

#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "frota/model/string_dictionary.h"

namespace frota::model {
namespace {

// Arg: distinct texts. Each iteration interns 2^20 of them in a random order (all known),
// from ids like a feed's ("B12345", "t12345-20240605").
void BM_InternKnownTexts(benchmark::State& state) {
  const auto distinct = static_cast<std::size_t>(state.range(0));
  std::vector<std::string> texts;
  texts.reserve(distinct);
  for (std::size_t i = 0; i < distinct; ++i) {
    texts.push_back(i % 2 == 0 ? fmt::format("B{:05d}", i) : fmt::format("t{}-20240605", i));
  }
  StringDictionary strings;
  for (const auto& text : texts) {
    strings.Intern(text);
  }
  std::mt19937_64 random(42);
  std::uniform_int_distribution<std::size_t> pick(0, distinct - 1);
  std::vector<std::uint32_t> order(std::size_t{1} << 20);
  for (auto& i : order) {
    i = static_cast<std::uint32_t>(pick(random));
  }
  std::uint64_t sum = 0;
  for (auto _ : state) {
    for (const std::uint32_t i : order) {
      sum += strings.Intern(texts[i]);
    }
  }
  benchmark::DoNotOptimize(sum);
  state.SetItemsProcessed(state.iterations() * static_cast<std::int64_t>(order.size()));
}
BENCHMARK(BM_InternKnownTexts)->Arg(4096)->Arg(65536)->Arg(1 << 20)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace frota::model
