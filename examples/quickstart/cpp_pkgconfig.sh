#!/usr/bin/env bash
# The C++ quick start through pkg-config (rowjit.pc carries -std=c++20 and an rpath).
set -euo pipefail
export PKG_CONFIG_PATH="$PREFIX/lib/pkgconfig"
g++ examples/quickstart/quickstart.cc $(pkg-config --cflags --libs rowjit) -o quickstart-cpp
./quickstart-cpp
