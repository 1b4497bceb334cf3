#!/usr/bin/env bash
# Installs every dependency of frota on a fresh Debian 12 machine, then builds it.
#
#   scripts/setup.sh              # packages + DuckDB + Kafka jars, then a release build
#   scripts/setup.sh --no-build   # dependencies only
#   scripts/setup.sh --containers # also the container tools of scripts/containers.sh
#                                 # (podman, runc, debootstrap, the CNI plugins and
#                                 # dnsname, iptables: docs/deploy.md); flags combine
#
# Safe to run again: each step skips what is already in place.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=1
containers=0
for arg in "$@"; do
  case "$arg" in
    --no-build) build=0 ;;
    --containers) containers=1 ;;
    *) echo "setup: unknown flag $arg (expected --no-build, --containers)" >&2; exit 2 ;;
  esac
done

sudo_cmd=()
if [[ $(id -u) -ne 0 ]]; then sudo_cmd=(sudo); fi

packages=(
  # toolchain
  build-essential cmake ninja-build pkg-config git ca-certificates
  clang-14 libclang-rt-14-dev clang-format clang-tidy
  # libraries
  libgtest-dev libgmock-dev libbenchmark-dev
  librdkafka-dev libpq-dev libprotobuf-dev protobuf-compiler
  libsimdjson-dev libfast-float-dev libfmt-dev libspdlog-dev libcli11-dev
  libcurl4-openssl-dev libcpp-httplib-dev nlohmann-json3-dev
  zlib1g-dev libzip-dev libhowardhinnant-date-dev libtomlplusplus-dev tzdata
  # servers and tools the tests start: PostgreSQL 15, Java 17 + Maven for Kafka
  postgresql-15 openjdk-17-jre-headless maven
  # the dashboard's browser tests (tests/browser) drive Debian's headless chromium
  chromium
  # process measurement for benchmarks
  time
  # promtool (tests/validators: `promtool check metrics` on every /metrics endpoint)
  prometheus
  # `scripts/containers.sh config` checks compose.yaml against the Compose file format
  docker-compose
  # the service scripts pick free ports with python3; bench/compare's harness and its
  # PySpark venv
  python3 python3-venv
)
# scripts/containers.sh build/smoke/live: rootful podman with runc, the CNI network
# backend with the dnsname plugin (service names in DNS) and iptables (published ports),
# debootstrap for the local base image. docker-compose drives podman's API.
if ((containers)); then
  packages+=(podman runc debootstrap containernetworking-plugins
    golang-github-containernetworking-plugin-dnsname iptables)
fi
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
# npm fetches DuckDB's shared library and the browser tests' driver. A Node.js that
# already brings npm (e.g. NodeSource's, which conflicts with Debian's npm) is kept.
if ! command -v node >/dev/null || ! command -v npm >/dev/null; then
  missing+=(nodejs npm)
fi
if ((${#missing[@]})); then
  echo "setup: installing ${#missing[@]} Debian packages: ${missing[*]}"
  "${sudo_cmd[@]}" apt-get update -qq
  DEBIAN_FRONTEND=noninteractive "${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

"$root/scripts/fetch_duckdb.sh"
"$root/scripts/services/kafka.sh" fetch  # broker jars for the integration tests, cached
# The validators the tests run on frota's outputs (PyPI, pinned): tests/validators/README.md
"$root/tests/validators/venv.sh" >/dev/null


if ((build)); then
  cmake --preset release -S "$root" >/dev/null
  cmake --build "$root/build/release" --target frota engine_ceiling
  echo "setup: built $root/build/release/frota (and bench/engine_ceiling, bench/compare's)"
fi
