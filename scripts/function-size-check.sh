#!/usr/bin/env bash
# Checks that no product function is longer than 120 lines or has a cyclomatic complexity
# over 40, as lizard (PyPI) counts them; tests, benchmarks, fuzzers and test helpers are
# not product code. Installs lizard into a venv of its own the first time.
#
#   scripts/function-size-check.sh          # every product file of src/, against the list
#   scripts/function-size-check.sh FILE...  # these files, no list: every offender reported
#
# scripts/function-size-known.txt lists the functions still over a limit ("FILE FUNCTION"
# per line), each waiting to be split by meaning. The whole-tree check fails on an
# offender that is not listed, and on a listed function that is now within the limits
# (take it off the list): the list only shrinks.
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
known=scripts/function-size-known.txt
if [[ ${#targets[@]} -gt 0 ]]; then
  known=/dev/null
else
  targets=(src/frota)
fi
# -L: lines of a function (its length); -C: cyclomatic complexity; -w: only the offenders.
set +e
found=$("$venv/bin/lizard" --languages cpp -L 120 -C 40 -w \
  -x '*_test.cc' -x '*_benchmark.cc' -x '*_fuzz.cc' -x '*/testing/*' "${targets[@]}")
status=$?
set -e
[[ $status -le 1 ]] || { echo "function-size-check: lizard failed ($status)" >&2; exit "$status"; }

# "FILE FUNCTION" of each offender, from lizard's "FILE:LINE: warning: FUNCTION has ...".
offenders=$(printf '%s\n' "$found" | sed -n 's/^\([^:]*\):[0-9]*: warning: \([^ ]*\) has .*/\1 \2/p' | sort)
listed=$(grep -v '^#' "$known" | sed '/^$/d' | sort || true)
new=$(comm -23 <(printf '%s\n' "$offenders" | sed '/^$/d') <(printf '%s\n' "$listed" | sed '/^$/d'))
fixed=$(comm -13 <(printf '%s\n' "$offenders" | sed '/^$/d') <(printf '%s\n' "$listed" | sed '/^$/d'))
failed=0
if [[ -n $new ]]; then
  printf '%s\n' "$found" | grep -F -f <(printf '%s\n' "$new" | cut -d' ' -f2 | sed 's/$/ has /') || true
  echo "function-size-check: $(printf '%s\n' "$new" | wc -l) functions over 120 lines or a complexity of 40 (split them by meaning)" >&2
  failed=1
fi
if [[ -n $fixed ]]; then
  printf '%s\n' "$fixed"
  echo "function-size-check: these are within the limits now: take them off $known" >&2
  failed=1
fi
((failed == 0)) || exit 1
if [[ $known == /dev/null ]]; then
  echo "function-size-check: every function of the files given within 120 lines and a complexity of 40"
else
  count=$(printf '%s\n' "$listed" | sed '/^$/d' | wc -l)
  echo "function-size-check: every other product function within 120 lines and a complexity of 40 ($count listed in $known)"
fi
