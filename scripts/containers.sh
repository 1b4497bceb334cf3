#!/usr/bin/env bash
# Builds frota's images and proves compose.yaml on a machine with podman and no image
# registry (docs/deploy.md, "Proof without a registry").
#
#   scripts/containers.sh build    # local Debian base, stand-in Kafka/PostgreSQL/busybox
#                                  # images, frota's image (each skipped when present;
#                                  # `build base` or `build standins` stops there)
#   scripts/containers.sh smoke    # compose.yaml + compose.replay.yaml on a small simulated
#                                  # day; compares PostgreSQL with an embedded replay
#   scripts/containers.sh live     # compose.yaml + compose.feed-server.yaml: the live stack
#                                  # polling a feed server, kills, down and up; compares
#                                  # PostgreSQL with a replay of the collector's bronze
#   scripts/containers.sh upgrade  # an older commit's image writes the database, today's
#                                  # migrates it in place and takes it over
#   scripts/containers.sh config   # docker-compose config -q of the files, no .env needed
#
# Needs root and Debian's podman, runc, debootstrap, docker-compose (1.29) and
# golang-github-containernetworking-plugin-dnsname (service names in DNS):
# scripts/setup.sh --containers. The runs drive docker-compose against podman's API socket
# (podman system service), with a loop that runs the containers' healthchecks (podman has
# no timer for them here), so the Compose files stay the standard ones a Docker user runs.
#
# Environment:
#   FROTA_CONTAINERS_DIR  work folder: podman config, base rootfs, logs (build/containers)
#   FROTA_IMAGE_BUILD     frota's image: "source" (the Dockerfile's build stage compiles
#                         frota, default) or "host" (the build stage is replaced by the
#                         host's build/release/frota, built if missing: minutes, not tens)
#   FROTA_HOST_BIN        with FROTA_IMAGE_BUILD=host: this binary instead (e.g. build/ci/frota)
#   FROTA_CA_BUNDLE       with FROTA_IMAGE_BUILD=source: certificate authorities npm trusts
#                         in the build stage (/etc/ssl/certs/ca-certificates.crt)
#   FROTA_REBUILD=1       rebuild frota's image even if present
#   FROTA_SMOKE_MEMBERS   consumer-group members in the smoke test (2)
#   FROTA_SMOKE_TIMEOUT   seconds a replay stack's members may take (900)
#   FROTA_LIVE_VEHICLES   buses of the live test's simulated day (30)
#   FROTA_LIVE_POLL_SECONDS  the live test's polling before the kills (120; half of it
#                         after the kills and again after down and up)
#   FROTA_UPGRADE_FROM    the upgrade test's older commit (default: the parent of the
#                         latest commit that added a PostgreSQL migration)
#   FROTA_UPGRADE_RULES   --rule arguments today's members take over the older database
#                         with (default: max_segment_speed_kmh 120 for bus and BRT when
#                         the older database is of a schema before 10, else none)
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
work="${FROTA_CONTAINERS_DIR:-$root/build/containers}"
mkdir -p "$work"
work=$(cd "$work" && pwd)

readonly BASE=localhost/debian:12
readonly KAFKA_VERSION=4.4.0
readonly KAFKA_STANDIN=localhost/frota-kafka-standin:$KAFKA_VERSION
readonly PG_STANDIN=localhost/frota-postgres-standin:15
readonly WEB_STANDIN=localhost/frota-busybox-standin:1
readonly FROTA=localhost/frota:latest

log() { printf '[containers %s] %s\n' "$(date -u +%T)" "$*" >&2; }
die() { log "error: $*"; exit 1; }

# containers.conf of our own (CONTAINERS_CONF), nothing machine-wide: runc (crun is not
# installed and podman's default fails here) and ulimits within the host's hard limits.
setup_podman() {
  [[ $(id -u) -eq 0 ]] || die "run as root (rootless podman is not set up here)"
  local b
  for b in podman runc; do command -v "$b" >/dev/null || die "$b not found (apt-get install podman runc)"; done
  local nofile nproc
  nofile=$(ulimit -Hn) nproc=$(ulimit -Hu)
  [[ $nofile == unlimited ]] && nofile=1048576
  [[ $nproc == unlimited ]] && nproc=65536
  # 32768 at most: runc was refused nproc=65536 here (EPERM) with `ulimit -Hu` at 96367.
  ((nofile > 65536)) && nofile=65536
  ((nproc > 32768)) && nproc=32768
  cat >"$work/containers.conf" <<CONF
# written by scripts/containers.sh
[containers]
default_ulimits = ["nofile=$nofile:$nofile", "nproc=$nproc:$nproc"]
[engine]
runtime = "runc"
CONF
  export CONTAINERS_CONF="$work/containers.conf"
  # Compose reaches services by name: with podman's CNI backend that needs the dnsname
  # plugin (without it the broker could not resolve "kafka", its own advertised name).
  if [[ $(podman info --format '{{.Host.NetworkBackend}}' 2>/dev/null) == cni ]] &&
    [[ ! -x /usr/lib/cni/dnsname ]]; then
    die "podman's CNI has no dnsname plugin (apt-get install golang-github-containernetworking-plugin-dnsname)"
  fi
}

have_image() { podman image exists "$1"; }

build_base() {
  have_image "$BASE" && return 0
  command -v debootstrap >/dev/null || die "debootstrap not found (apt-get install debootstrap)"
  local rootfs="$work/rootfs"
  if [[ ! -x "$rootfs/bin/bash" ]]; then
    log "debootstrap --variant=minbase bookworm into $rootfs"
    rm -rf "$rootfs"
    debootstrap --variant=minbase bookworm "$rootfs" http://deb.debian.org/debian >"$work/debootstrap.log" 2>&1 ||
      die "debootstrap failed (log: $work/debootstrap.log)"
  fi
  # Security updates too, as Docker Hub's debian:12 has them.
  echo 'deb http://deb.debian.org/debian-security bookworm-security main' >"$rootfs/etc/apt/sources.list.d/security.list"
  rm -rf "$rootfs"/var/cache/apt/archives/*.deb "$rootfs"/var/lib/apt/lists/*
  log "importing $BASE"
  tar -C "$rootfs" -c . | podman import --change 'CMD ["/bin/bash"]' - "$BASE" >/dev/null
}

build_standins() {
  local ctx="$work/standins"
  rm -rf "$ctx" && mkdir -p "$ctx"
  cp "$root"/deploy/standins/* "$ctx/"
  if ! have_image "$KAFKA_STANDIN"; then
    FROTA_KAFKA_VERSION=$KAFKA_VERSION "$root/scripts/services/kafka.sh" fetch
    cp -r "${FROTA_CACHE:-$HOME/.cache/frota}/kafka-$KAFKA_VERSION/libs" "$ctx/libs"
    log "building $KAFKA_STANDIN"
    podman build -q -f "$ctx/kafka.Dockerfile" -t "$KAFKA_STANDIN" "$ctx" >/dev/null
  fi
  if ! have_image "$PG_STANDIN"; then
    log "building $PG_STANDIN"
    podman build -q -f "$ctx/postgres.Dockerfile" -t "$PG_STANDIN" "$ctx" >/dev/null
  fi
  if ! have_image "$WEB_STANDIN"; then
    log "building $WEB_STANDIN"
    podman build -q -f "$ctx/busybox.Dockerfile" -t "$WEB_STANDIN" "$ctx" >/dev/null
  fi
}

build_frota() {
  if have_image "$FROTA" && [[ "${FROTA_REBUILD:-0}" != 1 ]]; then return 0; fi
  local args=(--build-arg "BUILD_IMAGE=$BASE" --build-arg "RUNTIME_IMAGE=$BASE" -t "$FROTA")
  case "${FROTA_IMAGE_BUILD:-source}" in
    source)
      # The machine's certificate authorities, for npm in the build stage (a proxy that
      # re-signs TLS is trusted here only through them).
      local ca="${FROTA_CA_BUNDLE:-/etc/ssl/certs/ca-certificates.crt}"
      [[ -f $ca ]] && args+=(--secret "id=ca_bundle,src=$ca")
      log "building $FROTA from source (the Dockerfile's build stage compiles frota)"
      podman build --format docker "${args[@]}" -f "$root/Dockerfile" "$root" >"$work/frota-build.log" 2>&1 ||
        die "image build failed (log: $work/frota-build.log)"
      ;;
    host)
      local bin="${FROTA_HOST_BIN:-$root/build/release/frota}"
      if [[ -z "${FROTA_HOST_BIN:-}" && ! -x "$bin" ]]; then
        (cd "$root" && cmake --preset release >/dev/null && cmake --build build/release --target frota)
      fi
      build_frota_from_binary "$root" "$bin" "$FROTA"
      ;;
    *) die "FROTA_IMAGE_BUILD=${FROTA_IMAGE_BUILD}: expected source or host" ;;
  esac
}

# build_frota_from_binary TREE BINARY TAG: the Dockerfile of TREE, its runtime stage
# unchanged, over a build stage that holds BINARY instead of compiling it.
build_frota_from_binary() {
  local tree="$1" bin="$2" tag="$3"
  [[ -x "$bin" ]] || die "$bin is not an executable"
  local ctx="$work/frota-host"
  rm -rf "$ctx" && mkdir -p "$ctx/out"
  strip -o "$ctx/out/frota" "$bin"
  cp "$tree/third_party/duckdb/lib/libduckdb.so" "$ctx/out/"
  "$tree/scripts/container-runtime-packages.sh" "$ctx/out/frota" "$ctx/out/libduckdb.so" >"$ctx/out/runtime-packages"
  cp -r "$tree/deploy" "$ctx/deploy"
  {
    sed -n '/^ARG BUILD_IMAGE/,/^ARG RUNTIME_IMAGE/p' "$tree/Dockerfile"
    echo 'FROM ${RUNTIME_IMAGE} AS build'
    echo 'COPY out/ /out/'
    sed -n '/^# -* runtime$/,$p' "$tree/Dockerfile"
  } >"$ctx/Dockerfile"
  log "building $tag from $bin"
  podman build --format docker --build-arg "BUILD_IMAGE=$BASE" --build-arg "RUNTIME_IMAGE=$BASE" \
    -t "$tag" -f "$ctx/Dockerfile" "$ctx" >"$work/frota-build.log" 2>&1 ||
    die "image build failed (log: $work/frota-build.log)"
}

cmd_build() {
  setup_podman
  build_base
  [[ "${1:-all}" == base ]] && return 0
  build_standins
  [[ "${1:-all}" == standins ]] && return 0
  build_frota
  podman images --format '{{.Repository}}:{{.Tag}} {{.Size}}' | grep -E "^(localhost/(debian|frota))" >&2
}

compose_bin() {
  command -v docker-compose >/dev/null || die "docker-compose not found (apt-get install docker-compose)"
  echo docker-compose
}

cmd_config() {
  local dc
  dc=$(compose_bin)
  # No .env: every variable must have a default. An empty folder as the project folder
  # keeps a developer's own .env out of the check.
  local empty
  empty=$(mktemp -d)
  "$dc" --project-directory "$empty" -f "$root/compose.yaml" config -q
  "$dc" --project-directory "$empty" -f "$root/compose.yaml" -f "$root/compose.replay.yaml" config -q
  "$dc" --project-directory "$empty" -f "$root/compose.yaml" -f "$root/compose.feed-server.yaml" config -q
  rmdir "$empty"
  log "compose.yaml, with compose.replay.yaml, with compose.feed-server.yaml: config ok"
}

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }

# A run of the stack (smoke, live, upgrade): podman's API socket, docker-compose pointed
# at it, the healthcheck loop, and compose down -v at the end whatever happened.
# Globals, not locals: the EXIT trap runs after the command has returned.
run_name="" started=0 dc="" dir="" sock="" project="" service_pid="" hc_pid=""
dcargs=()

# Ends a process this script started: SIGTERM, then SIGKILL after 10 s.
stop_pid() {
  local pid="$1" i
  kill "$pid" 2>/dev/null || return 0
  for ((i = 0; i < 100; i++)); do kill -0 "$pid" 2>/dev/null || return 0; sleep 0.1; done
  kill -KILL "$pid" 2>/dev/null || true
}

cleanup() {
  set +e
  if [[ -n "$project" && -S "$sock" ]]; then
    log "compose down -v"
    DOCKER_HOST="unix://$sock" "$dc" "${dcargs[@]}" logs --no-color >"$dir/compose.log" 2>&1
    DOCKER_HOST="unix://$sock" "$dc" "${dcargs[@]}" down -v --remove-orphans >"$dir/down.log" 2>&1
    # podman may leave the network and a volume behind
    podman network rm -f "${project}_default" >/dev/null 2>&1
    podman volume ls -q --filter "label=com.docker.compose.project=$project" | xargs -r podman volume rm -f >/dev/null 2>&1
  fi
  [[ -n "$hc_pid" ]] && stop_pid "$hc_pid"
  [[ -n "$service_pid" ]] && stop_pid "$service_pid"
  log "$run_name took $((SECONDS - started)) s (logs: $dir)"
}

# start_run NAME: a fresh $work/NAME, the API socket, the healthcheck loop, the trap.
start_run() {
  run_name="$1"
  dc=$(compose_bin)
  dir="$work/$run_name"
  rm -rf "$dir" && mkdir -p "$dir"
  sock="$dir/podman.sock"
  project="frota-$run_name-$$"
  podman system service --time=0 "unix://$sock" >"$dir/podman-service.log" 2>&1 &
  service_pid=$!
  trap cleanup EXIT
  trap 'exit 130' INT TERM
  local i
  for ((i = 0; i < 100; i++)); do [[ -S $sock ]] && break; sleep 0.1; done
  [[ -S $sock ]] || die "podman system service did not open $sock"
  export DOCKER_HOST="unix://$sock"
  # podman runs healthchecks only when asked: ask every 3 s for this project's containers
  # (and stop when this script is gone, whatever happened to it).
  local self=$$
  (
    while sleep 3 && kill -0 "$self" 2>/dev/null; do
      for id in $(podman ps -q --filter "label=com.docker.compose.project=$project" 2>/dev/null); do
        podman healthcheck run "$id" >/dev/null 2>&1 || true
      done
    done
  ) &
  hc_pid=$!
}

# write_env FILE: the run's own .env: stand-in images, free loopback ports, a throwaway
# password; the caller appends what its run needs.
write_env() {
  cat >"$1" <<ENV
FROTA_IMAGE=$FROTA
KAFKA_IMAGE=$KAFKA_STANDIN
POSTGRES_IMAGE=$PG_STANDIN
WEB_IMAGE=$WEB_STANDIN
POSTGRES_PASSWORD=$(head -c 18 /dev/urandom | base64 | tr -d '/+=')
POSTGRES_PORT=$(free_port)
FROTA_WEB_PORT=$(free_port)
FROTA_SERVE_PORT=$(free_port)
FROTA_DASHBOARD_EVERY=5
ENV
  chmod 600 "$1"
}

env_value() { sed -n "s/^$1=//p" "$dir/run.env" | tail -n 1; }
compose() { "$dc" "${dcargs[@]}" "$@"; }

# SQL on the stack's PostgreSQL, one value per line.
psql_query() {
  compose exec -T postgres sh -c \
    'PGPASSWORD="$POSTGRES_PASSWORD" psql -h 127.0.0.1 -U "$POSTGRES_USER" -d "$POSTGRES_DB" -v ON_ERROR_STOP=1 -tAc "$1"' \
    sh "$1"
}

# http_get URL [FILE]: GET from this machine; 0 on status 200 (the body in FILE).
http_get() {
  python3 - "$1" "${2:-/dev/null}" <<'PY'
import sys, urllib.request
try:
    body = urllib.request.urlopen(sys.argv[1], timeout=10).read()
except Exception as e:
    print(f"{sys.argv[1]}: {e}", file=sys.stderr)
    sys.exit(1)
open(sys.argv[2], "wb").write(body)
PY
}

# The dashboard page from the web service: a whole page (rewritten every 5 s).
expect_dashboard() {
  local page="$dir/index.html" i
  for ((i = 0; i < 30; i++)); do
    if http_get "http://127.0.0.1:$(env_value FROTA_WEB_PORT)/" "$page" 2>/dev/null &&
      head -c 4096 "$page" | grep -qi '<html' && (($(stat -c %s "$page") > 10000)); then
      log "dashboard served over HTTP ($(stat -c %s "$page") bytes)"
      return 0
    fi
    sleep 3
  done
  die "the dashboard was not served on http://127.0.0.1:$(env_value FROTA_WEB_PORT)/"
}

# diff_exports VOLUME A B [DIFF_ARGS...]: the tables of two exports in a volume equal.
diff_exports() {
  local vol="$1" a="$2" b="$3"
  shift 3
  if ! diff -r "$@" "$vol/$a" "$vol/$b" >"$dir/diff.txt"; then
    head -n 40 "$dir/diff.txt" >&2
    die "$a differs from $b (full diff: $dir/diff.txt)"
  fi
  local tables rows
  tables=$(find "$vol/$a" -name '*.csv' | wc -l)
  rows=$(cat "$vol/$a"/*.csv | wc -l)
  ((tables > 0 && rows > tables)) || die "the export is empty ($tables tables, $rows lines)"
  log "$a equals $b: $tables tables, $rows lines"
}

# wait_members_done N: the replay stack's N members (run with --until-end) exit 0 once
# every partition committed the end-of-input marker, i.e. PostgreSQL holds every table
# of the day.
wait_members_done() {
  local members="$1" deadline=$((SECONDS + ${FROTA_SMOKE_TIMEOUT:-900})) done_members=0
  while ((SECONDS < deadline)); do
    local ids states
    ids=$(compose ps -q member 2>/dev/null || true)
    states=$(for id in $ids; do podman inspect -f '{{.State.Status}}:{{.State.ExitCode}}' "$id"; done)
    if [[ -n "$states" ]] && ! grep -qv '^exited:0$' <<<"$states"; then
      done_members=$(wc -l <<<"$states")
      break
    fi
    if grep -q '^exited:[1-9]' <<<"$states"; then
      compose logs --no-color --tail 40 member >&2 || true
      die "a member failed: $(tr '\n' ' ' <<<"$states")"
    fi
    sleep 5
  done
  ((done_members == members)) || die "the members did not finish within ${FROTA_SMOKE_TIMEOUT:-900} s"
  log "all $members members finished the day after $((SECONDS - started)) s"
}

# compare_with_replay DIR: PostgreSQL's tables against an embedded replay of the
# simulated day, both exported by the image into the frota-data volume under DIR.
compare_with_replay() {
  local sim=/var/lib/frota/sim out="/var/lib/frota/$1"
  compose run --rm --no-deps -T --entrypoint /bin/sh member -c \
    "rm -rf $out && mkdir -p $out &&
     frota export --postgres=\"\$FROTA_PG_DSN\" --out=$out/postgres &&
     frota replay archive:$sim --gtfs=$sim/gtfs --area=$sim/area.geojson --db=$out/embedded.duckdb >/dev/null &&
     frota export --db=$out/embedded.duckdb --out=$out/embedded" \
    >"$dir/compare.log" 2>&1 || { cat "$dir/compare.log" >&2; die "export or embedded replay failed"; }
  diff_exports "$(podman volume inspect -f '{{.Mountpoint}}' "${project}_frota-data")" \
    "$1/postgres" "$1/embedded"
}

cmd_smoke() {
  started=$SECONDS
  cmd_build
  start_run smoke
  # A day with every feed fault but the late responses: those make records late by more
  # than 6 minutes, and late decisions of Kafka members (a watermark per partition) and of
  # an embedded replay (one watermark) differ by design (docs/scale-out.md, "Watermarks").
  write_env "$dir/run.env"
  cat >>"$dir/run.env" <<ENV
FROTA_SIM_VEHICLES=${FROTA_SMOKE_VEHICLES:-30}
FROTA_SIM_HOURS=6-8
FROTA_SIM_ARGS=--late-responses=0
ENV
  dcargs=(-p "$project" --project-directory "$root" --env-file "$dir/run.env"
    -f "$root/compose.yaml" -f "$root/compose.replay.yaml")

  local members="${FROTA_SMOKE_MEMBERS:-2}"
  log "compose up (replay, $members members)"
  compose up -d --scale "member=$members" >"$dir/up.log" 2>&1 ||
    { cat "$dir/up.log" >&2; die "compose up failed"; }

  wait_members_done "$members"
  expect_dashboard

  compare_with_replay smoke
  log "smoke test passed"
}

# The health of every container of SERVICE, one per line (none before they exist).
health_of() {
  local id
  for id in $(compose ps -q "$1" 2>/dev/null); do
    podman inspect -f '{{.State.Health.Status}}' "$id" 2>/dev/null || echo unknown
  done
}

# wait_healthy SECONDS SERVICE...: every container of each service reports healthy.
wait_healthy() {
  local deadline=$((SECONDS + $1)) service states
  shift
  for service in "$@"; do
    while true; do
      states=$(health_of "$service")
      [[ -n "$states" ]] && ! grep -qv '^healthy$' <<<"$states" && break
      if ((SECONDS >= deadline)); then
        compose logs --no-color --tail 30 "$service" >&2 || true
        die "$service is not healthy: $(tr '\n' ' ' <<<"$states")"
      fi
      sleep 3
    done
  done
  log "healthy: $*"
}

# wait_for SECONDS WHAT COMMAND...: until COMMAND succeeds.
wait_for() {
  local deadline=$((SECONDS + $1)) what="$2"
  shift 2
  until "$@" >/dev/null 2>&1; do
    ((SECONDS < deadline)) || die "timed out waiting for $what"
    sleep 3
  done
}

# PostgreSQL holds at least N rows of positions.
positions_at_least() { (($(psql_query 'SELECT count(*) FROM positions' 2>/dev/null || echo 0) >= $1)); }

# One member's container (SERVICE_N as docker-compose names it).
member_container() { podman ps --format '{{.Names}}' --filter "label=com.docker.compose.project=$project" --filter "label=com.docker.compose.service=member" | sort | head -n 1; }

# What an operator reads from the host and a Prometheus scrapes on the Compose network.
expect_endpoints() {
  local serve="http://127.0.0.1:$(env_value FROTA_SERVE_PORT)"
  http_get "$serve/healthz" "$dir/healthz.json" || die "frota serve's /healthz did not answer 200"
  http_get "$serve/api/vehicles" "$dir/vehicles.json" || die "/api/vehicles did not answer 200"
  python3 -c 'import json,sys; v=json.load(open(sys.argv[1]))["vehicles"]; sys.exit(0 if v else 1)' \
    "$dir/vehicles.json" || die "/api/vehicles lists no vehicle ($dir/vehicles.json)"
  http_get "$serve/gtfs-rt/vehicle-positions.pb" "$dir/vehicle-positions.pb" ||
    die "/gtfs-rt/vehicle-positions.pb did not answer 200"
  log "frota serve answers: /healthz, /api/vehicles ($(python3 -c 'import json,sys; print(len(json.load(open(sys.argv[1]))["vehicles"]))' "$dir/vehicles.json") vehicles), GTFS-RT ($(stat -c %s "$dir/vehicle-positions.pb") bytes)"
  expect_dashboard
  local target
  for target in collector "$(member_container)"; do
    compose exec -T web wget -qO- "http://$target:9464/metrics" >"$dir/metrics-$target.txt" ||
      die "no /metrics from $target:9464 on the Compose network"
    grep -q '^frota_' "$dir/metrics-$target.txt" || die "$target's /metrics has no frota sample"
  done
  log "/metrics scraped on the Compose network: collector ($(grep -c '^frota_' "$dir/metrics-collector.txt") samples), $(member_container) ($(grep -c '^frota_' "$dir/metrics-$(member_container).txt") samples)"
}

# The collector publishes what bronze holds and an end-of-input marker to every partition
# (a one-off collector with --end-marker on the same archive), the members commit them.
end_capture() {
  compose stop collector >>"$dir/steps.log" 2>&1
  compose run --rm --no-deps -T collector collect --config=/etc/frota/collector.feed-server.toml \
    --kafka=kafka:9092 --topic=positions --end-marker --for=1 >"$dir/end-marker.log" 2>&1 ||
    { tail -n 20 "$dir/end-marker.log" >&2; die "the collector with --end-marker failed"; }
  local partitions
  partitions=$(compose exec -T kafka /opt/kafka/bin/kafka-topics.sh --bootstrap-server localhost:9092 \
    --describe --topic positions | grep -c 'Partition: ')
  finished() {
    (($(psql_query "SELECT count(*) FROM source_progress WHERE stream = 'positions' AND finished") == partitions))
  }
  wait_for 300 "the members to commit the end of all $partitions partitions" finished
  log "the members committed the end of input of all $partitions partitions"
}

# PostgreSQL against an embedded replay of the collector's bronze archive, both exported
# by the image; collector_polls (a replay has no polls) against the poll journal.
compare_with_bronze() {
  local out=/var/lib/frota/live today=/var/lib/frota-feed/today
  # The members are done (end of input); stopped, as docker-compose 1.29 links a one-off
  # container to its service's running ones, which podman refuses.
  compose stop member >>"$dir/steps.log" 2>&1
  compose run --rm --no-deps -T -v "${project}_frota-data:/var/lib/frota" --entrypoint /bin/sh member -c \
    "rm -rf $out && mkdir -p $out &&
     frota export --postgres=\"\$FROTA_PG_DSN\" --out=$out/postgres &&
     frota replay archive:/var/lib/frota/bronze --gtfs=$today/gtfs --area=$today/area.geojson --db=$out/embedded.duckdb >/dev/null &&
     frota export --db=$out/embedded.duckdb --out=$out/embedded" \
    >"$dir/compare.log" 2>&1 || { cat "$dir/compare.log" >&2; die "export or embedded replay failed"; }
  local vol
  vol=$(podman volume inspect -f '{{.Mountpoint}}' "${project}_frota-data")
  diff_exports "$vol" live/postgres live/embedded -x collector_polls.csv
  local polls journal
  polls=$(($(wc -l <"$vol/live/postgres/collector_polls.csv") - 1))
  journal=$(cat "$vol"/bronze/_polls/*/*.jsonl | wc -l)
  ((polls == journal)) || die "collector_polls has $polls rows, the poll journal $journal lines"
  log "collector_polls holds each of the $journal journaled requests once: $(psql_query \
    "SELECT string_agg(k || ' ' || n, ', ' ORDER BY k) FROM (SELECT CASE WHEN failure IS NOT NULL
       THEN failure WHEN \"repeat\" THEN 'repeat' ELSE 'ok' END AS k, count(*) AS n FROM collector_polls GROUP BY 1) s")"
  log "PostgreSQL: $(psql_query 'SELECT count(*) FROM positions') positions, $(psql_query 'SELECT count(*) FROM rejected') refusals, $(psql_query 'SELECT coalesce(sum(records), 0) FROM duplicate_counts') duplicates counted"
}

# No credential in the logs or in frota's image.
expect_no_credentials() {
  local password
  password=$(env_value POSTGRES_PASSWORD)
  compose logs --no-color >"$dir/compose.log" 2>&1
  ! grep -qF "$password" "$dir/compose.log" || die "the PostgreSQL password is in the logs ($dir/compose.log)"
  ! podman image inspect "$FROTA" | grep -qF "$password" || die "the PostgreSQL password is in $FROTA"
  log "no credential in the logs ($(wc -l <"$dir/compose.log") lines) or in $FROTA"
}

cmd_live() {
  started=$SECONDS
  cmd_build
  start_run live
  write_env "$dir/run.env"
  # Today's service day of the built-in city (America/Sao_Paulo) around the current hour,
  # without the simulator's faults (an outage there would stall the run for up to 90
  # minutes); the feed server adds HTTP faults of its own.
  local hour
  hour=$((10#$(TZ=America/Sao_Paulo date +%H)))
  cat >>"$dir/run.env" <<ENV
FROTA_FEED_VEHICLES=${FROTA_LIVE_VEHICLES:-30}
FROTA_FEED_SIM_ARGS=--hours=$((hour > 0 ? hour - 1 : 0))-$((hour < 23 ? hour + 1 : 23)) --no-faults
FROTA_FEED_SERVER_ARGS=--fault=rate-limit=23 --fault=server-error=17 --fault=truncated=29 --fault=repeat=11 --retry-after=20
ENV
  dcargs=(-p "$project" --project-directory "$root" --env-file "$dir/run.env"
    -f "$root/compose.yaml" -f "$root/compose.feed-server.yaml")
  local poll="${FROTA_LIVE_POLL_SECONDS:-120}"

  log "compose up (feed server, 2 members)"
  compose up -d --scale member=2 >"$dir/up.log" 2>&1 || { cat "$dir/up.log" >&2; die "compose up failed"; }
  wait_healthy 300 kafka postgres feed-server collector member
  # Positions reach PostgreSQL once the watermark passes them: it lags the newest event
  # time by the stale and future tolerances and the slack, 6 minutes by default.
  wait_for 900 "positions in PostgreSQL" positions_at_least 1
  wait_healthy 300 dashboard serve web
  expect_endpoints
  log "polling for $poll s"
  sleep "$poll"

  log "kill: the collector and $(member_container)"
  podman kill "$(member_container)" >/dev/null
  compose kill collector >>"$dir/steps.log" 2>&1
  sleep 20
  compose start collector member >>"$dir/steps.log" 2>&1
  wait_healthy 300 collector member
  sleep $((poll / 2))

  log "compose down (volumes kept), then up"
  compose down >>"$dir/steps.log" 2>&1
  compose up -d --scale member=2 >>"$dir/steps.log" 2>&1 || die "compose up after down failed"
  wait_healthy 300 kafka postgres feed-server collector member serve
  sleep $((poll / 2))
  expect_endpoints

  end_capture
  compare_with_bronze
  expect_no_credentials
  log "live test passed"
}

# The parent of the latest commit (in history order) that added a PostgreSQL schema
# migration: the database its image writes must be taken over by today's.
upgrade_base() {
  local added
  added=$(git -C "$root" log -1 --format=%H --diff-filter=A -- 'src/frota/sink/sql/postgres_schema_v*.sql')
  [[ -n $added ]] || die "no PostgreSQL migration in the history; set FROTA_UPGRADE_FROM"
  git -C "$root" rev-parse "$added^"
}

# old_image COMMIT TAG: frota's image of an older commit: its tree (git archive), its
# binary (the ci preset, as CI builds it), its Dockerfile's runtime stage. Kept once built.
old_image() {
  local commit="$1" tag="$2" src="$work/upgrade-src"
  have_image "$tag" && [[ $(cat "$src/.commit" 2>/dev/null) == "$commit" ]] && return 0
  rm -rf "$src" && mkdir -p "$src"
  git -C "$root" archive "$commit" | tar -x -C "$src"
  if cmp -s "$root/scripts/fetch_duckdb.sh" "$src/scripts/fetch_duckdb.sh"; then
    ln -s "$root/third_party" "$src/third_party"
  else
    (cd "$src" && scripts/fetch_duckdb.sh >/dev/null)
  fi
  log "building frota at $commit (ci preset)"
  (cd "$src" && cmake --preset ci >/dev/null && cmake --build build/ci --target frota) \
    >"$work/upgrade-build.log" 2>&1 || die "the build of $commit failed (log: $work/upgrade-build.log)"
  build_frota_from_binary "$src" "$src/build/ci/frota" "$tag"
  echo "$commit" >"$src/.commit"
}

# The columns of every table of the database (partitions left out), one "TABLE COL,COL..."
# a line.
table_columns() {
  psql_query "SELECT c.relname || ' ' || string_agg(quote_ident(a.attname), ',' ORDER BY a.attnum)
    FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
    JOIN pg_attribute a ON a.attrelid = c.oid AND a.attnum > 0 AND NOT a.attisdropped
    WHERE n.nspname = 'public' AND c.relkind IN ('r', 'p') AND NOT c.relispartition
    GROUP BY c.relname ORDER BY c.relname"
}

# dump_rows COLUMNS_FILE OUT: every row of each table of COLUMNS_FILE (those columns only),
# as text, sorted, into OUT/TABLE.
dump_rows() {
  local out="$2" lines line table columns
  mkdir -p "$out"
  mapfile -t lines <"$1"
  for line in "${lines[@]}"; do
    table=${line%% *} columns=${line#* }
    psql_query "SELECT ROW($columns)::text FROM \"$table\"" </dev/null | LC_ALL=C sort >"$out/$table" ||
      die "cannot read $table with the columns $columns"
  done
}

# replay_stack_up IMAGE TREE NAME: TREE's compose.yaml + compose.replay.yaml with IMAGE as
# frota's image, up with 2 members until both finished the day (logs: up-NAME.log).
replay_stack_up() {
  sed -i "s#^FROTA_IMAGE=.*#FROTA_IMAGE=$1#" "$dir/run.env"
  dcargs=(-p "$project" --project-directory "$2" --env-file "$dir/run.env"
    -f "$2/compose.yaml" -f "$2/compose.replay.yaml")
  log "compose up with $1 (replay, 2 members)"
  compose up -d --scale member=2 >"$dir/up-$3.log" 2>&1 || { cat "$dir/up-$3.log" >&2; die "compose up failed"; }
  wait_members_done 2
}

cmd_upgrade() {
  started=$SECONDS
  cmd_build
  local from="${FROTA_UPGRADE_FROM:-$(upgrade_base)}"
  from=$(git -C "$root" rev-parse "$from")
  local older="localhost/frota:${from:0:12}"
  old_image "$from" "$older"
  start_run upgrade
  write_env "$dir/run.env"
  cat >>"$dir/run.env" <<ENV
FROTA_SIM_VEHICLES=30
FROTA_SIM_HOURS=6-8
FROTA_SIM_ARGS=--late-responses=0
ENV
  # The older commit's Compose files and image write the database...
  replay_stack_up "$older" "$work/upgrade-src" old
  local before after
  before=$(psql_query 'SELECT max(version) FROM frota_schema')
  table_columns >"$dir/columns-before.txt"
  dump_rows "$dir/columns-before.txt" "$dir/rows-before"
  log "$older wrote schema $before: $(wc -l <"$dir/columns-before.txt") tables, $(wc -l <"$dir/rows-before/positions") positions"
  compose down >"$dir/down-old.log" 2>&1
  # Schema 10 records max_segment_speed_kmh as rule 6's limit for results made before it
  # (120 km/h for bus and BRT, where a new database takes 90): members keep those values.
  local upgrade_rules=
  ((before >= 10)) || upgrade_rules="--rule=max_segment_speed_kmh.bus=120 --rule=max_segment_speed_kmh.brt=120"
  upgrade_rules="${FROTA_UPGRADE_RULES-$upgrade_rules}"

  # ... which today's take over, as `git pull && docker compose up -d` would, keeping the
  # rules the database's results were made with (docs/deploy.md, "Upgrades").
  echo "FROTA_MEMBER_ARGS=$upgrade_rules" >>"$dir/run.env"
  replay_stack_up "$FROTA" "$root" new
  after=$(psql_query 'SELECT max(version) FROM frota_schema')
  local newest
  newest=$(find "$root/src/frota/sink/sql" -name 'postgres_schema_v*.sql' | sed 's/.*_v\([0-9]*\)\.sql/\1/' | sort -n | tail -n 1)
  ((after == newest && after > before)) || die "schema $before became $after, not $newest"
  log "migrated in place: schema $before -> $after"

  # Every row the older image wrote is still there, column by column (a migration may add
  # columns, tables and rows of its own, e.g. its line in frota_schema).
  dump_rows "$dir/columns-before.txt" "$dir/rows-after"
  local table lost=0 gone
  for table in $(cut -d' ' -f1 "$dir/columns-before.txt"); do
    gone=$(LC_ALL=C comm -23 "$dir/rows-before/$table" "$dir/rows-after/$table" | wc -l)
    printf '  %-24s %9d rows before %9d after %6d lost\n' "$table" \
      "$(wc -l <"$dir/rows-before/$table")" "$(wc -l <"$dir/rows-after/$table")" "$gone" >&2
    lost=$((lost + gone))
  done
  ((lost == 0)) || die "$lost rows of the older database are gone or changed (rows-before/, rows-after/ in $dir)"
  log "every row of the $(wc -l <"$dir/columns-before.txt") tables is kept"

  # Today's image writes on: the next simulated day, published to a topic of its own and
  # consumed into the same database by a member of today's image.
  compose exec -T kafka /opt/kafka/bin/kafka-topics.sh --bootstrap-server=localhost:9092 \
    --create --topic=next-day --partitions=6 --replication-factor=1 >"$dir/next-day.log" 2>&1 ||
    { cat "$dir/next-day.log" >&2; die "cannot create the next day's topic"; }
  local next=/var/lib/frota/next
  compose run --rm --no-deps -T --entrypoint /bin/sh member -c \
    "frota simulate --date=2024-06-06 --vehicles=30 --hours=6-8 --seed=1 --late-responses=0 --out=$next >/dev/null &&
     frota replay archive:$next --to-kafka=kafka:9092 --topic=next-day >/dev/null &&
     frota run --kafka=kafka:9092 --topic=next-day --group=next-day --postgres=\"\$FROTA_PG_DSN\" --gtfs=$next/gtfs --area=$next/area.geojson --until-end $upgrade_rules" \
    >>"$dir/next-day.log" 2>&1 ||
    { tail -n 30 "$dir/next-day.log" >&2; die "today's image could not write the next day into the migrated database"; }
  local days
  days=$(psql_query "SELECT string_agg(d || ' ' || n, ', ' ORDER BY d) FROM (SELECT event_time::date AS d, count(*) AS n FROM positions GROUP BY 1) s")
  log "today's image consumed the next day into it; positions per day: $days"
  dump_rows "$dir/columns-before.txt" "$dir/rows-end"
  lost=0
  for table in $(cut -d' ' -f1 "$dir/columns-before.txt"); do
    lost=$((lost + $(LC_ALL=C comm -23 "$dir/rows-before/$table" "$dir/rows-end/$table" | wc -l)))
  done
  ((lost == 0)) || die "$lost rows of the older database are gone or changed after the next day"
  log "upgrade test passed"
}

case "${1:-}" in
  build) cmd_build "${2:-all}" ;;
  smoke) cmd_smoke ;;
  live) cmd_live ;;
  upgrade) cmd_upgrade ;;
  config) cmd_config ;;
  *) sed -n '2,16p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//' >&2; exit 2 ;;
esac
