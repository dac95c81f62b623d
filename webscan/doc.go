// Package webscan checks the security posture of a public website: TLS,
// HTTP security headers, cookies, site metadata and exposed sensitive
// files, and folds them into one graded, structured Report.
//
// The package is an engine: it imports the standard library and
// golang.org/x/net/html only, and knows nothing of MCP. Every outbound
// connection goes through what the caller injects in Options: an HTTP Doer
// (in production an SSRF-safe client with redirects disabled and a body
// cap) and a Dial function for the raw TLS probes. The scanner follows and
// records redirects itself, at most three, so every hop passes back
// through the injected client and its address policy.
//
// A scan runs in two phases. First the http:// and https:// sessions are
// fetched and the TLS probes start (one handshake per protocol version,
// one per TLS 1.0–1.2 cipher suite that crypto/tls implements). Then a
// CORS probe with a random foreign Origin, the exposure probes (about 30
// paths, each confirmed by content against a random-path baseline) and the
// metadata fetches (security.txt, robots.txt) run on the final origin. All
// probes share the Options.Concurrency bound.
//
// Scoring follows the MDN HTTP Observatory for headers (start at 100, add
// per-test modifiers, bonuses only when the score is still at least 90,
// letter from the Observatory chart), versioned as AlgorithmVersion. The
// overall grade is that header grade capped by the TLS rules (in the manner
// of SSL Labs and testssl.sh) and by the severity of any exposed file.
// Result.Reasons lists every cap. What crypto/tls will not offer (SSL 3.0,
// DHE, export, NULL and anonymous suites, compression, TLS_FALLBACK_SCSV) is
// probed with hand-written ClientHellos (package webscan/internal/hello);
// what neither tests (SSLv2, Heartbleed-class flaws, …) is listed in
// TLSResult.NotTested and never counted as passed.
//
// Secrets are never copied into a Report: exposure evidence is built by
// each matcher to show structure only ("APP_KEY=***"), cookie values are
// dropped, and secrets found by the optional SecretScan hook are reported
// as type and fingerprint.
//
// WriteText and WriteHTML render a Report for people.
package webscan
