// `frota serve`: the live API, alert stream, GTFS-Realtime feed and page over a database.
#include <fmt/core.h>
#include <pthread.h>
#include <signal.h>
#include <spdlog/spdlog.h>

#include <cstdio>

#include "frota/cli/commands.h"
#include "frota/serve/server.h"
#include "frota/serve/store.h"
#include "frota/sink/duckdb_sink.h"

namespace frota::cli {

namespace {

struct ServeFlags {
  std::string db;
  std::string postgres;
  std::string gtfs;
  std::string listen = "127.0.0.1:8080";
};

int RunServe(const ServeFlags& flags) {
  if (flags.db.empty() == flags.postgres.empty()) {
    return ReportError(base::InvalidInput("serve: give --db FILE or --postgres DSN"));
  }
  // SIGINT and SIGTERM end the server: blocked here (and in every thread made after),
  // then awaited with sigwait.
  sigset_t stop_signals;
  sigemptyset(&stop_signals);
  sigaddset(&stop_signals, SIGINT);
  sigaddset(&stop_signals, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &stop_signals, nullptr);

  auto store = serve::OpenStore(
      flags.postgres, [&] { return sink::OpenFrotaDuckDb(flags.db, /*must_exist=*/true); });
  if (!store.ok()) {
    return ReportError(store.error());
  }
  serve::ServerOptions options;
  options.listen = flags.listen;
  auto vehicle_feed = serve::LoadVehicleFeed(flags.gtfs);
  if (!vehicle_feed.ok()) {
    return ReportError(vehicle_feed.error());
  }
  options.vehicle_feed = std::move(*vehicle_feed);
  serve::Server server(std::move(*store), options);
  if (const auto started = server.Start(); !started.ok()) {
    return ReportError(started.error());
  }
  const std::string host =
      server.host().find(':') != std::string::npos ? "[" + server.host() + "]" : server.host();
  fmt::print("serving http://{}:{}/\n", host, server.port());
  std::fflush(stdout);
  int signal_number = 0;
  sigwait(&stop_signals, &signal_number);
  spdlog::info("serve: stopping signal={}", signal_number == SIGINT ? "SIGINT" : "SIGTERM");
  server.Stop();
  return kExitOk;
}

}  // namespace

void AddServeCommand(CLI::App& app, CommandMain& run) {
  auto flags = std::make_shared<ServeFlags>();
  auto* sub = app.add_subcommand(
      "serve", "Serve the live page, a JSON API, an alert stream and a cleaned GTFS-RT feed");
  auto* db = sub->add_option("--db", flags->db, "DuckDB database written by replay or run");
  auto* pg = sub->add_option("--postgres", flags->postgres, "PostgreSQL DSN instead of --db");
  db->excludes(pg);
  sub->add_option("--gtfs", flags->gtfs,
                  "Static GTFS (zip or folder) the jobs ran with: the GTFS-RT feed's routes, "
                  "trips and stops");
  sub->add_option("--listen", flags->listen,
                  "HOST:PORT to serve on (PORT 0: any free port, printed on stdout)")
      ->default_val("127.0.0.1:8080");
  sub->callback([flags, &run] { run = [flags] { return RunServe(*flags); }; });
}

}  // namespace frota::cli
