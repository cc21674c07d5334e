#!/usr/bin/env bash
# Looking inside one kernel: its vector shape (what the golden tests pin) and LLVM's remarks.
set -euo pipefail
rowjit ir 'a * b' --schema 'a:u8, b:u8' --target x86-64-v3 --stage shape
rowjit explain 'a / b' --schema 'a:i64, b:i64' --target aarch64
