#!/usr/bin/env bash
# List and map columns: functions of a list's elements and a map's values, checked against the
# reference evaluator (--verify), inside filters and folds.
set -euo pipefail
keep() { grep -E '^(expr|type|strategy|verify)' | sed -E 's/, cached run .*//'; }

rowjit eval 'list_sum(l) + len(l)' --schema 'l:list<i32?>?' --rows 10000 --valid 0.9 --verify --no-disk-cache | keep
rowjit eval 'l[1] > 0 and list_contains(tags, 3)' --schema 'l:list<f64>, tags:large_list<i16?>?' \
  --rows 10000 --valid 0.9 --verify --no-disk-cache | keep
rowjit eval "coalesce(m['ab'], 0) + len(m)" --schema 'm:map<utf8, i64?>?' --rows 10000 --verify --no-disk-cache | keep
# A lambda: the sum of each list's squares (its checked products fail in no row here).
rowjit eval 'list_sum(list_transform(l, x -> x * x))' --schema 'l:list<i16?>?' --rows 10000 --valid 0.9 --verify \
  --no-disk-cache | keep
# A query: the elements of the lists whose greatest element passes 100 (DuckDB's spelling i32[]).
rowjit eval 'sum(len(l)) where list_max(l) > 100' --schema 'l:i32[]' --rows 10000 --verify --no-disk-cache \
  | grep -vE '^(time|reference)'
