#!/usr/bin/env bash
# fuzz-smoke.sh runs every fuzz target in the module for a short time
# (default 5s each), seeded from each package's testdata/. A crash fails.
#
# Usage: scripts/fuzz-smoke.sh [DURATION]
set -euo pipefail
cd "$(dirname "$0")/.."
dur="${1:-5s}"
fail=0
log=$(mktemp)
trap 'rm -f "$log"' EXIT
# Packages whose tests declare fuzz targets.
dirs=$(grep -rl --include='*_test.go' '^func Fuzz' . | xargs -n1 dirname | sort -u)
for d in $dirs; do
	for t in $(grep -ho '^func Fuzz[A-Za-z0-9_]*' "$d"/*_test.go | sed 's/^func //' | sort -u); do
		echo "fuzz $d $t ($dur)"
		if ! go test -run '^$' -fuzz "^${t}\$" -fuzztime "$dur" "$d" >"$log" 2>&1; then
			cat "$log"
			fail=1
		fi
	done
done
exit $fail
