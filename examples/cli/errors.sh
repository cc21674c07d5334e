#!/usr/bin/env bash
# Parse and bind errors: the text they are about, a caret under the wrong part, a suggestion.
set -uo pipefail

rowjit eval 'sqroot(a) + b' --schema 'a:f64, b:i32' 2>&1 || echo "exit $?"
rowjit eval 'a + b' --schema 'a:f64, b:i32, t:timestamp(us, Europe/Pariss)' 2>&1 || echo "exit $?"
