#!/usr/bin/env bash
# Storage per simulated day: the bronze archive (bytes, files), the DuckDB file after a
# replay, and PostgreSQL's total relation size after the same replay, for one day of
# `frota simulate --vehicles N` (3,600: Rio's size). Runs against the server that
# scripts/services/with-services.sh started (FROTA_TEST_PG_DSN):
#
#   FROTA_SERVICES=postgres scripts/services/with-services.sh \
#     bench/storage.sh BUILD_DIR [VEHICLES] [LABEL]
#
# Prints one markdown table row per store and writes them with the machine and the
# command into bench/results/DATE-HOST-storage-LABEL.md. The day is simulated once per
# vehicle count and kept under ${FROTA_BENCH_DIR:-BUILD_DIR/bench-work}.
set -euo pipefail

build=${1:?usage: storage.sh BUILD_DIR [VEHICLES] [LABEL]}
vehicles=${2:-3600}
label=${3:-$(git -C "$(dirname "$0")" rev-parse --short HEAD 2>/dev/null || echo now)}
build=$(cd "$build" && pwd)
frota=$build/frota
root=$(cd "$(dirname "$0")/.." && pwd)
: "${FROTA_TEST_PG_DSN:?run under scripts/services/with-services.sh}"
work=${FROTA_BENCH_DIR:-$build/bench-work}
mkdir -p "$work"

day=$work/day-$vehicles
if [[ ! -f $day.done ]]; then
  rm -rf "$day"
  "$frota" -q simulate --vehicles "$vehicles" --date 2024-06-05 --seed 1 --out "$day" >&2
  touch "$day.done"
fi

# Bronze: every file of the archive (responses, envelopes, packs, journals), not the GTFS
# and truth the simulator writes beside it.
bronze_bytes=0
bronze_files=0
for feed in "$day"/*/; do
  [[ -f $feed/feed.json || $feed == */_polls/ ]] || continue
  bronze_bytes=$((bronze_bytes + $(du -sb --apparent-size "$feed" | cut -f1)))
  bronze_files=$((bronze_files + $(find "$feed" -type f | wc -l)))
done

db=$work/storage-$$.duckdb
rm -f "$db" "$db.wal"
"$frota" -q replay "archive:$day" --gtfs "$day/gtfs" --area "$day/area.geojson" --db "$db" >&2
duckdb_bytes=$(stat -c %s "$db")

pg_name=frota_storage_$$
trap 'psql "$FROTA_TEST_PG_DSN" -qc "DROP DATABASE IF EXISTS $pg_name WITH (FORCE)" >/dev/null 2>&1 || true; rm -f "$db" "$db.wal"' EXIT
psql "$FROTA_TEST_PG_DSN" -qc "CREATE DATABASE $pg_name" >/dev/null
dsn="${FROTA_TEST_PG_DSN%/*}/$pg_name"
"$frota" -q replay "archive:$day" --gtfs "$day/gtfs" --area "$day/area.geojson" \
  --postgres "$dsn" >&2
# Every relation of the schema (tables with their indexes and TOAST; partitions counted
# once, through their own entries).
pg_bytes=$(psql "$dsn" -Atc "SELECT sum(pg_total_relation_size(c.oid)) FROM pg_class c
  JOIN pg_namespace n ON n.oid = c.relnamespace
  WHERE n.nspname = 'public' AND c.relkind IN ('r', 'm')")

host=$(hostname -s 2>/dev/null || echo host)
out=$root/bench/results/$(date -u +%Y-%m-%d)-$host-storage-$label.md
{
  echo "# Storage per simulated day ($vehicles vehicles), $label"
  echo
  echo "$(date -u '+%Y-%m-%d %H:%M') UTC, $(nproc) cores, $(awk '/MemTotal/ {printf "%.0f GB", $2/1048576}' /proc/meminfo);"
  echo "\`FROTA_SERVICES=postgres scripts/services/with-services.sh bench/storage.sh $build $vehicles $label\`"
  echo
  echo "| store | bytes | files |"
  echo "|---|---:|---:|"
  echo "| bronze archive | $bronze_bytes | $bronze_files |"
  echo "| DuckDB file | $duckdb_bytes | 1 |"
  echo "| PostgreSQL total relation size | $pg_bytes | |"
} | tee "$out"
