#!/bin/sh
# man-checks.sh (make man) - the CHECKS list of man/rocm-vla-doctor.1 from
# checks.yaml: the lines from ".\" BEGIN CHECKS" to ".\" END CHECKS" are
# replaced by what `rocm-vla-doctor list man` prints for the checks.yaml of
# the tree. tests/docs.sh fails when the committed list differs.
# Environment: RVD (the binary, default build/rocm-vla-doctor).
set -eu
RVD=${RVD:-build/rocm-vla-doctor}
page=man/rocm-vla-doctor.1
gen=$(mktemp)
new=$(mktemp)
trap 'rm -f "$gen" "$new"' EXIT
"$RVD" list man --checks checks.yaml >"$gen"
if ! grep -q '^\.\\" BEGIN CHECKS' "$page" || ! grep -q '^\.\\" END CHECKS' "$page"; then
    echo "man-checks.sh: $page has no BEGIN CHECKS and END CHECKS lines" >&2
    exit 1
fi
awk -v gen="$gen" '
/^\.\\" BEGIN CHECKS/ { while ((getline l < gen) > 0) print l; skip = 1 }
!skip { print }
/^\.\\" END CHECKS/ { skip = 0 }' "$page" >"$new"
if cmp -s "$new" "$page"; then
    echo "$page: CHECKS list up to date"
else
    cat "$new" >"$page"
    echo "$page: CHECKS list rewritten from checks.yaml (review with git diff)"
fi
