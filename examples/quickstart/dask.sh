#!/usr/bin/env bash
# The Dask quick start: a complete script that starts a two-process local cluster.
set -euo pipefail
export PYTHONPATH="$PREFIX/lib/python3/dist-packages"
python3 examples/python/dask_cluster.py
