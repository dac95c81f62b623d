#!/usr/bin/env bash
# Two warden serve replicas on one PostgreSQL, loaded at once: tools/call of
# keysweep_scan_text with an API key, through authentication (the registry
# cache), the gates, admission and an audit record written to PostgreSQL
# per call. Prints each replica's figures; the sum is the deployment's.
#
#   WARDEN_TEST_POSTGRES=postgres://postgres@127.0.0.1:5432/test?sslmode=disable \
#     scripts/bench-replicas.sh [--conns 32] [--duration 10s] [--replicas 2] [--scenario keysweep_call|warden_list]
set -euo pipefail
conns=32 duration=10s replicas=2 scenario=keysweep_call
while [ $# -gt 0 ]; do
	case "$1" in
	--conns) conns=$2; shift 2 ;;
	--duration) duration=$2; shift 2 ;;
	--replicas) replicas=$2; shift 2 ;;
	--scenario) scenario=$2; shift 2 ;;
	*) echo "unknown flag $1" >&2; exit 2 ;;
	esac
done
: "${WARDEN_TEST_POSTGRES:?set WARDEN_TEST_POSTGRES to a PostgreSQL URL}"
cd "$(dirname "$0")/.."
work=$(mktemp -d)
trap 'kill $(jobs -p) 2>/dev/null; wait 2>/dev/null; rm -rf "$work"' EXIT
go build -tags postgres -o "$work/warden" ./cmd/warden
go -C internal/loadtest build -o "$work/loadclient" ./cmd/loadclient
schema="warden_bench_$$"
pids=()
for i in $(seq 1 "$replicas"); do
	port=$((18830 + i))
	cat >"$work/r$i.yaml" <<YAML
listen: 127.0.0.1:$port
public_url: http://127.0.0.1:18830/mcp
state_dir: $work/state$i
log_level: error
store: {dsn: "$WARDEN_TEST_POSTGRES", schema: $schema}
limits: {max_concurrent_scans: 256, scanner_capacity: 1024}
YAML
done
key=$("$work/warden" credentials create --config "$work/r1.yaml" --tenant bench --json | sed 's/.*"key":"\([^"]*\)".*/\1/')
for i in $(seq 1 "$replicas"); do
	"$work/warden" serve --config "$work/r$i.yaml" >/dev/null 2>&1 &
	pids+=($!)
done
for i in $(seq 1 "$replicas"); do
	for _ in $(seq 1 100); do curl -sf "http://127.0.0.1:$((18830 + i))/readyz" >/dev/null && break; sleep 0.1; done
done
# keysweep_call: identical scans of one credential run one at a time
# (duplicate_scan), so each connection scans a text of its own, through a
# client of its own.
clients=()
for i in $(seq 1 "$replicas"); do
	if [ "$scenario" = keysweep_call ]; then
		for c in $(seq 1 "$conns"); do
			"$work/loadclient" -url "http://127.0.0.1:$((18830 + i))/mcp" -scenario keysweep_call -bearer "$key" \
				-text "text $i/$c" -conns 1 -duration "$duration" -json -label "replica $i" >>"$work/r$i.json" &
			clients+=($!)
		done
	else
		"$work/loadclient" -url "http://127.0.0.1:$((18830 + i))/mcp" -scenario "$scenario" -bearer "$key" \
			-conns "$conns" -duration "$duration" -server-pid "${pids[$((i - 1))]}" -label "replica $i" &
		clients+=($!)
	fi
done
wait "${clients[@]}" 2>/dev/null || true
if [ "$scenario" = keysweep_call ]; then
	for i in $(seq 1 "$replicas"); do
		awk -v r="$i" -F'"perSecond":' '{split($2, a, ","); s += a[1]} END {printf "replica %s keysweep_call: %.0f req/s over %d clients\n", r, s, NR}' "$work/r$i.json"
	done
fi
psql "$WARDEN_TEST_POSTGRES" -qc "DROP SCHEMA IF EXISTS $schema CASCADE" 2>/dev/null || true
