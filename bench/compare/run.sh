#!/usr/bin/env bash
# frota against its peers on one simulated day, one after another on this machine:
# frota replay, the DuckDB batch recomputation (`frota reconcile`'s SQL) and Apache Spark
# Structured Streaming (PySpark, local[2]) running the same rules and jobs over the same
# CSV files. Prints the table and writes it to build/compare/results.md (bench/compare/README.md).
#
#   bench/compare/run.sh [--small] [--runs N] [--spark-runs N] [--vehicles N] ...
#
# Options: --runs N, --vehicles N, --files-per-trigger N (bench/compare/README.md).
# --small: a 100-vehicle day and one run (CI: FROTA_PEERS=small .ci/run); default: the
# Rio-scale day (3,600 vehicles at peak, 12.2 M records) and 3 runs, medians reported.
# --spark-runs N: time Spark in only the first N runs (its Rio day takes most of an hour).
# Environment: FROTA_PEERS_TIMEOUT (seconds one system may run, default 3600), FROTA_BIN (default build/release/frota), FROTA_PEERS_CACHE (PySpark's
# venv, default ~/.cache/frota-peers), FROTA_PEERS_OUT (default build/compare),
# JAVA_HOME (default: the java on PATH).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
repo=$PWD
here=$repo/bench/compare

command="bench/compare/run.sh${*:+ $*}"
vehicles=3600
runs=3
spark_runs=
files_per_trigger=4
size=rio
while (($#)); do
  case $1 in
    --small) vehicles=100; runs=1; size=small ;;
    --runs) runs=$2; shift ;;
    --spark-runs) spark_runs=$2; shift ;;
    --vehicles) vehicles=$2; size=custom; shift ;;
    --files-per-trigger) files_per_trigger=$2; shift ;;
    -h | --help) sed -n '2,15p' "${BASH_SOURCE[0]}"; exit 0 ;;
    *) echo "run.sh: unknown argument $1" >&2; exit 2 ;;
  esac
  shift
done

frota=$(realpath "${FROTA_BIN:-$repo/build/release/frota}")
if [[ ! -x $frota ]]; then
  echo "run.sh: no $frota: run scripts/setup.sh (or set FROTA_BIN)" >&2
  exit 2
fi
cache=${FROTA_PEERS_CACHE:-$HOME/.cache/frota-peers}
out=${FROTA_PEERS_OUT:-$repo/build/compare}
mkdir -p "$out"
out=$(realpath "$out")
note() { echo "peers: $*" >&2; }

# ---------------------------------------------------------------- the peers' installs
# Pinned, into one venv, installed once: the stamp names exactly what is in it.
readonly PIP_PACKAGES="pyspark==4.3.0 pandas>=2.2,<3 pyarrow>=15 protobuf>=4.21,<5"
venv=$cache/venv
if [[ "$(cat "$cache/venv.stamp" 2>/dev/null)" != "$PIP_PACKAGES" ]]; then
  note "installing $PIP_PACKAGES into $venv (once)"
  rm -rf "$venv"
  python3 -m venv "$venv"
  # shellcheck disable=SC2086  # the list is words on purpose
  "$venv/bin/pip" install -q $PIP_PACKAGES
  echo "$PIP_PACKAGES" >"$cache/venv.stamp"
fi
py=$venv/bin/python
if [[ -z ${JAVA_HOME:-} ]]; then
  java=$(command -v java) || { echo "run.sh: java not found (openjdk-17)" >&2; exit 2; }
  export JAVA_HOME
  JAVA_HOME=$(dirname "$(dirname "$(readlink -f "$java")")")
fi
export PYSPARK_PYTHON=$py PYSPARK_DRIVER_PYTHON=$py SPARK_LOCAL_IP=127.0.0.1
# The GTFS-RT classes for the converter, from the proto frota compiles.
gen=$cache/gen
proto=$repo/src/frota/codec/gtfs_realtime.proto
if [[ ! -f $gen/gtfs_realtime_pb2.py || $proto -nt $gen/gtfs_realtime_pb2.py ]]; then
  mkdir -p "$gen"
  protoc --python_out="$gen" -I "$(dirname "$proto")" "$proto"
fi

# -------------------------------------------------------------------------- the day
# Simulated once per size and kept: the archive, and the CSV files every system reads.
day=$out/day-$vehicles
if [[ ! -f $day/day.json ]]; then
  rm -rf "$day"
  mkdir -p "$day"
  note "simulating a $vehicles-vehicle day into $day"
  "$frota" -q simulate --date 2024-06-05 --vehicles "$vehicles" --seed 1 --out "$day/sim" \
    >"$day/simulate.txt"
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
records=$("$py" -c "import json,sys; print(json.load(open(sys.argv[1]))['records'])" \
  "$day/day.json")
inputs=()
for file in "$day"/csv/part-*.csv; do inputs+=("rio-archive-csv:$file"); done
common=(--feed-id frota-sim --mode bus --time-zone America/Sao_Paulo)

# ------------------------------------------------------------------------- the runs
# Each run times every system once, one after another, so load on this shared machine
# falls on all of them alike; the table takes medians.
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
  "$py" "$here/measure.py" "$result" --timeout "$limit" "$@"
}
for run in $(seq 1 "$runs"); do
  note "run $run/$runs: frota replay"
  rm -rf "$work" && mkdir -p "$work"
  measure "$runs_dir/frota-$run.json" -- "$frota" -q replay "${inputs[@]}" "${common[@]}" \
    --db "$work/frota.duckdb" --report "$runs_dir/frota-$run.report.json"
  note "run $run/$runs: frota replay --partitions 2"
  measure "$runs_dir/frota_p2-$run.json" -- "$frota" -q replay "${inputs[@]}" "${common[@]}" \
    --partitions 2 --db "$work/frota-p2.duckdb" --report "$runs_dir/frota_p2-$run.report.json"
  note "run $run/$runs: frota replay of the GTFS-RT archive itself"
  measure "$runs_dir/frota_archive-$run.json" -- "$frota" -q replay "archive:$day/sim" \
    --db "$work/frota-archive.duckdb" --report "$runs_dir/frota_archive-$run.report.json"
  note "run $run/$runs: DuckDB batch recomputation (frota reconcile)"
  # Exit 1 is a difference (the table says so); a failure or timeout is a row that
  # did not finish.
  measure "$runs_dir/duckdb-$run.json" -- "$frota" -q reconcile --db "$work/frota.duckdb" \
    "${inputs[@]}" "${common[@]}" --json >"$runs_dir/duckdb-$run.reconcile.json" || true
  ((run <= ${spark_runs:-$runs})) || continue
  note "run $run/$runs: Spark Structured Streaming"
  measure "$runs_dir/spark-$run.json" -- "$py" "$here/spark_job.py" "$day/csv" \
    "$work/spark-out" "$work/spark-checkpoint" "$files_per_trigger" \
    2>"$runs_dir/spark-$run.log" || true
  if ((run == ${spark_runs:-$runs} || run == runs)) && [[ -d $work/spark-out ]]; then
    note "checking that Spark's results are frota's"
    "$frota" -q export --db "$work/frota.duckdb" --out "$work/frota-export" >/dev/null
    set +e
    "$py" "$here/compare.py" "$work/frota-export" "$work/spark-out" "$runs_dir/spark-compare.json"
    set -e
  fi
done

FROTA_BIN_VERSION=$("$frota" --version) "$py" "$here/table.py" "$runs_dir" "$records" \
  "$vehicles" "$size" "$files_per_trigger" "$command" >"$out/results.md"
cp "$out/results.md" "$runs_dir/results.md"
cat "$out/results.md"
# The exit status: 0 only when every system finished and agreed with frota.
"$py" - "$runs_dir" <<'PY'
import glob, json, sys
runs_dir = sys.argv[1]
problems = [p for p in glob.glob(f"{runs_dir}/*-[0-9]*.json")
            if p.count(".") == 1 and json.load(open(p))["rc"] not in (0,)
            and not (p.split("/")[-1].startswith("duckdb") and json.load(open(p))["rc"] == 1)]
try:
    if not json.load(open(f"{runs_dir}/spark-compare.json"))["equal"]:
        problems.append("Spark's results differ from frota's")
except OSError:
    problems.append("no comparison of Spark's results (Spark did not finish)")
for p in glob.glob(f"{runs_dir}/duckdb-*.reconcile.json"):
    try:
        if not json.load(open(p))["equal"]:
            problems.append(f"{p}: reconcile found differences")
    except ValueError:
        pass  # did not finish: listed above
for p in problems:
    print(f"run.sh: {p}", file=sys.stderr)
sys.exit(1 if problems else 0)
PY
