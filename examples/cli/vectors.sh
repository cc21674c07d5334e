#!/usr/bin/env bash
# Vector columns: scores against a literal query and between columns, checked against the
# reference evaluator (--verify), inside a filter, and the vector kernel's code.
set -euo pipefail
keep() { grep -E '^(expr|type|strategy|verify)' | sed -E 's/, cached run .*//'; }

rowjit eval 'l2_distance(v, [0.5, -0.25, 1.0, 2.0])' --schema 'v:fixed_size_list<f32, 4>?' \
  --rows 10000 --valid 0.9 --verify --no-disk-cache | keep
rowjit eval 'cosine_similarity(v, w) > 0.5 and a > 0' \
  --schema 'v:fixed_size_list<f64, 100>, w:fixed_size_list<f64, 100>, a:i32' --rows 2000 --verify --no-disk-cache | keep
rowjit eval 'dot(q, [1, -2, 3])' --schema 'q:fixed_size_list<i8, 3>' --rows 4 --print 4 --no-disk-cache
# The three rows nearest the origin among those where a > 0.
rowjit eval 'bottom_k(l2_distance(v, [0, 0, 0, 0]), 3) where a > 0' --schema 'v:fixed_size_list<f32, 4>?, a:i32' \
  --rows 1000 --verify --no-disk-cache | grep -E '^(select|jit|  [0-9]|verify)'
# The kernel of one vector function: a loop over rows, each row's elements 32 at a time.
rowjit ir 'l2_squared(v, w)' --schema 'v:fixed_size_list<f32, 768>, w:fixed_size_list<f32, 768>' --stage opt \
  | grep -E 'fsub <|fmul <|fadd <32'
