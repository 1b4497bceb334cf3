// A test tool: runs one SQL query on a DuckDB file and prints the rows as JSON, so the browser
// tests can check the dashboard's numbers against the database independently of it. With
// --write it opens the file for writing and runs statements instead (the tests use it to add
// rows and tables a newer `frota headways` writes, when the one built here does not).
//
//   dashboard_sql DB.duckdb "SELECT ..."   ->   [["v1", "v2"], ...]   (values as text or null)
//   dashboard_sql --write DB.duckdb "CREATE ...; INSERT ..."
#include <cstdio>
#include <string>

#include <nlohmann/json.hpp>

#include "frota/sink/duckdb_connection.h"

int main(int argc, char** argv) {
  const bool write = argc == 4 && std::string(argv[1]) == "--write";
  if (argc != 3 && !write) {
    std::fprintf(stderr, "usage: dashboard_sql [--write] DB.duckdb \"SQL\"\n");
    return 2;
  }
  const char* path = argv[write ? 2 : 1];
  const char* sql = argv[write ? 3 : 2];
  auto db = frota::sink::DuckDbConnection::Open(path, /*read_only=*/!write);
  if (!db.ok()) {
    std::fprintf(stderr, "dashboard_sql: %s\n", db.error().message().c_str());
    return 2;
  }
  if (write) {
    const auto status = (*db)->Execute(sql);
    if (!status.ok()) {
      std::fprintf(stderr, "dashboard_sql: %s\n", status.error().message().c_str());
      return 1;
    }
    return 0;
  }
  auto result = (*db)->Query(sql);
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
