#!/usr/bin/env bash
# shellcheck disable=SC2317  # the trap handlers below are reached through trap
# Runs a command with a throwaway Kafka broker and PostgreSQL server, then stops both.
#
#   scripts/services/with-services.sh CMD [ARGS...]
#   e.g. scripts/services/with-services.sh ctest --test-dir build/dev -L integration
#
# Both services live under ${FROTA_SERVICES_DIR:-<repo>/build/services}/run-<pid>/ (kafka/,
# postgres/) and CMD sees:
#   KAFKA_BROKERS          127.0.0.1:PORT
#   FROTA_TEST_KAFKA_DIR   the broker's DIR (for kafka.sh restart/topic DIR ...)
#   FROTA_TEST_PG_DSN      postgresql://frota@127.0.0.1:PORT/frota
#   FROTA_TEST_PG_DIR      the server's DIR (for postgres.sh pause/resume DIR)
#   FROTA_TEST_SERVICES_SCRIPTS  this folder, where kafka.sh and postgres.sh are
# The services are stopped (by pid) when CMD ends, fails, or this script gets SIGINT,
# SIGTERM or SIGHUP; the exit status is CMD's (128+N after signal N). The run folder is
# removed after a successful CMD and kept, with the services' logs, after a failure.
#
# Environment:
#   FROTA_SERVICES        which to start: "kafka postgres" (default), "kafka" or "postgres"
#   FROTA_SERVICES_DIR    parent folder of the run folders
#   FROTA_KEEP_SERVICES=1 keep the run folder even after success
# plus those of kafka.sh and postgres.sh (FROTA_KAFKA_VERSION, FROTA_CACHE, ...).
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)

die() {
  echo "with-services.sh: error: $*" >&2
  exit 1
}
note() { echo "with-services.sh: $*" >&2; }

[[ $# -ge 1 ]] || die "usage: with-services.sh CMD [ARGS...]"

want_kafka=0
want_pg=0
for s in ${FROTA_SERVICES:-kafka postgres}; do
  case "$s" in
    kafka) want_kafka=1 ;;
    postgres | pg) want_pg=1 ;;
    *) die "unknown service '$s' in FROTA_SERVICES (kafka, postgres)" ;;
  esac
done

base="${FROTA_SERVICES_DIR:-$root/build/services}"
mkdir -p "$base"
base=$(cd "$base" && pwd)
run="$base/run-$$"
rm -rf "$run"
mkdir -p "$run"

child=""
rc=0
cleaned=0
cleanup() {
  ((cleaned)) && return 0
  cleaned=1
  if [[ -n "$child" ]] && kill -0 "$child" 2>/dev/null; then
    kill -TERM "$child" 2>/dev/null || true
    wait "$child" 2>/dev/null || true
  fi
  if [[ -d "$run/kafka" ]]; then "$here/kafka.sh" stop "$run/kafka" || true; fi
  if [[ -d "$run/postgres" ]]; then "$here/postgres.sh" stop "$run/postgres" || true; fi
  if ((rc == 0)) && [[ "${FROTA_KEEP_SERVICES:-0}" != 1 ]]; then
    rm -rf "$run"
  else
    note "services' data and logs kept in $run"
  fi
}
on_exit() {
  local status=$?
  ((rc != 0)) || rc=$status
  cleanup
  exit "$rc"
}
on_signal() {
  local sig="$1" num="$2"
  note "got SIG$sig, stopping"
  rc=$((128 + num))
  if [[ -n "$child" ]] && kill -0 "$child" 2>/dev/null; then
    kill "-$sig" "$child" 2>/dev/null || true
  fi
  exit "$rc"
}
trap on_exit EXIT
trap 'on_signal INT 2' INT
trap 'on_signal TERM 15' TERM
trap 'on_signal HUP 1' HUP

# Reads NAME=VALUE lines from a start command's stdout and exports them.
export_lines() {
  local line
  while IFS= read -r line; do
    [[ "$line" =~ ^[A-Z_][A-Z0-9_]*= ]] || continue
    export "${line?}"
  done <<<"$1"
}

t0=$SECONDS
if ((want_pg)); then
  out=$("$here/postgres.sh" start "$run/postgres") || die "PostgreSQL did not start"
  export_lines "$out"
  export FROTA_TEST_PG_DIR="$run/postgres"
fi
if ((want_kafka)); then
  out=$("$here/kafka.sh" start "$run/kafka") || die "Kafka did not start"
  export_lines "$out"
  export FROTA_TEST_KAFKA_DIR="$run/kafka"
fi
export FROTA_TEST_SERVICES_SCRIPTS="$here"
note "services up in $((SECONDS - t0))s under $run${KAFKA_BROKERS:+ KAFKA_BROKERS=$KAFKA_BROKERS}${FROTA_TEST_PG_DSN:+ FROTA_TEST_PG_DSN=$FROTA_TEST_PG_DSN}"

# CMD runs in the background so that a signal to this script is handled at once (a
# foreground child would defer the traps until it ends); <&0 keeps our stdin for it.
"$@" <&0 &
child=$!
while :; do
  if wait "$child"; then rc=0; else rc=$?; fi
  kill -0 "$child" 2>/dev/null || break # else wait was cut short by a signal
done
child=""
exit "$rc"
