#!/usr/bin/env bash
# fuzz-smoke.sh runs every fuzz target in the module for a short time
# (default 5s each), seeded from each package's testdata/. A crash fails.
#
# Usage: scripts/fuzz-smoke.sh [DURATION] [JOBS]
#
# JOBS targets run at once (default: the number of CPUs), each with one
# fuzzing worker: the same fuzzing throughput as one target with every
# worker, with the fixed cost of each run (building the coverage-
# instrumented binary, replaying the seed corpus) paid side by side.
set -euo pipefail
cd "$(dirname "$0")/.."
dur="${1:-5s}"
jobs="${2:-$(nproc 2>/dev/null || echo 2)}"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# one DIR TARGET runs one target and leaves its log in $work when it fails.
one() {
	local d="$1" t="$2" log
	log="$work/$(echo "$d-$t" | tr '/.' '__').log"
	echo "fuzz $d $t ($dur)"
	# internal/loadtest is a module of its own: its packages are tested
	# from its directory.
	local mod=. pkg="$d"
	case "$d" in ./internal/loadtest | ./internal/loadtest/*)
		mod=internal/loadtest pkg=".${d#./internal/loadtest}" ;;
	esac
	if go -C "$mod" test -run '^$' -fuzz "^${t}\$" -fuzztime "$dur" -parallel 1 "$pkg" >"$log" 2>&1; then
		rm -f "$log"
		return 0
	fi
	# On a loaded machine the fuzzing engine itself sometimes stops with
	# "context deadline exceeded" when -fuzztime ends, without any
	# failing input. That is not a finding: run the target once more. A
	# real crash writes a failing input and fails both times.
	if grep -q 'context deadline exceeded' "$log" && ! grep -q 'Failing input written' "$log"; then
		echo "  ($d $t: the fuzzing engine timed out without a failing input; running again)"
		if go -C "$mod" test -run '^$' -fuzz "^${t}\$" -fuzztime "$dur" -parallel 1 "$pkg" >"$log" 2>&1; then
			rm -f "$log"
			return 0
		fi
	fi
	return 1
}
export -f one
export dur work

# Packages whose tests declare fuzz targets: only the repository's own
# files (.cache/ may hold other modules' sources). Each package's test
# binary is built once first, so the parallel runs share the build cache.
dirs=$(git ls-files '*_test.go' | xargs grep -l '^func Fuzz' | xargs -n1 dirname | sed 's|^|./|' | sort -u)
root_dirs=$(echo "$dirs" | grep -v '^\./internal/loadtest\(/\|$\)' || true)
loadtest_dirs=$(echo "$dirs" | sed -n 's|^\./internal/loadtest\(/.*\)\{0,1\}$|.\1|p')
go test -count=1 -run '^$' $root_dirs >/dev/null
[ -z "$loadtest_dirs" ] || go -C internal/loadtest test -count=1 -run '^$' $loadtest_dirs >/dev/null
for d in $dirs; do
	for t in $(grep -ho '^func Fuzz[A-Za-z0-9_]*' "$d"/*_test.go | sed 's/^func //' | sort -u); do
		echo "$d $t"
	done
done >"$work/targets"
echo "$(wc -l <"$work/targets") fuzz targets, $jobs at a time, $dur each"
status=0
xargs -P "$jobs" -L 1 bash -c 'one "$0" "$1"' <"$work/targets" || status=1
for log in "$work"/*.log; do
	[ -e "$log" ] || continue
	echo "== $(basename "$log" .log)"
	cat "$log"
done
exit $status
