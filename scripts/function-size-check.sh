#!/usr/bin/env bash
# Checks that no product function is longer than 120 lines or has a cyclomatic complexity
# over 40, as lizard (PyPI) counts them; tests, benchmarks, fuzzers and test helpers are
# not product code. Installs lizard into a venv of its own the first time.
#
#   scripts/function-size-check.sh          # every product file of src/
#   scripts/function-size-check.sh FILE...  # these files
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
venv=${FROTA_CACHE:-$HOME/.cache/frota}/lizard-venv
lizard_version=1.24.3
if [[ ! -x $venv/bin/lizard ]] || ! "$venv/bin/lizard" --version 2>/dev/null | grep -qx "$lizard_version"; then
  rm -rf "$venv"
  python3 -m venv "$venv"
  "$venv/bin/pip" install --quiet "lizard==$lizard_version"
fi

targets=("$@")
[[ ${#targets[@]} -gt 0 ]] || targets=(src/frota)
# -L: lines of a function (its length); -C: cyclomatic complexity; -w: only the offenders.
set +e
found=$("$venv/bin/lizard" --languages cpp -L 120 -C 40 -w \
  -x '*_test.cc' -x '*_benchmark.cc' -x '*_fuzz.cc' -x '*/testing/*' "${targets[@]}")
status=$?
set -e
if [[ -n $found ]]; then
  echo "$found"
  echo "function-size-check: $(printf '%s\n' "$found" | grep -c warning) functions over 120 lines or a complexity of 40 (split them by meaning)" >&2
  exit 1
fi
[[ $status -eq 0 ]] || { echo "function-size-check: lizard failed ($status)" >&2; exit "$status"; }
echo "function-size-check: every product function within 120 lines and a complexity of 40"
