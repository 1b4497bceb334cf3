# Helpers shared by kafka.sh and postgres.sh; sourced, never run. The sourcing script sets
# SERVICE_SCRIPT (its name, for messages) and defines running_pid DIR (prints the pid of
# the service of DIR, fails when none runs).

die() {
  echo "$SERVICE_SCRIPT: error: $*" >&2
  exit 1
}
note() { echo "$SERVICE_SCRIPT: $*" >&2; }

# A port that was free a moment ago on loopback.
free_port() {
  python3 -c 'import socket
s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()'
}

# Whether something accepts connections on a loopback port. bash's /dev/tcp: no nc
# needed; the subshell closes the socket again.
port_open() {
  (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null
}

# The absolute path of directory $1 (created first when $2 is "create").
abs_dir() {
  if [[ "${2:-}" == create ]]; then
    mkdir -p "$1" || die "cannot create $1"
  fi
  [[ -d "$1" ]] || die "no such directory: $1"
  (cd "$1" && pwd)
}

cmd_status() {
  [[ $# -eq 1 ]] || die "usage: $SERVICE_SCRIPT status DIR"
  local dir pid
  dir=$(abs_dir "$1")
  if pid=$(running_pid "$dir"); then
    echo "running pid=$pid"
  else
    echo "stopped"
    return 1
  fi
}
