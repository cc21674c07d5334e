#!/usr/bin/env bash
# The C++ quick start through the CMake package of rowjit installed in $PREFIX.
set -euo pipefail
cmake -S examples/quickstart -B quickstart-build -DCMAKE_PREFIX_PATH="$PREFIX" > /dev/null
cmake --build quickstart-build > /dev/null
quickstart-build/quickstart
