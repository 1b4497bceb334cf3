#!/usr/bin/env bash
# Unpacks DuckDB's C library (libduckdb.so) and its header (duckdb.h), same version,
# from the npm registry into third_party/duckdb/, where CMake finds them.
#
# libduckdb.so ships in @duckdb/node-bindings-linux-x64 (the Node bindings' native
# part); duckdb.h ships in the source tree of the `duckdb` package. Node is not needed
# at run time: npm only downloads and verifies the tarballs.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
version=1.4.4
bindings_release=r.1
dest="$root/third_party/duckdb"

if [[ -f "$dest/VERSION" && "$(cat "$dest/VERSION")" == "$version" && -f "$dest/lib/libduckdb.so" && -f "$dest/include/duckdb.h" ]]; then
  exit 0
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
echo "setup: fetching DuckDB $version from the npm registry"
(cd "$work" && npm pack --silent "@duckdb/node-bindings-linux-x64@${version}-${bindings_release}" "duckdb@${version}" >/dev/null)
mkdir -p "$dest/lib" "$dest/include"
tar -xzf "$work/duckdb-node-bindings-linux-x64-${version}-${bindings_release}.tgz" -C "$work" package/libduckdb.so
mv "$work/package/libduckdb.so" "$dest/lib/"
tar -xzf "$work/duckdb-${version}.tgz" -C "$work" package/src/duckdb/src/include/duckdb.h
mv "$work/package/src/duckdb/src/include/duckdb.h" "$dest/include/"
echo "$version" >"$dest/VERSION"
