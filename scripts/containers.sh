#!/usr/bin/env bash
# Builds frota's images and proves compose.yaml on a machine with podman and no image
# registry (docs/deploy.md, "Proof without a registry").
#
#   scripts/containers.sh build   # local Debian base, stand-in Kafka/PostgreSQL/busybox
#                                 # images, frota's image (each skipped when present;
#                                 # `build base` or `build standins` stops there)
#   scripts/containers.sh smoke   # compose.yaml + compose.replay.yaml on a small simulated
#                                 # day; compares PostgreSQL with an embedded replay
#   scripts/containers.sh config  # docker-compose config -q of both files, no .env needed
#
# Needs root and Debian's podman, runc, debootstrap, docker-compose (1.29) and
# golang-github-containernetworking-plugin-dnsname (service names in DNS). The smoke
# test drives docker-compose against podman's API socket (podman system service), with a
# loop that runs the containers' healthchecks (podman has no timer for them here), so the
# Compose files stay the standard ones a Docker user runs.
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
#   FROTA_SMOKE_TIMEOUT   seconds the smoke test waits for the members (900)
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
      # The Dockerfile's runtime stage, unchanged, over a build stage that holds the
      # host's binary instead of compiling it.
      local bin="${FROTA_HOST_BIN:-$root/build/release/frota}"
      if [[ -z "${FROTA_HOST_BIN:-}" && ! -x "$bin" ]]; then
        (cd "$root" && cmake --preset release >/dev/null && cmake --build build/release --target frota)
      fi
      local ctx="$work/frota-host"
      rm -rf "$ctx" && mkdir -p "$ctx/out"
      strip -o "$ctx/out/frota" "$bin"
      cp "$root/third_party/duckdb/lib/libduckdb.so" "$ctx/out/"
      "$root/scripts/container-runtime-packages.sh" "$ctx/out/frota" "$ctx/out/libduckdb.so" >"$ctx/out/runtime-packages"
      cp -r "$root/deploy" "$ctx/deploy"
      {
        sed -n '/^ARG BUILD_IMAGE/,/^ARG RUNTIME_IMAGE/p' "$root/Dockerfile"
        echo 'FROM ${RUNTIME_IMAGE} AS build'
        echo 'COPY out/ /out/'
        sed -n '/^# -* runtime$/,$p' "$root/Dockerfile"
      } >"$ctx/Dockerfile"
      [[ -x "$bin" ]] || die "FROTA_HOST_BIN=$bin is not an executable"
      log "building $FROTA from the host's $bin"
      podman build --format docker "${args[@]}" -f "$ctx/Dockerfile" "$ctx" >"$work/frota-build.log" 2>&1 ||
        die "image build failed (log: $work/frota-build.log)"
      ;;
    *) die "FROTA_IMAGE_BUILD=${FROTA_IMAGE_BUILD}: expected source or host" ;;
  esac
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
  rmdir "$empty"
  log "compose.yaml and compose.replay.yaml: config ok"
}

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }

# Globals, not locals: the EXIT trap runs after cmd_smoke has returned.
started=0 dc="" dir="" sock="" project="" service_pid="" hc_pid=""
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
    log "compose down"
    DOCKER_HOST="unix://$sock" "$dc" "${dcargs[@]}" logs --no-color >"$dir/compose.log" 2>&1
    DOCKER_HOST="unix://$sock" "$dc" "${dcargs[@]}" down -v --remove-orphans >"$dir/down.log" 2>&1
    # podman may leave the network and a volume behind
    podman network rm -f "${project}_default" >/dev/null 2>&1
    podman volume ls -q --filter "label=com.docker.compose.project=$project" | xargs -r podman volume rm -f >/dev/null 2>&1
  fi
  [[ -n "$hc_pid" ]] && stop_pid "$hc_pid"
  [[ -n "$service_pid" ]] && stop_pid "$service_pid"
  log "smoke test took $((SECONDS - started)) s (logs: $dir)"
}

cmd_smoke() {
  started=$SECONDS
  cmd_build
  dc=$(compose_bin)
  dir="$work/smoke"
  rm -rf "$dir" && mkdir -p "$dir"
  sock="$dir/podman.sock"
  project="frota-smoke-$$"
  local web_port pg_port
  web_port=$(free_port) pg_port=$(free_port)
  # The smoke test's own .env: stand-in images, free loopback ports, a throwaway password,
  # and a day with every feed fault but the late responses: those make records late by
  # more than 6 minutes, and late decisions of Kafka members (a watermark per partition)
  # and of an embedded replay (one watermark) differ by design (docs/scale-out.md,
  # "Watermarks").
  cat >"$dir/smoke.env" <<ENV
FROTA_IMAGE=$FROTA
KAFKA_IMAGE=$KAFKA_STANDIN
POSTGRES_IMAGE=$PG_STANDIN
WEB_IMAGE=$WEB_STANDIN
POSTGRES_PASSWORD=$(head -c 18 /dev/urandom | base64 | tr -d '/+=')
POSTGRES_PORT=$pg_port
FROTA_WEB_PORT=$web_port
FROTA_DASHBOARD_EVERY=5
FROTA_SIM_VEHICLES=${FROTA_SMOKE_VEHICLES:-30}
FROTA_SIM_HOURS=6-8
FROTA_SIM_ARGS=--late-responses=0
ENV
  chmod 600 "$dir/smoke.env"

  podman system service --time=0 "unix://$sock" >"$dir/podman-service.log" 2>&1 &
  service_pid=$!
  dcargs=(-p "$project" --project-directory "$root" --env-file "$dir/smoke.env"
    -f "$root/compose.yaml" -f "$root/compose.replay.yaml")
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

  local members="${FROTA_SMOKE_MEMBERS:-2}"
  log "compose up (replay, $members members)"
  "$dc" "${dcargs[@]}" up -d --scale "member=$members" >"$dir/up.log" 2>&1 ||
    { cat "$dir/up.log" >&2; die "compose up failed"; }

  # The members run with --until-end: they exit 0 once every partition committed the
  # end-of-input marker, i.e. PostgreSQL holds every table of the day.
  local deadline=$((SECONDS + ${FROTA_SMOKE_TIMEOUT:-900})) done_members=0
  while ((SECONDS < deadline)); do
    local ids states
    ids=$("$dc" "${dcargs[@]}" ps -q member 2>/dev/null || true)
    states=$(for id in $ids; do podman inspect -f '{{.State.Status}}:{{.State.ExitCode}}' "$id"; done)
    if [[ -n "$states" ]] && ! grep -qv '^exited:0$' <<<"$states"; then
      done_members=$(wc -l <<<"$states")
      break
    fi
    if grep -q '^exited:[1-9]' <<<"$states"; then
      "$dc" "${dcargs[@]}" logs --no-color --tail 40 member >&2 || true
      die "a member failed: $(tr '\n' ' ' <<<"$states")"
    fi
    sleep 5
  done
  ((done_members == members)) || die "the members did not finish within ${FROTA_SMOKE_TIMEOUT:-900} s"
  log "all $members members finished the day after $((SECONDS - started)) s"

  # The dashboard page, over HTTP from the web service (rewritten every 5 s).
  local page="$dir/index.html" ok=0
  for ((i = 0; i < 30; i++)); do
    if python3 - "$web_port" "$page" <<'PY'; then ok=1; break; fi
import sys, urllib.request
try:
    body = urllib.request.urlopen(f"http://127.0.0.1:{sys.argv[1]}/", timeout=10).read()
except Exception:
    sys.exit(1)
open(sys.argv[2], "wb").write(body)
sys.exit(0 if b"<html" in body[:4096].lower() and len(body) > 10000 else 1)
PY
    sleep 3
  done
  ((ok)) || die "the dashboard was not served on http://127.0.0.1:$web_port/"
  log "dashboard served over HTTP ($(stat -c %s "$page") bytes)"

  # PostgreSQL's tables against an embedded replay of the same archive, both exported
  # by the image itself into the frota-data volume.
  local sim=/var/lib/frota/sim
  "$dc" "${dcargs[@]}" run --rm --no-deps -T --entrypoint /bin/sh member -c \
    "rm -rf /var/lib/frota/smoke && mkdir -p /var/lib/frota/smoke &&
     frota export --postgres=\"\$FROTA_PG_DSN\" --out=/var/lib/frota/smoke/postgres &&
     frota replay archive:$sim --gtfs=$sim/gtfs --area=$sim/area.geojson --db=/var/lib/frota/smoke/embedded.duckdb >/dev/null &&
     frota export --db=/var/lib/frota/smoke/embedded.duckdb --out=/var/lib/frota/smoke/embedded" \
    >"$dir/compare.log" 2>&1 || { cat "$dir/compare.log" >&2; die "export or embedded replay failed"; }
  local vol
  vol=$(podman volume inspect -f '{{.Mountpoint}}' "${project}_frota-data")
  if ! diff -r "$vol/smoke/postgres" "$vol/smoke/embedded" >"$dir/diff.txt"; then
    head -n 40 "$dir/diff.txt" >&2
    die "PostgreSQL differs from the embedded replay (full diff: $dir/diff.txt)"
  fi
  local tables rows
  tables=$(find "$vol/smoke/postgres" -name '*.csv' | wc -l)
  rows=$(cat "$vol/smoke/postgres"/*.csv | wc -l)
  ((tables > 0 && rows > tables)) || die "the export is empty ($tables tables, $rows lines)"
  log "PostgreSQL equals the embedded replay: $tables tables, $rows lines"
  log "smoke test passed"
}

case "${1:-}" in
  build) cmd_build "${2:-all}" ;;
  smoke) cmd_smoke ;;
  config) cmd_config ;;
  *) sed -n '2,9p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//' >&2; exit 2 ;;
esac
