#!/usr/bin/env bash
# A month of operation on the embedded path: DAYS simulated days (`frota simulate`, one
# service date each, so days do not overlap in time) replayed day after day into one
# DuckDB file with `--retain-days 7`, and after each day: the file's bytes, the day's
# ingest wall time and peak memory, and the wall time and peak memory of `headways`,
# `reconcile` and `dashboard` for that one day and for the last 7 days (`--from`/`--to`,
# `--days`). Reconcile is given the inputs from the day before the window on.
#
#   bench/soak.sh BUILD_DIR [DAYS] [VEHICLES] [HOURS] [LABEL]
#
# DAYS defaults to 30, VEHICLES to 600, HOURS (simulate --hours, e.g. 6-9) to the whole
# day. Run it under the build lock. Prints one markdown table row per day and writes the
# table, with the machine and the command, into bench/results/DATE-HOST-soak-LABEL.md.
# The days are simulated once per vehicle count and hours and kept under
# ${FROTA_BENCH_DIR:-BUILD_DIR/bench-work}.
set -euo pipefail

build=${1:?usage: soak.sh BUILD_DIR [DAYS] [VEHICLES] [HOURS] [LABEL]}
days=${2:-30}
vehicles=${3:-600}
hours=${4:-}
label=${5:-$(git -C "$(dirname "$0")" rev-parse --short HEAD 2>/dev/null || echo now)}
build=$(cd "$build" && pwd)
frota=$build/frota
root=$(cd "$(dirname "$0")/.." && pwd)
work=${FROTA_BENCH_DIR:-$build/bench-work}
mkdir -p "$work"
first_date=2024-06-03

# The folder of simulated day N (0-based), simulated when missing.
day_dir() {
  local date
  date=$(date -u -d "$first_date + $1 days" +%F)
  local dir=$work/soak-$vehicles-${hours:-all}-$date
  if [[ ! -f $dir.done ]]; then
    rm -rf "$dir"
    "$frota" -q simulate --date "$date" --vehicles "$vehicles" --seed "$((7 + $1))" \
      ${hours:+--hours "$hours"} --out "$dir" >/dev/null
    touch "$dir.done"
  fi
  echo "$dir"
}

# Runs a command; prints "SECONDS PEAK_MB". A failure prints its stderr and stops the run.
timed() {
  if ! /usr/bin/time -f "%e %M" -o "$work/soak-time.txt" "$@" >/dev/null 2>"$work/soak-err.txt"; then
    cat "$work/soak-err.txt" >&2
    echo "soak.sh: failed: $*" >&2
    exit 1
  fi
  local seconds kb
  read -r seconds kb <"$work/soak-time.txt"
  echo "$seconds s, $((kb / 1024)) MB"
}

db=$work/soak-$$.duckdb
page=$work/soak-$$.html
trap 'rm -f "$db" "$db.wal" "$db.headways" "$page"' EXIT
gtfs=$(day_dir 0)/gtfs
area=$(day_dir 0)/area.geojson

host=$(hostname -s 2>/dev/null || echo host)
out=$root/bench/results/$(date -u +%Y-%m-%d)-$host-soak-$label.md
{
  echo "# A month of operation: $days days of $vehicles vehicles${hours:+, hours $hours}, $label"
  echo
  echo "$(date -u '+%Y-%m-%d %H:%M') UTC, $(nproc) cores, $(awk '/MemTotal/ {printf "%.0f GB", $2/1048576}' /proc/meminfo);"
  echo "\`bench/soak.sh $build $days $vehicles ${hours:-''} $label\`; DuckDB, \`--retain-days 7\`"
  echo
  echo "| day | date | DuckDB MB | ingest | headways 1 day | headways 7 days | reconcile 1 day | reconcile 7 days | dashboard 1 day | dashboard 7 days |"
  echo "|---:|---|---:|---|---|---|---|---|---|---|"
} | tee "$out"
for ((d = 0; d < days; d++)); do
  dir=$(day_dir "$d")
  date=$(date -u -d "$first_date + $d days" +%F)
  week=$((d >= 6 ? d - 6 : 0))
  week_from=$(date -u -d "$first_date + $week days" +%F)
  ingest=$(timed "$frota" -q replay "archive:$dir" --gtfs "$gtfs" --area "$area" --db "$db" \
    --retain-days 7)
  mb=$(($(stat -c %s "$db") / 1048576))
  # headways on a copy: it rewrites the window's regularity rows with its computation over
  # the window alone, which reconcile would then find different from the stream's at the
  # window's first day (docs/tables.md "Dates").
  cp "$db" "$db.headways"
  h1=$(timed "$frota" -q headways --db "$db.headways" --gtfs "$gtfs" --from "$date" --to "$date")
  h7=$(timed "$frota" -q headways --db "$db.headways" --gtfs "$gtfs" --from "$week_from" \
    --to "$date")
  rm -f "$db.headways"
  # The inputs from the day before the window on (docs/semantics-notes.md, "A window").
  inputs=()
  for ((i = (week > 0 ? week - 1 : 0); i <= d; i++)); do
    inputs+=("archive:$(day_dir "$i")")
  done
  day_inputs=("archive:$dir")
  if ((d > 0)); then
    day_inputs=("archive:$(day_dir $((d - 1)))" "archive:$dir")
  fi
  r1=$(timed "$frota" -q reconcile "${day_inputs[@]}" --db "$db" --gtfs "$gtfs" --area "$area" \
    --from "$date" --to "$date")
  r7=$(timed "$frota" -q reconcile "${inputs[@]}" --db "$db" --gtfs "$gtfs" --area "$area" \
    --from "$week_from" --to "$date")
  d1=$(timed "$frota" -q dashboard --db "$db" --gtfs "$gtfs" --out "$page" --days 1)
  d7=$(timed "$frota" -q dashboard --db "$db" --gtfs "$gtfs" --out "$page" --days 7)
  echo "| $((d + 1)) | $date | $mb | $ingest | $h1 | $h7 | $r1 | $r7 | $d1 | $d7 |" | tee -a "$out"
done
