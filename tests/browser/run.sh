#!/usr/bin/env bash
# Runs the dashboard's browser tests (dashboard.test.mjs) in Debian's headless Chromium.
# Fails, never skips, when node, npm or chromium is missing: CI installs them
# (scripts/setup.sh). Installs playwright-core from the npm registry into node_modules
# on first use (package-lock.json pins it).
#
#   tests/browser/run.sh               # BRT archive, a small simulated day, a hostile feed
#   tests/browser/run.sh --rio-scale   # a Rio-scale simulated day: size and time budgets
#   tests/browser/run.sh serve.test.mjs  # the live page of frota serve
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
chromium=${FROTA_CHROMIUM:-/usr/bin/chromium}

command -v node >/dev/null || { echo "browser test: node is not installed (apt-get install nodejs npm)" >&2; exit 1; }
[[ -x "$chromium" ]] || { echo "browser test: $chromium is not installed (apt-get install chromium)" >&2; exit 1; }
if [[ ! -f "$here/node_modules/playwright-core/package.json" ]]; then
  command -v npm >/dev/null || { echo "browser test: npm is not installed" >&2; exit 1; }
  # Two tests may start at once: one installs, the other waits for it.
  exec 9>"${TMPDIR:-/tmp}/frota-browser-npm-install.lock"
  flock 9
  if [[ ! -f "$here/node_modules/playwright-core/package.json" ]]; then
    (cd "$here" && npm ci --no-audit --no-fund --loglevel=error)
  fi
  flock -u 9
fi
# `run.sh serve.test.mjs`: the live page of frota serve instead of the dashboard.
script=dashboard.test.mjs
if [[ "${1:-}" == *.test.mjs ]]; then
  script=$1
  shift
fi
exec node "$here/$script" "$@"
