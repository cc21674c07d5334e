#!/usr/bin/env bash
# The C quick start: the C API through pkg-config's rowjit-c.
set -euo pipefail
export PKG_CONFIG_PATH="$PREFIX/lib/pkgconfig"
cc -std=c99 examples/quickstart/quickstart.c $(pkg-config --cflags --libs rowjit-c) -o quickstart-c
./quickstart-c
