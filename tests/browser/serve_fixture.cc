// A test tool for the live page's browser test: serves a DuckDB file with frota serve's
// Server (as `frota serve --db` does) and, beside it in the same process, runs the SQL
// statements it reads on stdin (one per line) on a connection of its own, so the test
// can move a vehicle or raise an alert while the page watches. DuckDB lets one process
// alone open a file, hence one process for both.
//
//   serve_fixture DB.duckdb     prints "port N", then "ok" or "error: ..." per statement
#include <cstdio>
#include <iostream>
#include <string>

#include "frota/serve/server.h"
#include "frota/serve/store.h"
#include "frota/sink/duckdb_sink.h"

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: serve_fixture DB.duckdb\n");
    return 2;
  }
  auto db = frota::sink::OpenFrotaDuckDb(argv[1], /*must_exist=*/true);
  if (!db.ok()) {
    std::fprintf(stderr, "serve_fixture: %s\n", db.error().message().c_str());
    return 2;
  }
  auto reader = (*db)->Connect();
  if (!reader.ok()) {
    std::fprintf(stderr, "serve_fixture: %s\n", reader.error().message().c_str());
    return 1;
  }
  frota::serve::ServerOptions options;
  options.listen = "127.0.0.1:0";
  frota::serve::Server server(frota::serve::DuckDbStore(std::move(*reader)), options);
  if (const auto started = server.Start(); !started.ok()) {
    std::fprintf(stderr, "serve_fixture: %s\n", started.error().message().c_str());
    return 1;
  }
  std::cout << "port " << server.port() << std::endl;
  std::string line;
  while (std::getline(std::cin, line)) {
    if (line.empty()) {
      continue;
    }
    const auto status = (*db)->Execute(line);
    if (status.ok()) {
      std::cout << "ok" << std::endl;
    } else {
      std::cout << "error: " << status.error().message() << std::endl;
    }
  }
  server.Stop();
  return 0;
}
