#!/usr/bin/env bash
# Checks the module graph of src/frota/README.md on the sources alone (no build): every
# `#include "frota/<module>/..."` in a module's product code must name the module itself
# or one it may use, directly or through the modules those may use. Tests, benchmarks,
# fuzzers and testing/ folders are left to the build, which gives each of them only the
# include paths of the libraries it links.
#
#   scripts/check-modules.sh            # exit 1, naming each file and forbidden edge
#
# The table is read from src/frota/README.md, so the rule and its check cannot drift;
# the build enforces the same graph (cmake/FrotaTargets.cmake).
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
readme="$root/src/frota/README.md"
src="$root/src/frota"

declare -A uses=()  # module -> space-separated modules it may use directly
while IFS='|' read -r _ module _ deps _; do
  module=$(echo "$module" | tr -d ' `')
  [[ $module =~ ^[a-z_]+$ && $module != module ]] || continue
  deps=$(echo "$deps" | sed -E 's/\([^)]*\)//g; s/[—-]//g; s/,/ /g')
  uses[$module]=$(echo $deps)
done < <(grep -E '^\| *`?[a-z_]+`? *\|' "$readme")

if [[ ${#uses[@]} -eq 0 ]]; then
  echo "check-modules: no module table in $readme" >&2
  exit 2
fi

status=0
for dir in "$src"/*/; do
  module=$(basename "$dir")
  if [[ -z ${uses[$module]+x} ]]; then
    echo "src/frota/$module: module missing from the table in src/frota/README.md"
    status=1
  fi
done

# The modules each may reach: itself, what it may use, and so on transitively.
declare -A reach=()
for module in "${!uses[@]}"; do
  seen=" $module "
  todo=(${uses[$module]})
  while ((${#todo[@]})); do
    next=${todo[0]}
    todo=("${todo[@]:1}")
    if [[ $next == everything ]]; then
      seen=" ${!uses[*]} "
      break
    fi
    [[ $seen == *" $next "* ]] && continue
    seen+="$next "
    todo+=(${uses[$next]:-})
  done
  reach[$module]=$seen
done

while IFS= read -r file; do
  rel=${file#"$root/"}
  module=${rel#src/frota/}
  module=${module%%/*}
  [[ -n ${reach[$module]+x} ]] || continue
  while IFS=: read -r line target; do
    if [[ ${reach[$module]} != *" $target "* ]]; then
      echo "$rel:$line: $module may not include frota/$target (forbidden edge $module -> $target)"
      status=1
    fi
  done < <(grep -nE '^[[:space:]]*#[[:space:]]*include[[:space:]]*[<"]frota/[a-z_]+/' "$file" |
           sed -E 's|^([0-9]+):.*frota/([a-z_]+)/.*|\1:\2|')
done < <(find "$src" -mindepth 2 -type f \( -name '*.cc' -o -name '*.h' \) \
           ! -name '*_test.cc' ! -name '*_benchmark.cc' ! -name '*_fuzz.cc' \
           ! -path '*/testing/*' | sort)

if ((status)); then
  echo "check-modules: forbidden includes; src/frota/README.md has the module table" >&2
else
  echo "check-modules: ${#uses[@]} modules, every include allowed"
fi
exit $status
