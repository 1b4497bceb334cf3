#!/usr/bin/env bash
# Runs a validator test (a Python file of this folder) with the validators' virtual
# environment (venv.sh: made by scripts/setup.sh, brought up to date here).
#   tests/validators/run.sh gtfs_rt_test.py simulated
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
venv=$("$here/venv.sh")
script=$1
shift
exec "$venv/bin/python" "$here/$script" "$@"
