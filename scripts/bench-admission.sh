#!/usr/bin/env bash
# Limits under load: many clients mixing cheap tool calls (util_hash) and
# scans (keysweep_scan_text, charged, holding a slot) against warden serve
# with the hosted profile, on the embedded SQLite store or on N replicas
# over one PostgreSQL. Prints every outcome by code (the limits' own
# refusals apart from anything else), client latencies and the servers'
# decision times, then stops the servers and checks the store: no lease
# still held, ledger = monthly counters = audit.
#
#   scripts/bench-admission.sh [--store sqlite|postgres] [--replicas 2] [--clients 64] \
#       [--duration 60s] [--keys 16] [--scan-every 2]
#
# The request and scan windows are opened wide (10,000 per second), so the
# refusals left are the concurrency limits': 2 scans per credential and 16
# across the deployment (the defaults). PostgreSQL: set WARDEN_TEST_POSTGRES.
# KEEP=1 keeps the working directory (state, logs) for a look afterwards;
# WARDEN_BIN=path runs that warden binary instead of building this tree's
# (an earlier release, for a before-and-after run).
set -euo pipefail
store=sqlite replicas=2 clients=64 duration=60s keys=16 scanevery=2
while [ $# -gt 0 ]; do
	case "$1" in
	--store) store=$2; shift 2 ;;
	--replicas) replicas=$2; shift 2 ;;
	--clients) clients=$2; shift 2 ;;
	--duration) duration=$2; shift 2 ;;
	--keys) keys=$2; shift 2 ;;
	--scan-every) scanevery=$2; shift 2 ;;
	*) echo "unknown flag $1" >&2; exit 2 ;;
	esac
done
case "$store" in
sqlite) replicas=1; storeyaml="" ;;
postgres)
	: "${WARDEN_TEST_POSTGRES:?set WARDEN_TEST_POSTGRES to a PostgreSQL URL}"
	schema="warden_admbench_$$"
	storeyaml="store: {dsn: \"$WARDEN_TEST_POSTGRES\", schema: $schema}" ;;
*) echo "--store sqlite or postgres" >&2; exit 2 ;;
esac
cd "$(dirname "$0")/.."
work=$(mktemp -d)
cleanup() {
	kill $(jobs -p) 2>/dev/null || true
	wait 2>/dev/null || true
	if [ "$store" = postgres ]; then psql "$WARDEN_TEST_POSTGRES" -qc "DROP SCHEMA IF EXISTS $schema CASCADE" 2>/dev/null || true; fi
	if [ -n "${KEEP:-}" ]; then echo "kept $work"; else rm -rf "$work"; fi
}
trap cleanup EXIT
if [ -n "${WARDEN_BIN:-}" ]; then cp "$WARDEN_BIN" "$work/warden"; else go build -tags postgres,prometheus -o "$work/warden" ./cmd/warden; fi
go -C internal/loadtest build -o "$work/admitload" ./cmd/admitload
urls=() metrics=()
for i in $(seq 1 "$replicas"); do
	port=$((18840 + i))
	# A public URL beyond loopback makes the profile hosted: limits refuse
	# at once instead of queueing.
	cat >"$work/r$i.yaml" <<YAML
listen: 127.0.0.1:$port
public_url: https://warden.bench.invalid/mcp
state_dir: $work/state
log_level: warn
metrics: {listen: 127.0.0.1:$((19840 + i))}
$storeyaml
limits: {requests_per_window: 10000, request_window: 1s, scans_per_window: 10000, scan_window: 1s, monthly_scans: 100000000}
YAML
	urls+=("http://127.0.0.1:$port/mcp")
	metrics+=("http://127.0.0.1:$((19840 + i))/metrics")
done
list=
for k in $(seq 1 "$keys"); do
	key=$("$work/warden" credentials create --config "$work/r1.yaml" --tenant "t$((k % 2))" --json | sed 's/.*"key":"\([^"]*\)".*/\1/')
	list="$list,$key"
done
pids=()
for i in $(seq 1 "$replicas"); do
	"$work/warden" serve --config "$work/r$i.yaml" >"$work/r$i.log" 2>&1 &
	pids+=($!)
done
for i in $(seq 1 "$replicas"); do
	for _ in $(seq 1 200); do curl -sf "http://127.0.0.1:$((18840 + i))/readyz" >/dev/null && break; sleep 0.1; done
done
IFS=,
status=0
"$work/admitload" -url "${urls[*]}" -metrics "${metrics[*]}" -keys "${list#,}" -clients "$clients" \
	-duration "$duration" -scan-every "$scanevery" -label "$store, $replicas replica(s)" || status=$?
unset IFS
for p in "${pids[@]}"; do kill -TERM "$p"; done
for p in "${pids[@]}"; do wait "$p" || true; done
for i in $(seq 1 "$replicas"); do
	if grep -q 'level=\(WARN\|ERROR\)' "$work/r$i.log"; then
		echo "replica $i logged:"
		grep 'level=\(WARN\|ERROR\)' "$work/r$i.log" | sed 's/.*\(level=[A-Z]*\) msg="\([^"]*\)".*/\1 \2/' | sort | uniq -c | sort -rn
		grep -m1 'could not be evaluated' "$work/r$i.log" || true
	fi
done
if [ "$store" = sqlite ]; then
	"$work/admitload" -check-sqlite "$work/state/warden.db" || status=1
else
	"$work/admitload" -check-postgres "$WARDEN_TEST_POSTGRES" -schema "$schema" || status=1
fi
exit $status
