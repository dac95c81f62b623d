#!/usr/bin/env bash
# fuzz-smoke.sh runs every fuzz target in the module for a short time
# (default 5s each), seeded from each package's testdata/. A crash fails.
#
# Usage: scripts/fuzz-smoke.sh [DURATION]
set -euo pipefail
cd "$(dirname "$0")/.."
dur="${1:-5s}"
fail=0
for pkg in $(go list ./...); do
	targets=$(go test -list '^Fuzz' "$pkg" 2>/dev/null | grep '^Fuzz' || true)
	for t in $targets; do
		echo "fuzz $pkg $t ($dur)"
		if ! go test -run '^$' -fuzz "^${t}\$" -fuzztime "$dur" "$pkg" >/tmp/fuzz-smoke.$$ 2>&1; then
			cat /tmp/fuzz-smoke.$$
			fail=1
		fi
	done
done
rm -f /tmp/fuzz-smoke.$$
exit $fail
