#!/usr/bin/env bash
# frota against what users would pick instead, on one simulated day, one system after
# another on this machine: frota replay, the engine's ceiling (validation and jobs alone on
# records decoded beforehand), the DuckDB batch recomputation (`frota reconcile`'s SQL) and
# Apache Spark Structured Streaming (PySpark, local[2]) running the same rules and jobs over
# the same CSV files; then frota's cost curve at 1x, 2x, 4x and 8x the day. Prints the
# table and writes it to bench/results/DATE-HOST[-SIZE][-HHMM].md and
# build/compare/results.md (bench/compare/README.md).
#
#   bench/compare/run.sh [--small] [--runs N] [--spark-runs N] [--vehicles N]
#                        [--no-curve | --curve-only] [--curve-runs N] [--files-per-trigger N]
#
# --small: a 100-vehicle day, one run, the curve at 100/200/400/800 vehicles (CI:
# FROTA_PEERS=small .ci/run); default: the Rio-scale day (3,600 vehicles at peak, 12.2 M
# records), 3 runs with medians reported, the curve at 3,600/7,200/14,400/28,800 vehicles.
# --vehicles N: a day of N vehicles (curve: N, 2N, 4N, 8N). --spark-runs N: time Spark in
# only the first N runs (its Rio day: 8 minutes quiet, over 27 loaded). --no-curve: the table only;
# --curve-only: the curve only; --curve-runs N: runs per curve size (default: --runs).
# --files-per-trigger N: Spark's micro-batch, in 15-minute files (default 4).
# Environment: FROTA_BIN (default build/release/frota), FROTA_CEILING_BIN (default
# bench/engine_ceiling beside it; built with FROTA_BENCHMARKS=ON, as the release preset
# does), FROTA_PEERS_TIMEOUT (seconds one system may run, default 3600), FROTA_PEERS_CACHE
# (PySpark's venv, default ~/.cache/frota-peers), FROTA_PEERS_OUT (default build/compare),
# FROTA_RESULTS_DIR (default bench/results), JAVA_HOME (default: the java on PATH).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
repo=$PWD
here=$repo/bench/compare

command="bench/compare/run.sh${*:+ $*}"
vehicles=3600
runs=3
spark_runs=
curve_runs=
files_per_trigger=4
size=rio
table=1
curve=1
while (($#)); do
  case $1 in
    --small) vehicles=100; runs=1; size=small ;;
    --runs) runs=$2; shift ;;
    --spark-runs) spark_runs=$2; shift ;;
    --vehicles) vehicles=$2; size=${2}v; shift ;;
    --files-per-trigger) files_per_trigger=$2; shift ;;
    --no-curve) curve=0 ;;
    --curve-only) table=0 ;;
    --curve-runs) curve_runs=$2; shift ;;
    -h | --help) sed -n '2,24p' "${BASH_SOURCE[0]}"; exit 0 ;;
    *) echo "run.sh: unknown argument $1" >&2; exit 2 ;;
  esac
  shift
done
if ((!table && !curve)); then
  echo "run.sh: --no-curve and --curve-only leave nothing to run" >&2
  exit 2
fi
curve_runs=${curve_runs:-$runs}

frota=$(realpath "${FROTA_BIN:-$repo/build/release/frota}")
if [[ ! -x $frota ]]; then
  echo "run.sh: no $frota: run scripts/setup.sh (or set FROTA_BIN)" >&2
  exit 2
fi
ceiling=$(realpath -m "${FROTA_CEILING_BIN:-$(dirname "$frota")/bench/engine_ceiling}")
if ((table)) && [[ ! -x $ceiling ]]; then
  echo "run.sh: no $ceiling: build the release preset's engine_ceiling target" \
    "(cmake --build build/release --target engine_ceiling) or set FROTA_CEILING_BIN" >&2
  exit 2
fi
cache=${FROTA_PEERS_CACHE:-$HOME/.cache/frota-peers}
out=${FROTA_PEERS_OUT:-$repo/build/compare}
results_dir=${FROTA_RESULTS_DIR:-$repo/bench/results}
mkdir -p "$out" "$results_dir"
out=$(realpath "$out")
note() { echo "compare: $*" >&2; }
# measure.py and table.py need only the standard library; the venv is for the peers.
tools_py=python3

# ---------------------------------------------------------------- the peers' installs
# Pinned, into one venv, installed once: the stamp names exactly what is in it.
readonly PIP_PACKAGES="pyspark==4.3.0 pandas>=2.2,<3 pyarrow>=15 protobuf>=4.21,<5"
venv=$cache/venv
py=$venv/bin/python
gen=$cache/gen
if ((table)); then
  if [[ "$(cat "$cache/venv.stamp" 2>/dev/null)" != "$PIP_PACKAGES" ]]; then
    note "installing $PIP_PACKAGES into $venv (once)"
    rm -rf "$venv"
    python3 -m venv "$venv"
    # shellcheck disable=SC2086  # the list is words on purpose
    "$venv/bin/pip" install -q $PIP_PACKAGES
    echo "$PIP_PACKAGES" >"$cache/venv.stamp"
  fi
  if [[ -z ${JAVA_HOME:-} ]]; then
    java=$(command -v java) || { echo "run.sh: java not found (openjdk-17)" >&2; exit 2; }
    export JAVA_HOME
    JAVA_HOME=$(dirname "$(dirname "$(readlink -f "$java")")")
  fi
  export PYSPARK_PYTHON=$py PYSPARK_DRIVER_PYTHON=$py SPARK_LOCAL_IP=127.0.0.1
  # The GTFS-RT classes for the converter, from the proto frota compiles.
  proto=$repo/src/frota/codec/gtfs_realtime.proto
  if [[ ! -f $gen/gtfs_realtime_pb2.py || $proto -nt $gen/gtfs_realtime_pb2.py ]]; then
    mkdir -p "$gen"
    protoc --python_out="$gen" -I "$(dirname "$proto")" "$proto"
  fi
fi

# ------------------------------------------------------------------------- the days
# Disk a day of N vehicles takes, with a margin: its GTFS-RT archive (the 3,600-vehicle
# day is 1.3 GB, the 100-vehicle day 78 MB with small-file overhead) and the DuckDB
# database a replay of it writes (about 45 bytes per record, 3,400 records per vehicle).
archive_bytes() { echo $(($1 * 450 * 1024 + 100 * 1024 * 1024)); }
database_bytes() { echo $(($1 * 200 * 1024)); }
# Whether the file system of $out has `bytes` free beyond a 2 GB reserve for others.
disk_allows() {
  local free
  free=$(($(df --output=avail -B1 "$out" | tail -n 1)))
  (($1 + 2 * 1024 * 1024 * 1024 <= free))
}
gb() { awk -v b="$1" 'BEGIN { printf "%.1f GB", b / 1073741824 }'; }

# Simulates the day of $1 vehicles into $out/day-$1/sim once and keeps it (sim.done);
# false, with a note, when the disk has no room for it and a replay's database.
simulate_day() {
  local n=$1 day=$out/day-$1
  [[ -f $day/sim.done ]] && return 0
  local need
  need=$(($(archive_bytes "$n") + $(database_bytes "$n")))
  if ! disk_allows "$need"; then
    note "not simulating a $n-vehicle day: it needs about $(gb "$need") and $(df -h \
      --output=avail "$out" | tail -n 1 | tr -d ' ') is free (2 GB kept for others)"
    return 1
  fi
  rm -rf "$day/sim"
  mkdir -p "$day"
  note "simulating a $n-vehicle day into $day/sim"
  "$frota" -q simulate --date 2024-06-05 --vehicles "$n" --seed 1 --out "$day/sim" \
    >"$day/simulate.txt"
  touch "$day/sim.done"
}

stamp=$(date -u +%Y%m%dT%H%M%SZ)
runs_dir=$out/runs-$stamp
work=$out/work
mkdir -p "$runs_dir"
# A system still running after FROTA_PEERS_TIMEOUT seconds is ended and shown as not
# finished (on this shared machine the Rio day's DuckDB recomputation can fill memory).
limit=${FROTA_PEERS_TIMEOUT:-3600}
measure() {
  local result=$1
  shift
  "$tools_py" "$here/measure.py" "$result" --timeout "$limit" "$@"
}
# Every timed run starts with its input in the page cache: read once here, untimed. On
# a VM whose host takes back the memory a guest frees (this one: a Firecracker guest),
# reading pages another run's memory has since held cost frota's first replay up to 2 s
# more than its next ones, whatever the code did (perf: the kernel's copy to the reader).
warm() { find "$@" -type f -exec cat {} + >/dev/null; }

# -------------------------------------------------------------- the table's runs
records=0
if ((table)); then
  simulate_day "$vehicles" || exit 2
  # The CSV files every system of the table reads, converted once, outside the timings.
  day=$out/day-$vehicles
  if [[ ! -f $day/day.json ]]; then
    rm -rf "$day/csv"
    note "converting the GTFS-RT archive to CSV (outside the timed runs)"
    "$py" "$here/to_csv.py" "$gen" "$day/sim/frota-sim" "$day/csv" 15 >"$day/csv.json"
    # Spark's end-of-input marker (spark_job.py): the last file, read by Spark only.
    {
      head -n 1 "$day/csv/part-00000.csv"
      echo "-1,__end_of_input__,2100-01-01T00:00:00Z,2100-01-01T00:00:00Z,1,1,,,,"
    } >"$day/csv/zz-end-of-input.csv"
    touch -d @1800000000 "$day/csv/zz-end-of-input.csv"
    mv "$day/csv.json" "$day/day.json"
  fi
  records=$("$tools_py" -c "import json,sys; print(json.load(open(sys.argv[1]))['records'])" \
    "$day/day.json")
  inputs=()
  for file in "$day"/csv/part-*.csv; do inputs+=("rio-archive-csv:$file"); done
  common=(--feed-id frota-sim --mode bus --time-zone America/Sao_Paulo)

  # Each run times every system once, one after another, so load on this shared machine
  # falls on all of them alike; the table takes medians.
  for run in $(seq 1 "$runs"); do
    note "run $run/$runs: frota replay"
    rm -rf "$work" && mkdir -p "$work"
    warm "$day/csv"
    measure "$runs_dir/frota-$run.json" -- "$frota" -q replay "${inputs[@]}" "${common[@]}" \
      --db "$work/frota.duckdb" --report "$runs_dir/frota-$run.report.json"
    note "run $run/$runs: frota's engine ceiling (validation and jobs on decoded records)"
    warm "$day/csv"
    measure "$runs_dir/ceiling-$run.json" -- "$ceiling" "${inputs[@]}" "${common[@]}" \
      >"$runs_dir/ceiling-$run.out.json"
    # Equal work: the ceiling must accept and reject exactly what the replay did.
    if ! "$tools_py" "$here/runs.py" check-ceiling "$runs_dir/frota-$run.report.json" \
      "$runs_dir/ceiling-$run.out.json"; then
      echo "run.sh: the engine ceiling's counts differ from frota replay's (run $run):" \
        "see $runs_dir/ceiling-$run.out.json and frota-$run.report.json" >&2
      exit 1
    fi
    note "run $run/$runs: frota replay --partitions 2"
    warm "$day/csv"
    measure "$runs_dir/frota_p2-$run.json" -- "$frota" -q replay "${inputs[@]}" "${common[@]}" \
      --partitions 2 --db "$work/frota-p2.duckdb" --report "$runs_dir/frota_p2-$run.report.json"
    note "run $run/$runs: frota replay of the GTFS-RT archive itself"
    warm "$day/sim"
    measure "$runs_dir/frota_archive-$run.json" -- "$frota" -q replay "archive:$day/sim" \
      --db "$work/frota-archive.duckdb" --report "$runs_dir/frota_archive-$run.report.json"
    rm -f "$work/frota-p2.duckdb" "$work/frota-archive.duckdb"
    note "run $run/$runs: DuckDB batch recomputation (frota reconcile)"
    # Exit 1 is a difference (the table says so); a failure or timeout is a row that
    # did not finish.
    warm "$day/csv"
    measure "$runs_dir/duckdb-$run.json" -- "$frota" -q reconcile --db "$work/frota.duckdb" \
      "${inputs[@]}" "${common[@]}" --json >"$runs_dir/duckdb-$run.reconcile.json" || true
    ((run <= ${spark_runs:-$runs})) || continue
    note "run $run/$runs: Spark Structured Streaming"
    warm "$day/csv"
    measure "$runs_dir/spark-$run.json" -- "$py" "$here/spark_job.py" "$day/csv" \
      "$work/spark-out" "$work/spark-checkpoint" "$files_per_trigger" \
      2>"$runs_dir/spark-$run.log" || true
    if ((run == ${spark_runs:-$runs} || run == runs)) && [[ -d $work/spark-out ]]; then
      note "checking that Spark's results are frota's"
      "$frota" -q export --db "$work/frota.duckdb" --out "$work/frota-export" >/dev/null
      set +e
      "$py" "$here/compare.py" "$work/frota-export" "$work/spark-out" \
        "$runs_dir/spark-compare.json"
      set -e
    fi
  done
fi

# ------------------------------------------------------------------- the cost curve
# frota replay (default settings) of the GTFS-RT archive of 1x, 2x, 4x and 8x the day,
# vehicles scaled. A size the disk has no room for is left out, and the table says so.
curve_sizes=()
if ((curve)); then
  curve_sizes=("$vehicles" $((2 * vehicles)) $((4 * vehicles)) $((8 * vehicles)))
  for n in "${curve_sizes[@]}"; do
    simulate_day "$n" || echo "no room on disk" >"$runs_dir/curve-$n.skipped"
  done
  for run in $(seq 1 "$curve_runs"); do
    for n in "${curve_sizes[@]}"; do
      [[ -f $runs_dir/curve-$n.skipped ]] && continue
      if ! disk_allows "$(database_bytes "$n")"; then
        note "curve: not replaying $n vehicles: no room on disk for its database"
        echo "no room on disk for the database" >"$runs_dir/curve-$n.skipped"
        continue
      fi
      note "curve run $run/$curve_runs: frota replay of the $n-vehicle day"
      rm -rf "$work/curve.duckdb"
      mkdir -p "$work"
      warm "$out/day-$n/sim"
      measure "$runs_dir/curve-$n-$run.json" -- "$frota" -q replay "archive:$out/day-$n/sim" \
        --db "$work/curve.duckdb" --report "$runs_dir/curve-$n-$run.report.json"
      rm -f "$work/curve.duckdb"
    done
  done
fi

# -------------------------------------------------------------------- the results
case $size in
  rio) suffix= ;;
  *) suffix=-$size ;;
esac
((table)) || suffix=$suffix-curve
result_file=$results_dir/$(date +%Y-%m-%d)-$(hostname -s)$suffix.md
# A second run on one day keeps the first record: its file gets the time of day.
[[ -e $result_file ]] && result_file=${result_file%.md}-$(date +%H%M).md
FROTA_BIN_VERSION=$("$frota" --version) "$tools_py" "$here/table.py" "$runs_dir" \
  --records "$records" --vehicles "$vehicles" --size "$size" \
  --files-per-trigger "$files_per_trigger" --command "$command" \
  --curve "${curve_sizes[*]}" >"$out/results.md"
cp "$out/results.md" "$runs_dir/results.md"
cp "$out/results.md" "$result_file"
cat "$out/results.md"
note "written to $result_file"
# The exit status: 0 only when every system finished and agreed with frota.
"$tools_py" "$here/runs.py" exit-status "$runs_dir"
