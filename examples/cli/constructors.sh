#!/usr/bin/env bash
# Structs, lists and maps built from a row's values, each checked against the reference
# evaluator (--verify): as the value, and read by the list and map functions.
set -euo pipefail
keep() { grep -E '^(expr|type|strategy|verify)' | sed -E 's/, cached run .*//'; }

rowjit eval 'struct_pack(id := a, total := b * 2, a_or_b := coalesce(a, b))' --schema 'a:i32?, b:i64' --rows 10000 \
  --valid 0.9 --verify --no-disk-cache | keep
rowjit eval 'list_max([x, y, x * y])' --schema 'x:f64?, y:f64' --rows 10000 --valid 0.9 --verify --no-disk-cache | keep
rowjit eval "map(['low', 'high'], [lo, hi])['high'] - lo" --schema 'lo:i32, hi:i32' --rows 10000 --verify \
  --no-disk-cache | keep
# Rows printed: a list and a struct built of a column and constants.
rowjit eval '[a, 0, a * 2]' --schema 'a:i16?' --rows 4 --valid 0.5 --seed 3 --print 4 --no-disk-cache \
  | grep -vE '^(time|static)'
rowjit eval 'struct_pack(a, next := a + 1)' --schema 'a:i16?' --rows 4 --valid 0.5 --seed 3 --print 4 --no-disk-cache \
  | grep -vE '^(time|static)'
