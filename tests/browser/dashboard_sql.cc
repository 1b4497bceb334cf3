// A test tool: runs one SQL query on a DuckDB file and prints the rows as JSON, so the browser
// tests can check the dashboard's numbers against the database independently of it.
//
//   dashboard_sql DB.duckdb "SELECT ..."   ->   [["v1", "v2"], ...]   (every value as text or null)
#include <cstdio>
#include <string>

#include <nlohmann/json.hpp>

#include "frota/sink/duckdb_connection.h"

int main(int argc, char** argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: dashboard_sql DB.duckdb \"SQL\"\n");
    return 2;
  }
  auto db = frota::sink::DuckDbConnection::Open(argv[1], /*read_only=*/true);
  if (!db.ok()) {
    std::fprintf(stderr, "dashboard_sql: %s\n", db.error().message().c_str());
    return 2;
  }
  auto result = (*db)->Query(argv[2]);
  if (!result.ok()) {
    std::fprintf(stderr, "dashboard_sql: %s\n", result.error().message().c_str());
    return 1;
  }
  nlohmann::json rows = nlohmann::json::array();
  for (std::size_t r = 0; r < result->rows(); ++r) {
    nlohmann::json row = nlohmann::json::array();
    for (std::size_t c = 0; c < result->columns(); ++c) {
      if (result->IsNull(r, c)) {
        row.push_back(nullptr);
      } else {
        row.push_back(result->String(r, c));
      }
    }
    rows.push_back(row);
  }
  std::printf("%s\n", rows.dump().c_str());
  return 0;
}
