#!/usr/bin/env bash
# Creates (or brings up to date) the Python virtual environment that holds the validators
# of tests/validators/requirements.txt, and prints its path. scripts/setup.sh runs it; the
# tests find it at the same place ($FROTA_VALIDATORS_VENV, else ~/.cache/frota/validators).
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
venv=${FROTA_VALIDATORS_VENV:-$HOME/.cache/frota/validators}
stamp="$venv/requirements.txt"
if [[ ! -x "$venv/bin/python" ]]; then
  python3 -m venv "$venv" >&2
fi
if ! cmp -s "$here/requirements.txt" "$stamp"; then
  "$venv/bin/pip" install --quiet --disable-pip-version-check -r "$here/requirements.txt" >&2
  cp "$here/requirements.txt" "$stamp"
fi
echo "$venv"
