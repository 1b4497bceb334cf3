#!/usr/bin/env bash
# Checks the module graph (scripts/check-modules.sh), builds frota with the `ci` preset
# and runs every test except benchmarks, then the
# `concurrency` tests again under ThreadSanitizer (the `tsan` preset, clang).
# Tests that need PostgreSQL or Kafka get real servers, started here on loopback and
# stopped on exit (scripts/services/).
#
#   scripts/test.sh                 # everything but benchmarks, then TSan
#   scripts/test.sh -L unit         # extra arguments go to the ci preset's ctest; no TSan
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
jobs=$(nproc 2>/dev/null || echo 2)

# The module graph first: it needs no build and names the file of a forbidden include.
scripts/check-modules.sh
[[ -f third_party/duckdb/lib/libduckdb.so ]] || scripts/fetch_duckdb.sh
cmake --preset ci >/dev/null
cmake --build build/ci -j "$jobs"

# Servers' data lives under the build tree, unless (as root) the tree is not reachable by
# the unprivileged user PostgreSQL must run as; then under /tmp.
services_dir="$root/build/ci/services"
if [[ $(id -u) -eq 0 ]] && ! runuser -u nobody -- test -x "$root/build/ci" 2>/dev/null; then
  services_dir=$(mktemp -d /tmp/frota-services.XXXXXX)
  chmod 755 "$services_dir"
fi
FROTA_SERVICES_DIR="$services_dir" scripts/services/with-services.sh \
  ctest --test-dir build/ci --output-on-failure -j "$jobs" -LE benchmark --timeout 1500 "$@"

# With no arguments, the whole run: the concurrency tests (engine, job, runner, source)
# once more under ThreadSanitizer, halting on the first race (CMakePresets.json, test
# preset "tsan"). Address-space randomisation off for it (setarch -R): ThreadSanitizer
# maps its shadow memory at fixed addresses, which some kernels' wider randomisation
# collides with.
if [[ $# -eq 0 ]]; then
  cmake --preset tsan >/dev/null
  cmake --build build/tsan -j "$jobs" \
    --target engine_test job_test runner_test runner_live_test source_test
  setarch "$(uname -m)" -R ctest --preset tsan -j "$jobs"
fi
