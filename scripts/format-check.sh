#!/usr/bin/env bash
# Checks that every C++ file under src/ is formatted as .clang-format says
# (clang-format --dry-run -Werror): lists each file that is not, and exits 1 if any.
# It changes nothing; `clang-format -i FILE` formats a file.
#
#   scripts/format-check.sh              # every .cc/.h under src/
#   scripts/format-check.sh FILE...      # only these files
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
clang_format=${CLANG_FORMAT:-clang-format}
command -v "$clang_format" >/dev/null || { echo "format-check: $clang_format not found" >&2; exit 2; }

if (($#)); then
  files=("$@")
else
  mapfile -t files < <(git ls-files -- 'src/*.cc' 'src/*.h' 2>/dev/null || true)
  if ((${#files[@]} == 0)); then  # not a git checkout: every file on disk
    mapfile -t files < <(find src \( -name '*.cc' -o -name '*.h' \) | sort)
  fi
fi

failed=0
for file in "${files[@]}"; do
  # --style=file: the .clang-format at the repository root.
  if ! "$clang_format" --style=file --dry-run -Werror "$file" >/dev/null 2>&1; then
    echo "$file"
    failed=$((failed + 1))
  fi
done
if ((failed)); then
  echo "format-check: $failed of ${#files[@]} files not formatted ($($clang_format --version))" >&2
  exit 1
fi
echo "format-check: ${#files[@]} files formatted"
