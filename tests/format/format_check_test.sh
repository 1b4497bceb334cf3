#!/usr/bin/env bash
# Tests scripts/format-check.sh on two fixtures (tests/data/format/): it must accept the
# formatted file and name the unformatted one, exiting 1. Run by ctest `format_check`.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
cd "$root"
fixtures=tests/data/format

scripts/format-check.sh "$fixtures/formatted.cc" || {
  echo "format_check_test: a formatted file was refused" >&2
  exit 1
}
status=0
output=$(scripts/format-check.sh "$fixtures/formatted.cc" "$fixtures/unformatted.cc" 2>&1) || status=$?
if [[ $status -ne 1 ]]; then
  echo "format_check_test: expected exit 1 for an unformatted file, got $status" >&2
  exit 1
fi
if ! grep -qx "$fixtures/unformatted.cc" <<<"$output" || grep -qx "$fixtures/formatted.cc" <<<"$output"; then
  echo "format_check_test: expected exactly the unformatted file named, got:" >&2
  echo "$output" >&2
  exit 1
fi
echo "format_check_test: ok"
