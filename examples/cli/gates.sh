#!/usr/bin/env bash
# IR gates as a CI step: kernels checked for a named target (codegen only); a broken rule exits 1.
set -euo pipefail
rules() { grep -E '^(kernel|rule|passed|failed)'; }

rowjit check 'checked_mul(a, b) + c' --schema 'a:i16?, b:i16, c:i16' --target x86-64-v3 | rules
rowjit check 'sum(a * b)' --schema 'a:i32?, b:i32?' --target x86-64-v4 | rules
rowjit check 'a / b' --schema 'a:i64, b:i64' --target x86-64-v3 | rules   # a listed exception
rowjit check 'sum(qty * price), count(*) group by flag where qty > 0' --schema 'qty:i32, price:i64, flag:u8' | rules

if rowjit check 'a * b' --schema 'a:u8?, b:u8?' --policy branch-skip --target aarch64 > /dev/null; then
  echo "the u8 multiply keeps its vector shape on aarch64"
fi
