#!/usr/bin/env bash
# A throwaway PostgreSQL 15 server for tests, on loopback, with its data under DIR.
#
#   scripts/services/postgres.sh start DIR    # prints FROTA_TEST_PG_DSN=postgresql://frota@127.0.0.1:PORT/frota
#   scripts/services/postgres.sh stop DIR     # fast shutdown by pid (SIGINT), SIGQUIT/SIGKILL after a timeout
#   scripts/services/postgres.sh restart DIR  # same port, same data
#   scripts/services/postgres.sh pause DIR    # = stop, keeping port and data for resume
#   scripts/services/postgres.sh resume DIR   # = start again on the same port and data
#   scripts/services/postgres.sh status DIR   # exit 0 if the server of DIR runs
#   scripts/services/postgres.sh env DIR      # print FROTA_TEST_PG_DSN=...
#
# The first start runs initdb into DIR/data with a throwaway superuser "frota", trust
# authentication for loopback connections only, listen_addresses=127.0.0.1 on a free port
# and the unix socket in DIR; then creates the database "frota". DIR/postgres.env keeps the
# port and DSN, DIR/postgres.log the server's log.
#
# As root (CI), initdb and postgres refuse to run, so the server runs as an unprivileged
# system user (FROTA_PG_OS_USER, default frota-test, created if missing) through setpriv,
# and DIR is chowned to it. Every directory above DIR must be traversable (o+x) by it.
#
# Environment:
#   FROTA_PG_BIN       PostgreSQL binaries (default /usr/lib/postgresql/15/bin)
#   FROTA_PG_OS_USER   OS user the server runs as when this script runs as root
#   FROTA_PG_FSYNC     on|off (default on)
#   FROTA_PG_SHARED_BUFFERS  shared_buffers (default 128MB)
#   FROTA_PG_TIMEOUT   seconds to wait for start and stop (default 60)
set -euo pipefail

SERVICE_SCRIPT=postgres.sh
# shellcheck source=common.sh
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

readonly PG_BIN="${FROTA_PG_BIN:-/usr/lib/postgresql/15/bin}"
readonly OS_USER="${FROTA_PG_OS_USER:-frota-test}"
readonly DB_USER=frota
readonly DB_NAME=frota
readonly TIMEOUT="${FROTA_PG_TIMEOUT:-60}"

is_root() { [[ $(id -u) -eq 0 ]]; }

# The command prefix that runs a program as the server's OS user: setpriv when root, none
# otherwise. setpriv execs in place (runuser would stay behind as a root parent).
runas=()
if is_root; then
  runas=(setpriv --reuid="$OS_USER" --regid="$OS_USER" --init-groups env HOME=/)
fi
as_server_user() { "${runas[@]}" "$@"; }

ensure_os_user() {
  is_root || return 0
  id -u "$OS_USER" >/dev/null 2>&1 && return 0
  command -v useradd >/dev/null 2>&1 || die "useradd not found; create user $OS_USER by hand"
  note "creating system user $OS_USER to run PostgreSQL (it refuses to run as root)"
  useradd --system --user-group --no-create-home --home-dir /nonexistent \
    --shell /usr/sbin/nologin "$OS_USER" ||
    id -u "$OS_USER" >/dev/null 2>&1 || die "could not create user $OS_USER"
}

check_bins() {
  local b
  for b in initdb postgres psql; do
    [[ -x "$PG_BIN/$b" ]] || die "$PG_BIN/$b not found (apt-get install postgresql-15, or set FROTA_PG_BIN)"
  done
}

# The postmaster's pid from DIR/data/postmaster.pid, if that process runs this data dir.
running_pid() {
  local dir="$1" pid
  [[ -s "$dir/data/postmaster.pid" ]] || return 1
  pid=$(head -n 1 "$dir/data/postmaster.pid")
  [[ "$pid" =~ ^[0-9]+$ ]] || return 1
  [[ -r "/proc/$pid/cmdline" ]] || return 1
  tr '\0' ' ' <"/proc/$pid/cmdline" | grep -qF -- "$dir/data" || return 1
  echo "$pid"
}

load_env() {
  local dir="$1"
  [[ -f "$dir/postgres.env" ]] || die "$dir/postgres.env missing: was PostgreSQL ever started in $dir?"
  # shellcheck disable=SC1091
  source "$dir/postgres.env"
  [[ -n "${PG_PORT:-}" ]] || die "$dir/postgres.env is incomplete"
}

dsn() { echo "postgresql://$DB_USER@127.0.0.1:$1/$DB_NAME"; }

# Fails with a clear message when the server's user cannot reach DIR.
check_reachable() {
  local dir="$1"
  is_root || return 0
  as_server_user test -x "$dir" -a -w "$dir" && return 0
  # name the topmost directory that it cannot enter
  local d="" part
  local -a parts
  IFS=/ read -r -a parts <<<"${dir#/}"
  for part in "${parts[@]}"; do
    d="$d/$part"
    if ! as_server_user test -x "$d"; then
      die "user $OS_USER cannot enter $d (mode $(stat -c %A "$d")), so it cannot run a server in $dir; put the services elsewhere (FROTA_SERVICES_DIR) or chmod o+x $d"
    fi
  done
  die "user $OS_USER cannot write $dir"
}

init_cluster() {
  local dir="$1" port="$2"
  note "initdb into $dir/data (port $port)"
  if ! as_server_user "$PG_BIN/initdb" -D "$dir/data" -U "$DB_USER" --auth=trust \
    --encoding=UTF8 --locale=C --no-sync >"$dir/initdb.log" 2>&1; then
    cat "$dir/initdb.log" >&2
    die "initdb failed"
  fi
  # unix sockets are limited to 107 bytes of path; fall back to TCP only when DIR is deep
  local sockdir="$dir"
  if ((${#dir} + 20 > 107)); then sockdir=""; fi
  cat >>"$dir/data/postgresql.conf" <<EOF

# ---- frota test server (scripts/services/postgres.sh)
listen_addresses = '127.0.0.1'
port = $port
unix_socket_directories = '$sockdir'
fsync = ${FROTA_PG_FSYNC:-on}
max_connections = 100
shared_buffers = ${FROTA_PG_SHARED_BUFFERS:-128MB}
# Bulk epochs: WAL and checkpoints sized so a run of 100 k-row upserts does not
# checkpoint every few seconds (PostgreSQL's defaults are 1GB and 5min).
max_wal_size = 4GB
checkpoint_timeout = 15min
max_prepared_transactions = 16
timezone = 'UTC'
log_timezone = 'UTC'
logging_collector = off
log_min_messages = warning
log_line_prefix = '%m [%p] %q%u@%d '
log_connections = off
log_disconnections = off
EOF
  cat >"$dir/data/pg_hba.conf" <<'EOF'
# frota test server: trust, loopback only (the server listens on 127.0.0.1 alone)
# TYPE  DATABASE  USER  ADDRESS        METHOD
local   all       all                  trust
host    all       all   127.0.0.1/32   trust
EOF
  chmod 600 "$dir/data/pg_hba.conf"
  is_root && chown "$OS_USER:" "$dir/data/pg_hba.conf"
  return 0
}

psql_admin() {
  local port="$1"
  shift
  "$PG_BIN/psql" -X -q -v ON_ERROR_STOP=1 -h 127.0.0.1 -p "$port" -U "$DB_USER" -d postgres "$@"
}

cmd_start() {
  [[ $# -eq 1 ]] || die "usage: postgres.sh start DIR"
  check_bins
  local dir pid port
  dir=$(abs_dir "$1" create)
  if pid=$(running_pid "$dir"); then
    die "PostgreSQL already runs for $dir (pid $pid); use restart or stop"
  fi
  ensure_os_user
  if is_root; then chown "$OS_USER:" "$dir"; fi
  check_reachable "$dir"

  if [[ -f "$dir/postgres.env" ]]; then
    load_env "$dir"
    port=$PG_PORT
  else
    port=$(free_port)
  fi
  if port_open "$port"; then
    die "port $port is taken by another process"
  fi
  [[ -f "$dir/data/PG_VERSION" ]] || init_cluster "$dir" "$port"
  # A server killed hard leaves postmaster.pid; postgres itself checks whether its pid
  # is still alive, so a stale file does not block the start.

  if is_root; then touch "$dir/postgres.log" && chown "$OS_USER:" "$dir/postgres.log"; fi
  echo "---- start $(date -u +%FT%TZ)" >>"$dir/postgres.log"
  # setsid: the server outlives this script and a Ctrl-C in the calling terminal. A simple
  # command (no function) so that no subshell of this script stays behind as its parent.
  "${runas[@]}" setsid "$PG_BIN/postgres" -D "$dir/data" >>"$dir/postgres.log" 2>&1 </dev/null &
  local launcher=$!

  local deadline=$((SECONDS + TIMEOUT)) ready=0
  while ((SECONDS < deadline)); do
    if pid=$(running_pid "$dir") && [[ $(sed -n 8p "$dir/data/postmaster.pid" 2>/dev/null) == ready* ]]; then
      ready=1
      break
    fi
    if ! kill -0 "$launcher" 2>/dev/null && ! running_pid "$dir" >/dev/null; then
      break # the server exited
    fi
    sleep 0.1
  done
  if ((!ready)); then
    tail -n 30 "$dir/postgres.log" >&2
    if pid=$(running_pid "$dir"); then stop_pid "$pid" "$dir"; fi
    die "PostgreSQL did not become ready within ${TIMEOUT}s; log: $dir/postgres.log"
  fi

  if [[ ! -f "$dir/postgres.env" ]]; then
    psql_admin "$port" -c "CREATE DATABASE $DB_NAME" >/dev/null ||
      die "could not create database $DB_NAME"
    {
      echo "PG_PORT=$port"
      echo "PG_USER=$DB_USER"
      echo "PG_DATABASE=$DB_NAME"
      echo "FROTA_TEST_PG_DSN=$(dsn "$port")"
    } >"$dir/postgres.env"
  fi
  echo "FROTA_TEST_PG_DSN=$(dsn "$port")"
}

stop_pid() {
  local pid="$1" dir="$2" deadline
  # SIGINT = fast shutdown: roll back open transactions, checkpoint, exit.
  kill -INT "$pid" 2>/dev/null || return 0
  deadline=$((SECONDS + TIMEOUT))
  while kill -0 "$pid" 2>/dev/null && ((SECONDS < deadline)); do sleep 0.1; done
  if kill -0 "$pid" 2>/dev/null; then
    note "PostgreSQL pid $pid still up after ${TIMEOUT}s: immediate shutdown (SIGQUIT)"
    kill -QUIT "$pid" 2>/dev/null || true
    deadline=$((SECONDS + 10))
    while kill -0 "$pid" 2>/dev/null && ((SECONDS < deadline)); do sleep 0.1; done
  fi
  if kill -0 "$pid" 2>/dev/null; then
    note "PostgreSQL pid $pid still up: SIGKILL"
    kill -KILL "$pid" 2>/dev/null || true
    while kill -0 "$pid" 2>/dev/null; do sleep 0.1; done
  fi
}

cmd_stop() {
  [[ $# -eq 1 ]] || die "usage: postgres.sh stop DIR"
  [[ -d "$1" ]] || die "no such directory: $1"
  local dir pid
  dir=$(abs_dir "$1")
  if ! pid=$(running_pid "$dir"); then
    note "no PostgreSQL running for $dir"
    return 0
  fi
  stop_pid "$pid" "$dir"
}

cmd_restart() {
  [[ $# -eq 1 ]] || die "usage: postgres.sh restart DIR"
  [[ -f "$1/postgres.env" ]] || die "PostgreSQL was never started in $1 (no postgres.env)"
  cmd_stop "$1"
  cmd_start "$1"
}

cmd_env() {
  [[ $# -eq 1 ]] || die "usage: postgres.sh env DIR"
  local dir
  dir=$(abs_dir "$1")
  load_env "$dir"
  echo "FROTA_TEST_PG_DSN=$(dsn "$PG_PORT")"
}

usage() {
  sed -n '2,10p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//' >&2
  exit 2
}

main() {
  [[ $# -ge 1 ]] || usage
  local cmd="$1"
  shift
  case "$cmd" in
    start) cmd_start "$@" ;;
    stop | pause) cmd_stop "$@" ;;
    restart) cmd_restart "$@" ;;
    resume)
      [[ $# -eq 1 && -f "$1/postgres.env" ]] || die "usage: postgres.sh resume DIR (after start and pause)"
      cmd_start "$@"
      ;;
    status) cmd_status "$@" ;;
    env) cmd_env "$@" ;;
    -h | --help | help) usage ;;
    *) die "unknown subcommand '$cmd' (start|stop|restart|pause|resume|status|env)" ;;
  esac
}

main "$@"
