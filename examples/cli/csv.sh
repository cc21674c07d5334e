#!/usr/bin/env bash
# rowjit eval over a CSV file: columns typed by the header (or inferred), result rows printed as
# a table (--print N) or written as CSV (--output FILE, - for stdout); a failing row exits 1.
set -euo pipefail
cd "$(dirname "$0")"  # prices.csv sits beside this script

rowjit eval 'price * qty' --input prices.csv --print 10
rowjit eval --expr item --expr 'price * qty as total' --expr day --filter 'qty >= 2' \
  --input prices.csv --output -
rowjit eval 'sum(price * qty)' --input prices.csv --print 1

# weight holds a value that is no number, so it is read as text: its cast fails in that row.
rowjit eval 'cast(weight, decimal(6,3))' --input prices.csv --print 10 2>&1 || echo "exit $?"
# The schema eval read (the summary's first line): header types, the other columns inferred.
rowjit eval qty --input prices.csv | grep '^input'
