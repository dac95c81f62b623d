#!/usr/bin/env bash
# client-interop.sh proves Warden against real non-Go MCP clients, over HTTP
# and over stdio:
#
#   - the official TypeScript client (@modelcontextprotocol/client, v2),
#     pinned to the 2026-07-28 revision and in its default legacy mode
#     (scripts/clients/ts-client.mjs): discover or initialize, tools/list,
#     tools/call with progress, human approval of a confirm tool through the
#     client's elicitation handler (decline, accept, remembered), an
#     invalid-arguments error result and an
#     unknown-tool protocol error; and, against the conformance fixture
#     server (examples/conformance, HTTP), an elicitation round through
#     the client's own handler, progress and a tool error;
#   - the MCP Inspector CLI (@modelcontextprotocol/inspector) in both
#     protocol eras (--protocol-era modern and legacy, and auto, which must
#     settle on modern): tools/list, a
#     tools/call, and a call with a bad argument, checked by
#     scripts/clients/check-inspector.mjs; tools/list runs with --strict,
#     and any schema portability finding it reports, warnings included,
#     fails the check;
#   - every input and output schema of every tool of the build (warden
#     tools --json; the lean edition's tools are a subset of the full
#     edition's, built from the same definitions) through the TypeScript
#     client's own JSON Schema validators (Ajv, Node's default, and
#     CfWorker), its Ajv 2020-12 engine in strict mode, and the portable
#     subset every client in docs/clients.md accepts
#     (scripts/clients/check-schemas.mjs);
#   - the TypeScript client's own OAuth provider against `warden serve`
#     with no token (scripts/clients/oauth-client.mjs): discovery,
#     dynamic registration, authorization code with PKCE, the consent page
#     opened and its Allow button clicked in headless Chromium
#     (puppeteer-core driving Debian's /usr/bin/chromium), a tool call,
#     refresh with rotation and reuse detection, and revocation.
#
# It builds warden and the fixture server, starts `warden serve` (with a
# private state directory, using the development token it prints; the TS
# client also checks that a client without it is refused) and the fixtures
# on free loopback ports, and launches `warden stdio` through each client. Every check is printed; the
# script exits 1 if any fails, 2 on a setup problem.
#
# Usage: scripts/client-interop.sh [--install-only]
#
#   --install-only  install Node.js 22 and the pinned clients, then exit.
#
# Environment:
#   WARDEN_CACHE_DIR     cache root (default: <repo>/.cache); the clients are
#                        installed into <cache>/clients, Node 22 by
#                        scripts/install-node.sh
#   WARDEN_INTEROP_TOOL  tool to call (default: keysweep_scan_text; it must
#                        take a "text" argument and answer status and
#                        text_length)
#
# Idempotent: the pinned client versions are installed once; later runs
# reuse them without touching the network. Nothing but the npm registry is
# ever contacted, and servers bind 127.0.0.1 only.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cache="${WARDEN_CACHE_DIR:-$root/.cache}"
clients="$cache/clients"
tool="${WARDEN_INTEROP_TOOL:-keysweep_scan_text}"
export WARDEN_INTEROP_TOOL="$tool"

# Exact pins: both packages are pre-1.0 in their 2026-07-28 support, and a
# moving client would make failures unreproducible.
client_pkg="@modelcontextprotocol/client"
client_version="2.4.0"
inspector_pkg="@modelcontextprotocol/inspector"
inspector_version="2.12.0"
# puppeteer-core drives the system Chromium; it downloads no browser.
puppeteer_pkg="puppeteer-core"
puppeteer_version="25.16.0"
chromium="${CHROMIUM:-/usr/bin/chromium}"
export CHROMIUM="$chromium"

log() { printf 'client-interop: %s\n' "$*" >&2; }
die() {
	log "$*"
	exit 2
}

# --- Node 22 and the pinned clients ---------------------------------------

node="$("$root/scripts/install-node.sh")" || die "could not install Node.js 22"
node_dir="$(dirname "$node")"
export PATH="$node_dir:$PATH"
command -v npm >/dev/null 2>&1 || die "npm is required (apt-get install npm)"

# installed_version prints the version of an installed package, or nothing.
installed_version() {
	local pj="$clients/node_modules/$1/package.json"
	[[ -f "$pj" ]] || return 0
	"$node" -e 'process.stdout.write(require(process.argv[1]).version)' "$pj" 2>/dev/null || true
}

if [[ "$(installed_version "$client_pkg")" != "$client_version" ||
	"$(installed_version "$inspector_pkg")" != "$inspector_version" ||
	"$(installed_version "$puppeteer_pkg")" != "$puppeteer_version" ]]; then
	log "installing $client_pkg@$client_version, $inspector_pkg@$inspector_version and $puppeteer_pkg@$puppeteer_version into $clients"
	mkdir -p "$clients"
	[[ -f "$clients/package.json" ]] || printf '{"private":true}\n' >"$clients/package.json"
	INSPECTOR_SKIP_CLIENT_INSTALL=1 npm install --prefix "$clients" --no-audit --no-fund \
		--loglevel=error --save-exact \
		"$client_pkg@$client_version" "$inspector_pkg@$inspector_version" "$puppeteer_pkg@$puppeteer_version" >&2 ||
		die "npm install failed"
fi
if [[ "${1:-}" == "--install-only" ]]; then
	log "installed; --install-only: not running the clients"
	exit 0
fi
inspector="$clients/node_modules/.bin/inspector"
[[ -x "$inspector" ]] || die "the inspector binary is missing at $inspector"

# The scripts resolve the client package from the directory they run in.
cp "$root/scripts/clients/ts-client.mjs" "$root/scripts/clients/check-inspector.mjs" "$root/scripts/clients/oauth-client.mjs" \
	"$root/scripts/clients/check-schemas.mjs" "$clients/"

# The Inspector keeps its catalog and client config under $HOME: give it a
# private one so runs neither read nor write the user's. Go keeps its
# module and build caches (and its settings) under $HOME by default: pin
# them to the user's first, or every run would download every module and
# build everything again in the private home.
export GOMODCACHE="$(go env GOMODCACHE)" GOCACHE="$(go env GOCACHE)" GOENV="$(go env GOENV)"
export HOME="$clients/home"
mkdir -p "$HOME"

# --- warden -----------------------------------------------------------------

bin="$clients/bin/warden"
log "building warden"
(cd "$root" && go build -o "$bin" ./cmd/warden) || die "go build ./cmd/warden failed"

fixtures_bin="$clients/bin/conformance-fixtures"
log "building the conformance fixture server"
(cd "$root" && go build -o "$fixtures_bin" ./examples/conformance) || die "go build ./examples/conformance failed"

work="$(mktemp -d)"
pids=()

# Both servers run with a state directory of their own and limits far
# above what this run needs: the defaults (10 scans a minute per
# credential) would refuse the later calls with rate_limit_exceeded.
cat >"$work/warden.yaml" <<'YAML'
tools:
  unsafe: true
limits:
  requests_per_window: 10000
  scans_per_window: 10000
  monthly_scans: 100000
  max_concurrent_scans: 16
YAML
# Clients launch warden stdio through this wrapper, which adds the
# configuration and a state directory to the arguments they pass.
stdio_bin="$work/warden-stdio"
cat >"$stdio_bin" <<SH
#!/bin/sh
exec "$bin" "\$@" --config "$work/warden.yaml" --state-dir "$work/state-stdio"
SH
chmod +x "$stdio_bin"
cleanup() {
	local p
	for p in "${pids[@]}"; do
		if kill -0 "$p" 2>/dev/null; then
			kill "$p" 2>/dev/null || true
			wait "$p" 2>/dev/null || true
		fi
	done
	rm -rf "$work"
}
trap cleanup EXIT

# start <name> <file the URL is printed to> <sed pattern> <command...>
# starts a server on 127.0.0.1:0 and sets started_url to the URL it
# announces (not run in a subshell, so that cleanup knows the pid).
started_url=""
start() {
	local name="$1" announce="$2" pattern="$3"
	shift 3
	: >"$work/$name.out"
	: >"$work/$name.err"
	"$@" >"$work/$name.out" 2>"$work/$name.err" &
	local pid=$!
	pids+=("$pid")
	local u=""
	for _ in $(seq 1 100); do
		u="$(sed -n "$pattern" "$work/$name.$announce" | head -n 1 || true)"
		[[ -n "$u" ]] && break
		kill -0 "$pid" 2>/dev/null || break
		sleep 0.1
	done
	if [[ -z "$u" ]]; then
		cat "$work/$name.err" >&2
		die "$name did not start"
	fi
	started_url="$u"
}

# warden serve keeps its keys in a private state directory, requires a
# bearer token and prints a development token for the local key.
start serve out 's/^Warden is listening on \(http:[^ ]*\) .*/\1/p' \
	"$bin" serve --listen 127.0.0.1:0 --log-level warn --state-dir "$work/state" --config "$work/warden.yaml"
url="$started_url"
server_pid="${pids[0]}"
token=""
for _ in $(seq 1 50); do
	token="$(sed -n '/^Development token/{n;p;q}' "$work/serve.out" | tr -d '[:space:]' || true)"
	[[ -n "$token" ]] && break
	sleep 0.1
done
[[ -n "$token" ]] || die "warden serve printed no development token"
export WARDEN_TOKEN="$token"
log "warden serve is at $url"
start fixtures err 's/^conformance fixtures on \(http:[^ ]*\)$/\1/p' \
	"$fixtures_bin" --listen 127.0.0.1:0
fixtures_url="$started_url"
log "the fixture server is at $fixtures_url"

# --- the checks -------------------------------------------------------------

failed=()
pass() { printf 'client-interop: ok   %s\n' "$1"; }
fail() {
	printf 'client-interop: FAIL %s\n' "$1"
	failed+=("$1")
}

# ts_client <http|stdio|fixtures> <target> <modern|legacy>
ts_client() {
	local name="ts-client $1 ($3)"
	if (cd "$clients" && timeout 120 "$node" ts-client.mjs "$1" "$2" "$3"); then
		pass "$name"
	else
		fail "$name"
	fi
}

# inspect <label> <era> <check> <check-args...> -- <inspector args...>
# runs the Inspector CLI, expects exit code 0 (5 for a tool error result) and
# checks its JSON output.
inspect() {
	local label="$1" era="$2" check="$3"
	shift 3
	local check_args=()
	while [[ "$1" != "--" ]]; do
		check_args+=("$1")
		shift
	done
	shift
	# auto probes server/discover first, so against Warden it must end up
	# on the modern revision.
	local want_era="$era"
	[[ "$era" == auto ]] && want_era=modern
	local want_rc=0
	[[ "$check" == call-error ]] && want_rc=5 # the CLI's exit code for isError results
	local name="inspector $label ($era) $check"
	local rc=0
	timeout 120 "$inspector" --cli --protocol-era "$era" --format json -q "$@" \
		>"$work/out.json" 2>"$work/err.txt" || rc=$?
	if [[ "$rc" != "$want_rc" ]]; then
		fail "$name: exit code $rc, want $want_rc"
		sed 's/^/  /' "$work/err.txt" | head -n 20
		return
	fi
	if (cd "$clients" && "$node" check-inspector.mjs "$check" "$want_era" "$tool" "${check_args[@]}" <"$work/out.json"); then
		pass "$name"
	else
		fail "$name"
	fi
}

# Every published schema, before any client lists it.
if "$bin" tools --json >"$work/tools.json" 2>"$work/tools.err" &&
	(cd "$clients" && "$node" check-schemas.mjs schemas <"$work/tools.json"); then
	pass "schemas: every tool's input and output schema in the TypeScript SDK's validators, strict, portable"
else
	sed 's/^/  /' "$work/tools.err" | head -n 20
	fail "schemas: every tool's input and output schema in the TypeScript SDK's validators, strict, portable"
fi

text="interop: no secrets in this text"
for era in modern legacy; do
	ts_client http "$url" "$era"
	ts_client stdio "$stdio_bin" "$era"
	ts_client fixtures "$fixtures_url" "$era"
done
for era in modern legacy auto; do
	http=("$url" --transport http --header "Authorization: Bearer $token")
	stdio=("$stdio_bin" stdio)
	# --strict: exit 6 if any tool schema has an error-severity portability
	# problem; check-inspector.mjs fails on warnings too.
	inspect http "$era" list -- "${http[@]}" --method tools/list --strict
	inspect http "$era" call "${#text}" -- "${http[@]}" --method tools/call --tool-name "$tool" --tool-arg "text=$text"
	inspect http "$era" call-error -- "${http[@]}" --method tools/call --tool-name "$tool" --tool-arg "no_such_argument=1"
	# The command to spawn follows "--": --tool-arg takes every word up to
	# the next option.
	inspect stdio "$era" list -- --method tools/list --strict -- "${stdio[@]}"
	inspect stdio "$era" call "${#text}" -- --method tools/call --tool-name "$tool" --tool-arg "text=$text" -- "${stdio[@]}"
	inspect stdio "$era" call-error -- --method tools/call --tool-name "$tool" --tool-arg "no_such_argument=1" -- "${stdio[@]}"
done

# A plugin's tool through a real client: the scaffold `warden plugin new`
# writes (Python: no build step), loaded with --plugins by warden stdio,
# listed (strict) and called by the Inspector on both eras.
"$bin" plugin new interop --lang python --dir "$work/plugins/interop" >/dev/null
plugin_stdio=("$stdio_bin" stdio --plugins "$work/plugins")
for era in modern legacy; do
	tool=interop_echo inspect "plugin stdio" "$era" list -- --method tools/list --strict -- "${plugin_stdio[@]}"
	tool=interop_echo inspect "plugin stdio" "$era" echo "$text" -- --method tools/call --tool-name interop_echo --tool-arg "text=$text" -- "${plugin_stdio[@]}"
done

# Connecting without a token: the client's OAuth provider and a click on
# the consent page in headless Chromium.
if [[ ! -x "$chromium" ]]; then
	fail "oauth-client: no Chromium at $chromium (apt-get install chromium)"
elif (cd "$clients" && timeout 180 "$node" oauth-client.mjs "$url"); then
	pass "oauth-client (token-free connection through the consent page)"
else
	fail "oauth-client (token-free connection through the consent page)"
fi

if ! kill -0 "$server_pid" 2>/dev/null; then
	fail "warden serve exited during the run"
	sed 's/^/  /' "$work/serve.err" | tail -n 20
fi

if [[ ${#failed[@]} -gt 0 ]]; then
	log "${#failed[@]} check(s) failed:"
	for f in "${failed[@]}"; do log "  $f"; done
	exit 1
fi
log "all client checks passed"
