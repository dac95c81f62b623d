#!/usr/bin/env bash
# Compare the KeySweep engine with peer scanners on a generated corpus with
# planted secrets and decoys.
#
#   GITLEAKS=/path/to/gitleaks BETTERLEAKS=/path/to/betterleaks scripts/bench-secrets.sh
#
# The peers are binaries you supply; a peer whose variable is unset is
# skipped, and with none the script measures KeySweep alone. Both take
# gitleaks' command line (dir, -f json -r FILE).
#
# Needs Go and GNU time (/usr/bin/time, Debian package "time").
#
# Environment: GITLEAKS, BETTERLEAKS (peer binaries), SIZE (default 100MB),
# SEED (default 1), RUNS (default 3: each tool runs that many times, in
# turn, and its row shows the median run by CPU time), KEEP=1 keeps the
# temporary directory. Reports, per tool: wall time, user+sys CPU seconds,
# MB per CPU-second, wall MB/s, peak RSS, and recall / decoys flagged /
# findings on unplanted lines against the corpus ground truth.
set -euo pipefail

if [ $# -gt 0 ]; then
	echo "usage: [GITLEAKS=BIN] [BETTERLEAKS=BIN] $0" >&2
	exit 2
fi
peers=()
for p in gitleaks betterleaks; do
	var=${p^^}
	bin=${!var:-}
	if [ -z "$bin" ]; then
		echo "${p^^} not set: $p skipped" >&2
		continue
	fi
	if [ ! -x "$bin" ]; then
		echo "${p^^}=$bin is not an executable" >&2
		exit 2
	fi
	peers+=("$p")
done
size=${SIZE:-100MB}
seed=${SEED:-1}
runs=${RUNS:-3}

root=$(cd "$(dirname "$0")/.." && pwd)
tmp=$(mktemp -d)
if [ "${KEEP:-}" != 1 ]; then
	trap 'rm -rf "$tmp"' EXIT
else
	echo "keeping $tmp" >&2
fi

cd "$root"
go build -o "$tmp/corpusgen" ./internal/corpusgen
go build -o "$tmp/scandir" ./secretscan/internal/scandir
"$tmp/corpusgen" -out "$tmp/corpus" -size "$size" -seed "$seed" >&2
bytes=$(du -sb "$tmp/corpus" | cut -f1)

# run NAME CMD... runs CMD once under /usr/bin/time, appending
# "wall user sys rss" to $tmp/NAME.times.
run() {
	local name=$1
	shift
	/usr/bin/time -f "%e %U %S %M" -o "$tmp/$name.time" "$@" >"$tmp/$name.out" 2>"$tmp/$name.err" || {
		echo "$name failed:" >&2
		cat "$tmp/$name.err" >&2
		return 1
	}
	cat "$tmp/$name.time" >>"$tmp/$name.times"
}

# row NAME prints the table row of NAME's median run by CPU time (the
# largest RSS of all runs).
row() {
	sort -n -k2 "$tmp/$1.times" | awk -v n="$1" -v b="$bytes" '{ c[NR] = $2 + $3; w[NR] = $1; if ($4 > r) r = $4 }
	END {
		m = int((NR + 1) / 2); cpu = c[m]; wall = w[m]
		if (cpu == 0) cpu = 0.01; if (wall == 0) wall = 0.01
		printf "| %s | %.2f | %.2f | %.1f | %.1f | %.0f |\n", n, wall, cpu, b / 1e6 / cpu, b / 1e6 / wall, r / 1024
	}'
}

echo
echo "corpus: $bytes bytes, seed $seed; $runs runs per tool, median by CPU time; load average: $(cut -d' ' -f1-3 /proc/loadavg)"
echo
echo "| tool | wall s | CPU s (user+sys) | MB per CPU-s | MB/s wall | max RSS MiB |"
echo "|---|---|---|---|---|---|"
# The tools take turns, so that a change in the machine's load falls on
# all of them.
for _ in $(seq "$runs"); do
	run keysweep "$tmp/scandir" "$tmp/corpus"
	cp "$tmp/keysweep.out" "$tmp/keysweep.jsonl"
	for p in "${peers[@]}"; do
		bin=${p^^}
		run "$p" "${!bin}" dir "$tmp/corpus" --no-banner --exit-code 0 --log-level warn -f json -r "$tmp/$p.json"
	done
done
row keysweep
for p in "${peers[@]}"; do
	row "$p"
done
echo
evaluate() { # evaluate NAME FORMAT FINDINGS
	"$tmp/corpusgen" eval -truth "$tmp/corpus.truth.jsonl" -format "$2" -root "$tmp/corpus" -name "$1" "$3" >"$tmp/$1.eval"
	if [ -n "${VERBOSE:-}" ]; then cat "$tmp/$1.eval"; else head -n 1 "$tmp/$1.eval"; fi
}
evaluate keysweep keysweep "$tmp/keysweep.jsonl"
for p in "${peers[@]}"; do
	evaluate "$p" gitleaks "$tmp/$p.json"
done
