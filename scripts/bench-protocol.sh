#!/usr/bin/env bash
# bench-protocol.sh reproduces the protocol figures of
# docs/PERFORMANCE-protocol.md: Warden beside the official Go SDK (v1.8.0),
# serving the same echo tool, in the same run.
#
# Usage:
#   scripts/bench-protocol.sh [--count N] [--benchtime T] [--rounds R]
#                             [--duration D] [--warmup D] [--conns C]
#                             [--out DIR] [--skip-inproc] [--skip-loopback]
#
#   --count N        -count of the in-process benchmarks (default 10)
#   --benchtime T    -benchtime of the in-process benchmarks (default 1s)
#   --rounds R       interleaved loopback rounds per scenario (default 3)
#   --duration D     measured window of each loopback run (default 10s)
#   --warmup D       warm-up before each window (default 2s)
#   --conns C        keep-alive connections of the load client (default 64)
#   --out DIR        where results go (default <repo>/.cache/bench/<UTC time>)
#   --skip-inproc    skip the in-process benchmarks
#   --skip-loopback  skip the loopback runs
#
# 1. In process: go test -bench with -cpu 1 (GOMAXPROCS=1) and -benchmem
#    over ./mcp/ (BenchmarkToolsCall, ToolsList, Discover, ToolsCallLegacy,
#    each via=http and via=stdio, impl=warden and impl=gosdk) and ./tool/
#    (BenchmarkInvoke, ResultMarshal, ListJSON, New).
#    benchstat, if installed or installable, compares the two impls.
# 2. Over loopback: internal/loadtest/cmd/wardenserver and gosdkserver
#    pinned to core 0 with GOMAXPROCS=1; loadclient pinned to core 1 with
#    GOMAXPROCS=1, C connections, each scenario and impl in turn, R rounds.
#    The servers bind 127.0.0.1 only.
#
# Wall-clock figures depend on how busy the machine is; the benchmarks
# also report cpu-ns/op (process CPU time) and the load client the
# server's CPU time per request, which depend on it much less. The
# machine's description and load are saved beside the results.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
count=10
benchtime=1s
rounds=3
duration=10s
warmup=2s
conns=64
out=""
inproc=1
loopback=1

log() { printf 'bench-protocol: %s\n' "$*" >&2; }
die() {
	log "$*"
	exit 2
}
usage() { sed -n '2,/^set -euo/{/^set -euo/d;s/^# \{0,1\}//;p}' "${BASH_SOURCE[0]}"; }

need() { [[ $# -ge 2 && -n "$2" ]] || die "$1 needs a value"; }
while [[ $# -gt 0 ]]; do
	case "$1" in
	--count) need "$@"; count="$2"; shift 2 ;;
	--benchtime) need "$@"; benchtime="$2"; shift 2 ;;
	--rounds) need "$@"; rounds="$2"; shift 2 ;;
	--duration) need "$@"; duration="$2"; shift 2 ;;
	--warmup) need "$@"; warmup="$2"; shift 2 ;;
	--conns) need "$@"; conns="$2"; shift 2 ;;
	--out) need "$@"; out="$2"; shift 2 ;;
	--skip-inproc) inproc=0; shift ;;
	--skip-loopback) loopback=0; shift ;;
	-h | --help) usage; exit 0 ;;
	*) die "unknown argument $1 (see --help)" ;;
	esac
done

out="${out:-$root/.cache/bench/$(date -u +%Y%m%dT%H%M%SZ)}"
mkdir -p "$out"
cd "$root"

{
	echo "date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
	echo "commit: $(git rev-parse --short HEAD 2>/dev/null || echo unknown)"
	echo "go: $(go version)"
	echo "nproc: $(nproc)"
	echo "cpu: $(grep -m1 'model name' /proc/cpuinfo 2>/dev/null | cut -d: -f2- | sed 's/^ *//')"
	echo "load before: $(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null)"
} | tee "$out/machine.txt" >&2

find_benchstat() {
	local b
	b="$(command -v benchstat || true)"
	[[ -z "$b" && -x "$(go env GOPATH)/bin/benchstat" ]] && b="$(go env GOPATH)/bin/benchstat"
	if [[ -z "$b" ]]; then
		log "installing benchstat"
		if go install golang.org/x/perf/cmd/benchstat@latest >&2; then
			b="$(go env GOPATH)/bin/benchstat"
		fi
	fi
	printf '%s' "$b"
}

if [[ $inproc == 1 ]]; then
	log "in-process benchmarks: -count $count -benchtime $benchtime -cpu 1"
	# Only the benchmarks of internal/loadtest/peer/bench_test.go (the
	# benchmark module, which holds the SDK) and tool/bench_test.go; the
	# packages hold others (hostile bodies, address expressions).
	go -C internal/loadtest test -run '^$' -bench '^Benchmark(ToolsCall|ToolsList|Discover|ToolsCallLegacy)$' -benchmem -cpu 1 \
		-count "$count" -benchtime "$benchtime" ./peer/ | tee "$out/inproc-mcp.txt" >&2
	go test -run '^$' -bench '^Benchmark(Invoke|ResultMarshal|ListJSON|New)$' -benchmem -cpu 1 \
		-count "$count" -benchtime "$benchtime" ./tool/ | tee "$out/inproc-tool.txt" >&2
	bs="$(find_benchstat)"
	if [[ -n "$bs" ]]; then
		"$bs" -col /impl "$out/inproc-mcp.txt" | tee "$out/benchstat-mcp.txt"
		"$bs" "$out/inproc-tool.txt" | tee "$out/benchstat-tool.txt"
	else
		log "benchstat unavailable; raw results are in $out/inproc-*.txt"
	fi
fi

if [[ $loopback == 1 ]]; then
	bin="$out/bin"
	mkdir -p "$bin"
	go -C internal/loadtest build -o "$bin/" ./cmd/...
	pin_server=() pin_client=()
	if command -v taskset >/dev/null && [[ $(nproc) -ge 2 ]]; then
		pin_server=(taskset -c 0) pin_client=(taskset -c 1)
	else
		log "taskset or a second core is missing: server and client are not pinned"
	fi
	pids=()
	cleanup() {
		for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
	}
	trap cleanup EXIT
	start_server() { # name port -> pid in $server_pid
		GOMAXPROCS=1 "${pin_server[@]}" "$bin/$1" -addr "127.0.0.1:$2" >"$out/$1.log" 2>&1 &
		server_pid=$!
		pids+=("$server_pid")
		for _ in $(seq 50); do
			grep -q '^listening on' "$out/$1.log" && return 0
			sleep 0.1
		done
		die "$1 did not start: $(cat "$out/$1.log")"
	}
	port_w=$((20000 + RANDOM % 20000))
	port_g=$((port_w + 1))
	start_server wardenserver "$port_w"
	pid_w=$server_pid
	start_server gosdkserver "$port_g"
	pid_g=$server_pid
	results="$out/loopback.jsonl"
	: >"$results"
	for round in $(seq "$rounds"); do
		for scenario in tools_call tools_call_legacy server_discover tools_list; do
			path=/mcp
			[[ $scenario == tools_call_legacy ]] && path=/legacy
			for impl in warden gosdk; do
				if [[ $impl == warden ]]; then port=$port_w pid=$pid_w; else port=$port_g pid=$pid_g; fi
				log "round $round: $scenario $impl"
				GOMAXPROCS=1 "${pin_client[@]}" "$bin/loadclient" -json -label "$impl" -scenario "$scenario" \
					-url "http://127.0.0.1:$port$path" -conns "$conns" -warmup "$warmup" -duration "$duration" \
					-server-pid "$pid" | tee -a "$results" >&2
			done
		done
	done
	echo "load after: $(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null)" | tee -a "$out/machine.txt" >&2
	"$bin/loadclient" -summary "$results" | tee "$out/loopback.md"
fi
log "results in $out"
