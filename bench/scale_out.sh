#!/usr/bin/env bash
# Scale-out throughput on this machine, against the broker and server that
# scripts/services/with-services.sh started (KAFKA_BROKERS, FROTA_TEST_KAFKA_DIR,
# FROTA_TEST_PG_DSN, FROTA_TEST_SERVICES_SCRIPTS):
#   1. producer: 5 M synthetic positions through transport::Producer (messages/s), after
#      1 M untimed ones (the broker was just started: its JVM compiles its hot paths first);
#   2. PostgreSQL sink: 2 M positions upserted in epochs of 100 k (rows/s);
#   3. end to end: a simulated day (frota simulate --vehicles 3600) published with
#      `frota replay --to-kafka` (6 partitions), then consumed by 2 `frota run --kafka`
#      members into PostgreSQL until the end of the topic (wall time of the consumers).
#
#   scripts/services/with-services.sh bench/scale_out.sh build/release [--quick]
# --quick: 1 M messages, 500 k rows, a 600-vehicle day (a smoke run).
set -euo pipefail

build=${1:?usage: scale_out.sh BUILD_DIR [--quick]}
quick=${2:-}
build=$(cd "$build" && pwd)
frota=$build/frota
bench=$build/bench/scale_out_bench
: "${KAFKA_BROKERS:?run under scripts/services/with-services.sh}"
: "${FROTA_TEST_PG_DSN:?run under scripts/services/with-services.sh}"
kafka_sh=$FROTA_TEST_SERVICES_SCRIPTS/kafka.sh
work=${FROTA_BENCH_DIR:-$build/bench-work}
mkdir -p "$work"

messages=5000000; warmup=1000000; rows=2000000; vehicles=3600; members=${FROTA_BENCH_MEMBERS:-2}
if [[ $quick == --quick ]]; then messages=1000000; warmup=200000; rows=500000; vehicles=600; fi

new_db() {  # a fresh database on the test server, dropped at exit; prints its DSN
  local name=frota_bench_$1_$$
  psql "$FROTA_TEST_PG_DSN" -qc "DROP DATABASE IF EXISTS $name WITH (FORCE)" >/dev/null
  psql "$FROTA_TEST_PG_DSN" -qc "CREATE DATABASE $name" >/dev/null
  echo "${FROTA_TEST_PG_DSN%/*}/$name"
}

# The databases new_db made (a day's holds about 2.8 GB) go when the script ends, however.
drop_databases() {
  for name in frota_bench_sink_$$ frota_bench_day_$$; do
    psql "$FROTA_TEST_PG_DSN" -qc "DROP DATABASE IF EXISTS $name WITH (FORCE)" >/dev/null 2>&1 || true
  done
}
trap drop_databases EXIT

echo "machine: $(nproc) cores, $(awk '/MemTotal/ {printf "%.0f GB", $2/1048576}' /proc/meminfo), load $(cut -d' ' -f1-3 /proc/loadavg)" >&2

topic=bench-producer-$$
"$kafka_sh" topic "$FROTA_TEST_KAFKA_DIR" "$topic" 6 >/dev/null
"$bench" producer "$KAFKA_BROKERS" "$topic" "$messages" "$warmup"

"$bench" pg-sink "$(new_db sink)" "$rows" 100000

day=$work/day-$vehicles
if [[ ! -f $day.txt ]]; then
  rm -rf "$day"
  "$frota" -q simulate --vehicles "$vehicles" --date 2024-05-06 --seed 1 --out "$day" >"$day.tmp"
  mv "$day.tmp" "$day.txt"
fi
archive=$(awk '$1 == "archive" {print $2}' "$day.txt")
gtfs=$(awk '$1 == "gtfs" {print $2}' "$day.txt")
area=$(awk '$1 == "area" {print $2}' "$day.txt")
topic=bench-day-$$
"$kafka_sh" topic "$FROTA_TEST_KAFKA_DIR" "$topic" 6 >/dev/null
start=$(date +%s.%N)
"$frota" -q replay "archive:$archive" --gtfs "$gtfs" --to-kafka "$KAFKA_BROKERS" \
  --topic "$topic" --report "$work/publish.json"
published=$(date +%s.%N)
dsn=$(new_db day)
pids=()
for i in $(seq 1 "$members"); do
  "$frota" -q run --kafka "$KAFKA_BROKERS" --topic "$topic" --group bench --postgres "$dsn" \
    --gtfs "$gtfs" --area "$area" --until-end --epoch-seconds 5 \
    --report "$work/member-$i.json" &
  pids+=($!)
done
for pid in "${pids[@]}"; do wait "$pid"; done
done_at=$(date +%s.%N)
positions=$(psql "$dsn" -Atc "SELECT count(*) FROM positions")
records=$(python3 -c "import json;print(json.load(open('$work/publish.json'))['records'])")
python3 - "$start" "$published" "$done_at" "$records" "$positions" "$members" <<'PY'
import json, sys
start, published, done, records, positions, members = sys.argv[1:]
start, published, done = float(start), float(published), float(done)
print(json.dumps({"bench": "end-to-end", "records": int(records), "positions": int(positions),
                  "members": int(members),
                  "publish_s": round(published - start, 1),
                  "consume_s": round(done - published, 1),
                  "total_s": round(done - start, 1),
                  "consume_records_per_s": round(int(records) / (done - published))}))
PY
