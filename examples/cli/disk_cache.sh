#!/usr/bin/env bash
# The persistent kernel cache across processes: the first run compiles, the second reads the object.
set -euo pipefail
cache=$(mktemp -d)
trap 'rm -rf "$cache"' EXIT
for run in 1 2; do
  rowjit eval 'a * b - 3' --schema 'a:i32?, b:i32' --rows 10000 --cache-dir "$cache" \
    | grep '^kernel' | sed -E 's/ in [0-9.]+ ms.*//'
done
ls "$cache" | grep -c '\.rjk$'   # one object file per kernel
