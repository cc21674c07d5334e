#!/usr/bin/env bash
# rowjit eval: random columns, the JIT checked against the reference evaluator (--verify).
set -euo pipefail
# Keep the lines that do not change from run to run (timings and the kernel's origin do).
keep() { grep -E '^(expr|type|aggregate|filter|strategy|verify|jit +error)' | sed -E 's/, cached run .*//'; }
# A pipeline's status is keep's: rows of `a * 1000000` overflow, so that rowjit exits 1 there.
set +o pipefail

rowjit eval 'a * b + c' --schema 'a:i32?, b:i32?, c:i32' --rows 10000 --valid 0.5 --verify --no-disk-cache | keep
rowjit eval 'a * 1000000' --schema 'a:i32?' --rows 10000 --valid 0.5 --verify --no-disk-cache | keep
rowjit eval 'sum(a * b)' --schema 'a:i32?, b:i32?' --rows 10000 --valid 0.5 --verify --no-disk-cache | keep
rowjit eval --expr 'if(b != 0, a / b, 0)' --expr 'a + 1' --schema 'a:i8, b:i8' \
  --filter 'a > 0 and a < 100' --rows 5000 --verify --no-disk-cache | keep
rowjit eval "lower(s) = 'ab'" --schema 's:utf8?' --rows 10000 --valid 0.5 --verify --no-disk-cache | keep

# Exit status: 0 when every row was computed, 1 when a row failed (or --verify differs), 2 on a
# usage, parse or input error.
rowjit eval 'a * 1000000' --schema 'a:i32?' --rows 10000 --no-disk-cache > /dev/null || echo "exit $?"
rowjit eval 'a +' --schema 'a:i32?' 2> /dev/null || echo "exit $?"
