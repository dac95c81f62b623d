// observatory-scan.mjs runs the MDN HTTP Observatory's own scan(), unmodified,
// on fixture host names that this process resolves to one loopback address.
//
// Usage: node observatory-scan.mjs OBSERVATORY_PACKAGE_DIR LOOPBACK_IP HOST...
// Prints one JSON object per line: {host, score, grade, tests: {name:
// {result, modifier}}} or {host, error}. The private CA of the fixtures is
// trusted through NODE_EXTRA_CA_CERTS, set by the caller.
//
// Names are pointed at loopback with a DNS lookup hook in this process: the
// Observatory's HTTP client (axios over Node's http and https agents) looks
// names up with dns.lookup, which is replaced here for the fixture names
// given on the command line (and the other names of their domains) only.
// Nothing of the Observatory is changed.
import dns from "node:dns";
import path from "node:path";
import { pathToFileURL } from "node:url";

const [pkgDir, ip, ...hosts] = process.argv.slice(2);
if (!pkgDir || !ip || hosts.length === 0) {
  console.error("usage: observatory-scan.mjs PKG_DIR IP HOST...");
  process.exit(2);
}

// The fixture domains: every name's last two labels, with a leading dot.
const fixtureDomains = [...new Set(hosts.map((h) => "." + h.toLowerCase().split(".").slice(-2).join(".")))];
const realLookup = dns.lookup;
dns.lookup = function (hostname, options, callback) {
  if (typeof options === "function") {
    callback = options;
    options = {};
  }
  if (typeof options === "number") options = { family: options };
  if (typeof hostname === "string" && fixtureDomains.some((d) => hostname.toLowerCase().endsWith(d))) {
    if (options && options.all) {
      return process.nextTick(callback, null, [{ address: ip, family: 4 }]);
    }
    return process.nextTick(callback, null, ip, 4);
  }
  return realLookup.call(dns, hostname, options, callback);
};

const { scan } = await import(pathToFileURL(path.join(pkgDir, "src", "index.js")).href);

for (const host of hosts) {
  try {
    const r = await scan(host);
    const tests = {};
    for (const [name, t] of Object.entries(r.tests)) {
      tests[name] = { result: t.result, modifier: t.scoreModifier ?? 0 };
    }
    console.log(JSON.stringify({ host, score: r.scan.score, grade: r.scan.grade, tests }));
  } catch (e) {
    console.log(JSON.stringify({ host, error: String(e && e.message ? e.message : e) }));
  }
}
