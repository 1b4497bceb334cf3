#!/usr/bin/env bash
# Prints the Debian packages that own the shared libraries the given ELF files load (one
# line, space separated): the runtime stage of the Dockerfile installs exactly these.
# libduckdb.so itself is copied, not installed, so it is left out.
set -euo pipefail
ldd "$@" | awk '$2 == "=>" && $3 ~ /^\// { print $3 }' | grep -v '/libduckdb\.so$' |
  sort -u | while read -r lib; do
    dpkg -S "$(readlink -f "$lib")" 2>/dev/null || dpkg -S "$lib"
  done | cut -d: -f1 | sort -u | tr '\n' ' '
echo
