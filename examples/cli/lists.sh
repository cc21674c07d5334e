#!/usr/bin/env bash
# List and map columns: functions of a list's elements and a map's values, checked against the
# reference evaluator (--verify), inside filters and folds.
set -euo pipefail
keep() { grep -E '^(expr|type|strategy|verify)' | sed -E 's/, cached run .*//'; }

rowjit eval 'list_sum(l) + len(l)' --schema 'l:list<i32?>?' --rows 10000 --valid 0.9 --verify --no-disk-cache | keep
rowjit eval 'l[1] > 0 and list_contains(tags, 3)' --schema 'l:list<f64>, tags:large_list<i16?>?' \
  --rows 10000 --valid 0.9 --verify --no-disk-cache | keep
rowjit eval "coalesce(m['ab'], 0) + len(m)" --schema 'm:map<utf8, i64?>?' --rows 10000 --verify --no-disk-cache | keep
rowjit eval 'sum(len(l)) where list_max(l) > 100' --schema 'l:i32[]' --rows 10000 --verify --no-disk-cache \
  | grep -E '^(select|sum|verify)'
