# Every outside library frota uses, found once here. All come from Debian 12
# packages except DuckDB, which scripts/fetch_duckdb.sh unpacks from npm into
# third_party/duckdb (see DEVELOPERS.md).
include_guard(GLOBAL)

find_package(Threads REQUIRED)
find_package(PkgConfig REQUIRED)
find_package(GTest REQUIRED)
find_package(fmt REQUIRED)
find_package(spdlog REQUIRED)
find_package(CLI11 REQUIRED)
find_package(simdjson REQUIRED)
find_package(FastFloat REQUIRED)  # libfast-float-dev: decimal text to double
find_package(nlohmann_json REQUIRED)
find_package(ZLIB REQUIRED)
pkg_check_modules(LIBZIP REQUIRED IMPORTED_TARGET libzip)  # its CMake config needs the zipcmp tools
# libzstd-dev: the bronze archive's packed hours (docs/bronze-archive.md "Packed hours").
pkg_check_modules(ZSTD REQUIRED IMPORTED_TARGET libzstd)
find_package(date REQUIRED)
find_package(Protobuf REQUIRED)
find_package(CURL REQUIRED)
find_package(PostgreSQL REQUIRED)
find_package(tomlplusplus REQUIRED)
pkg_check_modules(RDKAFKA REQUIRED IMPORTED_TARGET rdkafka)
pkg_check_modules(HTTPLIB REQUIRED IMPORTED_TARGET cpp-httplib)
if(FROTA_BENCHMARKS)
  find_package(benchmark REQUIRED)
endif()

set(FROTA_DUCKDB_ROOT "${PROJECT_SOURCE_DIR}/third_party/duckdb" CACHE PATH "Unpacked DuckDB C library")
if(NOT EXISTS "${FROTA_DUCKDB_ROOT}/lib/libduckdb.so" OR NOT EXISTS "${FROTA_DUCKDB_ROOT}/include/duckdb.h")
  message(FATAL_ERROR "DuckDB not found in ${FROTA_DUCKDB_ROOT}: run scripts/fetch_duckdb.sh (or scripts/setup.sh)")
endif()
add_library(duckdb::duckdb SHARED IMPORTED GLOBAL)
set_target_properties(duckdb::duckdb PROPERTIES
  IMPORTED_LOCATION "${FROTA_DUCKDB_ROOT}/lib/libduckdb.so"
  INTERFACE_INCLUDE_DIRECTORIES "${FROTA_DUCKDB_ROOT}/include")
# Binaries find libduckdb.so beside the source tree without LD_LIBRARY_PATH.
set(CMAKE_BUILD_RPATH "${FROTA_DUCKDB_ROOT}/lib")
set(CMAKE_INSTALL_RPATH "$ORIGIN/../lib")
