#!/usr/bin/env bash
# The Python quick start, with the module installed in $PREFIX.
set -euo pipefail
export PYTHONPATH="$PREFIX/lib/python3/dist-packages"
python3 examples/python/quickstart.py
