#!/usr/bin/env bash
# rowjit eval over aggregate queries: several aggregates in one pass, per group (GROUP BY), over
# the rows WHERE keeps, each aggregate narrowed by its own FILTER (WHERE ...).
set -euo pipefail
cd "$(dirname "$0")"  # sales.csv sits beside this script

rowjit eval 'sum(qty), avg(price), count(*) filter (where returned) group by region' \
  --input sales.csv --print 10
rowjit eval 'sum(price * qty), count(*) group by region where not returned' --input sales.csv --output -
# --verify checks Engine::Query against the reference evaluator value for value (on stderr).
rowjit eval 'min(item), max(price) group by region' --input sales.csv --verify --print 10 2>&1

# A query that does not bind shows its text with a caret under the part that is wrong.
rowjit eval 'sum(qty), avg(prise) group by region' --input sales.csv --print 10 2>&1 || echo "exit $?"
