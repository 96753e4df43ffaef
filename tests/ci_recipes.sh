#!/bin/sh
# ci_recipes.sh - the CI recipes of docs/ci/ (GitHub Actions, GitLab CI)
# parsed, their keys checked and their jobs played on fixture machines
# (tests/ci_recipes.py says how). Environment: RVD, OUT.
set -u
RVD=${RVD:-build/rocm-vla-doctor}
OUT=${OUT:-build/out}
D="$OUT/ci_recipes"
rm -rf "$D" && mkdir -p "$D"
exec python3 tests/ci_recipes.py "$RVD" "$(pwd)" "$D"
