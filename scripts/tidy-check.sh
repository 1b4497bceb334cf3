#!/usr/bin/env bash
# clang-tidy with the project's profile (.clang-tidy) over the C++ files of src/ changed
# relative to a base, using build/ci's compile commands (configure the ci preset first).
# Every finding is an error; it lists them and exits 1 if any. It changes nothing.
#
#   scripts/tidy-check.sh              # files changed since the base (below)
#   scripts/tidy-check.sh --all        # every .cc under src/
#   scripts/tidy-check.sh FILE...      # only these files
#
# The base: $FROTA_TIDY_BASE if set; else the merge-base of HEAD with origin/main (or
# main), unless HEAD is that commit; else HEAD^, the last commit's changes (a clean
# checkout of main). With no git history to compare, every file. A changed header is
# checked through the .cc of the same name beside it (thing.h -> thing.cc), else through
# the first .cc of src/ that includes it. Findings in the headers of src/frota are
# reported (.clang-tidy's HeaderFilterRegex), each once, under its path in src/ (the build
# reaches it through build/<preset>/module-include/). A file the build does not compile (a
# benchmark, in build/ci) is named and left unchecked; point FROTA_TIDY_BUILD at a build
# that compiles it (build/release builds the benchmarks).
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
clang_tidy=${CLANG_TIDY:-clang-tidy}
build=${FROTA_TIDY_BUILD:-build/ci}
command -v "$clang_tidy" >/dev/null || { echo "tidy-check: $clang_tidy not found" >&2; exit 2; }
[[ -f $build/compile_commands.json ]] ||
  { echo "tidy-check: no $build/compile_commands.json (cmake --preset ci first)" >&2; exit 2; }

all_files() { git ls-files -- 'src/*.cc' 2>/dev/null || find src -name '*.cc' | sort; }

base_commit() {
  if [[ -n ${FROTA_TIDY_BASE:-} ]]; then
    git rev-parse --verify -q "$FROTA_TIDY_BASE^{commit}"
    return
  fi
  local head main base
  head=$(git rev-parse --verify -q HEAD) || return 1
  for main in origin/main main; do
    if base=$(git merge-base HEAD "$main" 2>/dev/null) && [[ $base != "$head" ]]; then
      echo "$base"
      return
    fi
  done
  git rev-parse --verify -q HEAD^
}

if [[ ${1:-} == --all ]]; then
  mapfile -t files < <(all_files)
  what="every file"
elif (($#)); then
  files=("$@")
  what="the files given"
elif base=$(base_commit); then
  mapfile -t changed < <(git diff --name-only --diff-filter=d "$base" -- 'src/*.cc' 'src/*.h')
  files=()
  for f in "${changed[@]}"; do
    case $f in
      *.cc) files+=("$f") ;;
      *.h)
        if [[ -f ${f%.h}.cc ]]; then
          files+=("${f%.h}.cc")
        else
          # A header of its own (no .cc beside it): through a file that includes it.
          includer=$(git grep -l -F "#include \"${f#src/}\"" -- 'src/*.cc' | head -n 1 || true)
          [[ -n $includer ]] && files+=("$includer")
        fi
        ;;
    esac
  done
  mapfile -t files < <(printf '%s\n' "${files[@]}" | sort -u | sed '/^$/d')
  what="changed since $(git rev-parse --short "$base")"
else
  mapfile -t files < <(all_files)
  what="every file (no base to compare with)"
fi

if ((${#files[@]} == 0)); then
  echo "tidy-check: no C++ file $what"
  exit 0
fi
echo "tidy-check: ${#files[@]} files, $what"
failed=0
skipped=()
reported=()  # header findings already listed (a header is read by many files)
for file in "${files[@]}"; do
  # A file the build does not compile has no compile command to check it with (the ci
  # preset builds no benchmarks): named below, not guessed at.
  if ! grep -qF "\"$root/$file\"" "$build/compile_commands.json"; then
    skipped+=("$file")
    continue
  fi
  # Only what .clang-tidy enables, every finding an error; headers of src/frota included,
  # named by their path in src/ rather than through the build's module-include links.
  status=0
  out=$("$clang_tidy" -p "$build" --quiet --warnings-as-errors='*' "$file" 2>/dev/null) || status=$?
  findings=$(grep -E '(warning|error):' <<<"$out" |
    sed -E "s#^$root/##; s#^[^:]*/module-include/[a-z_]+/frota/#src/frota/#" || true)
  new_findings=()
  while IFS= read -r finding; do
    [[ -z $finding ]] && continue
    if [[ $finding == *.h:* ]]; then
      [[ " ${reported[*]} " == *" ${finding%%: *} "* ]] && continue
      reported+=("${finding%%: *}")
    fi
    new_findings+=("$finding")
  done <<<"$findings"
  if [[ -n $findings || $status -ne 0 ]]; then
    ((${#new_findings[@]})) && printf '%s\n' "${new_findings[@]}"
    [[ -z $findings ]] && echo "$file: clang-tidy exited $status"
    failed=$((failed + 1))
  fi
done
if ((${#skipped[@]})); then
  echo "tidy-check: not compiled by $build, not checked (benchmarks: FROTA_TIDY_BUILD=build/release): ${skipped[*]}"
fi
if ((failed)); then
  echo "tidy-check: findings in $failed of ${#files[@]} files ($($clang_tidy --version | grep -m1 version))" >&2
  exit 1
fi
echo "tidy-check: $((${#files[@]} - ${#skipped[@]})) files clean"
