#!/usr/bin/env bash
# Storage day after day under retention: N simulated days (service 06:00-22:00 local, so
# days do not overlap) added one by one to one bronze archive, each replayed into one
# DuckDB file with `--retain-days R` (the replay trims the archive it reads too), and
# after each day the archive's bytes and files and the DuckDB file's bytes:
#
#   bench/storage_days.sh BUILD_DIR [DAYS] [VEHICLES] [RETAIN] [LABEL]
#
# Writes the table with the machine and the command into
# bench/results/DATE-HOST-storage-days-LABEL.md. Flat after day R+1 is the goal.
set -euo pipefail

build=${1:?usage: storage_days.sh BUILD_DIR [DAYS] [VEHICLES] [RETAIN] [LABEL]}
days=${2:-30}
vehicles=${3:-300}
retain=${4:-7}
label=${5:-$(git -C "$(dirname "$0")" rev-parse --short HEAD 2>/dev/null || echo now)}
build=$(cd "$build" && pwd)
frota=$build/frota
root=$(cd "$(dirname "$0")/.." && pwd)
work=${FROTA_BENCH_DIR:-$build/bench-work}/storage-days-$$
mkdir -p "$work"
trap 'rm -rf "$work"' EXIT

archive=$work/archive
db=$work/days.duckdb
rows=()
for ((d = 0; d < days; d++)); do
  date=$(date -u -d "2024-06-03 + $d days" +%Y-%m-%d)
  "$frota" -q simulate --vehicles "$vehicles" --date "$date" --hours 6-22 --seed 1 \
    --out "$work/day" >&2
  mkdir -p "$archive"
  cp -r "$work/day/frota-sim" "$archive/"
  [[ -d $work/gtfs ]] || cp -r "$work/day/gtfs" "$work/day/area.geojson" "$work/"
  rm -rf "$work/day"
  started=$(date +%s.%N)
  "$frota" -q replay "archive:$archive" --gtfs "$work/gtfs" --area "$work/area.geojson" \
    --db "$db" --retain-days "$retain" >&2
  seconds=$(awk -v a="$started" -v b="$(date +%s.%N)" 'BEGIN { print b - a }')
  bronze_bytes=$(du -sb --apparent-size "$archive" | cut -f1)
  bronze_files=$(find "$archive" -type f | wc -l)
  db_bytes=$(stat -c %s "$db")
  rows+=("| $((d + 1)) | $date | $bronze_bytes | $bronze_files | $db_bytes | $(printf %.1f "$seconds") |")
  echo "${rows[-1]}" >&2
done

host=$(hostname -s 2>/dev/null || echo host)
out=$root/bench/results/$(date -u +%Y-%m-%d)-$host-storage-days-$label.md
{
  echo "# Storage day after day, $days days of $vehicles vehicles, --retain-days $retain, $label"
  echo
  echo "$(date -u '+%Y-%m-%d %H:%M') UTC, $(nproc) cores, $(awk '/MemTotal/ {printf "%.0f GB", $2/1048576}' /proc/meminfo);"
  echo "\`bench/storage_days.sh $build $days $vehicles $retain $label\`"
  echo
  echo "| day | date | bronze bytes | bronze files | DuckDB bytes | replay s |"
  echo "|---:|---|---:|---:|---:|---:|"
  printf '%s\n' "${rows[@]}"
} | tee "$out"
