// The time from an alert's commit to its arrival on the alert stream (the target: within
// 2 s of the watermark passing its moment; the engine commits an epoch at most every
// --epoch-seconds, and this measures what serve adds after the commit). DuckDB, with
// the server's default alert poll; one alert committed per iteration.
#include <benchmark/benchmark.h>
#include <fmt/format.h>

#include <chrono>

#include "frota/serve/server.h"
#include "frota/sim/sim_test_util.h"
#include "frota/sink/duckdb_sink.h"
#include "serve_day.h"

namespace frota::serve {
namespace {

void BM_AlertCommitToStream(benchmark::State& state) {
  sim::testing_util::ScratchDir dir("serve-bench");
  auto db = sink::OpenFrotaDuckDb(dir.path() / "bench.duckdb", /*must_exist=*/false);
  if (!db.ok() || !(*db)->Execute(testing_util::AlertsDdl(false)).ok()) {
    state.SkipWithError("cannot make the database");
    return;
  }
  auto reader_connection = (*db)->Connect();
  ServerOptions options;
  options.listen = "127.0.0.1:0";
  Server server(DuckDbStore(std::move(*reader_connection)), options);
  if (!server.Start().ok()) {
    state.SkipWithError("cannot start the server");
    return;
  }
  testing_util::StreamReader reader(server.port(), "/api/alerts/stream");
  reader.WaitFor("event: as_of", std::chrono::seconds(30));
  int n = 0;
  for (auto _ : state) {
    const std::string id = fmt::format("bench-{}", n++);
    const auto committed = std::chrono::steady_clock::now();
    if (!(*db)
             ->Execute(testing_util::InsertAlert(id, "gap", "101", "2024-06-05 07:00:00",
                                                 "2024-06-05 07:10:00", "v1"))
             .ok()) {
      state.SkipWithError("insert failed");
      break;
    }
    if (!reader.WaitFor("\"alert_id\":\"" + id + "\"", std::chrono::seconds(30))) {
      state.SkipWithError("the alert never arrived");
      break;
    }
    state.SetIterationTime(
        std::chrono::duration<double>(std::chrono::steady_clock::now() - committed).count());
  }
  server.Stop();
}
BENCHMARK(BM_AlertCommitToStream)->UseManualTime()->Unit(benchmark::kMillisecond)->Iterations(40);

}  // namespace
}  // namespace frota::serve
