// Package redact is Warden's privacy layer: what a tool returns is
// stripped of secrets, credentials and, on request, of the identities of
// hosts, addresses, people and files, before a client or a model sees it.
//
// It works in two passes, both driven by a privacy mode:
//
//   - a typed pass, Field, that the SDK applies to every output field
//     tagged `privacy:"<kind>"` before the result is marshalled;
//   - a text pass, Text and Result, that the privacy Stage (stage.go) applies
//     to every tool result, ours and third parties': every credential
//     KeySweep (package secretscan) finds in any string becomes
//     "[REDACTED:<type>]", because a field named value or detail carries no
//     type of its own.
//
// Build one Redactor per mode and key at start-up and share it:
//
//	r, err := redact.New(&redact.Options{Mode: redact.Strict, PseudonymKey: key})
//	v := r.Field(privacy.URL, "location", "https://u:p@example.com/cb?code=x")
//	out, err := r.Result(res) // err: refuse the result (fail closed)
//
// # Modes
//
// Balanced is the default; Strict adds pseudonyms; Off changes nothing,
// byte for byte, and costs one comparison. ParseMode reads the names
// ("" is Balanced). What each mode does to a field of each kind:
//
//	kind        balanced                                   strict (balanced, plus)
//	secret      "[REDACTED:secret]"                        same
//	credential  "[REDACTED:credential]"                    same
//	cookie      "[REDACTED:cookie]" (the name is kept)     same
//	header      sensitive values removed (see below)       Host, X-Forwarded-For... pseudonymized
//	url         userinfo dropped, query values and         host pseudonymized (port kept);
//	            fragment "REDACTED", keys kept             file: paths, mailto: addresses too
//	host        kept                                       "host-<12 hex>.invalid"
//	ip          kept                                       "ip4-<12 hex>.<class>.invalid", "ip6-..."
//	email       kept                                       "user-<12 hex>@host-<12 hex>.invalid"
//	path        kept                                       "/path-<12 hex>.pdf" (root and extension kept)
//	bytes       the bytes of a credential (decoded from    same
//	            hex or base64) become its marker; a tail
//	            from a credential prefix on at the end
//	            becomes "[REDACTED:partial_secret]"
//	plain       kept                                       kept
//
// And what each mode does to every string of a result, typed or not (the
// text pass, below):
//
//	free text   balanced                                   strict (balanced, plus)
//	credential  "[REDACTED:<type>]"                        same
//	identifier  kept (an ARN, an account ID, a bucket)     "[REDACTED:<type>]"
//	hex, base64 decoded: a credential in the bytes goes    same
//	            as in the bytes kind
//	host, IP,   kept                                       the typed pseudonyms (see Strict's
//	e-mail,                                                free-text pass below)
//	path
//
// Off changes nothing, typed or free, text or bytes.
//
// An empty value stays empty in every mode: an empty password is a
// finding, not a secret. An unknown kind is treated as secret (the SDK
// refuses unknown kinds when a tool is registered, so this is a last
// resort that fails closed). Examples, in Balanced:
//
//	url     https://alice:pw@example.com:8443/a?token=abc&page=2&debug#x
//	     -> https://example.com:8443/a?token=REDACTED&page=REDACTED&debug#REDACTED
//	header  Authorization: Bearer eyJhbGciOi...   -> Bearer [REDACTED:credential]
//	header  Cookie: sid=abc; theme=dark           -> sid=[REDACTED:cookie]; theme=[REDACTED:cookie]
//	header  Set-Cookie: sid=abc; Path=/; HttpOnly -> sid=[REDACTED:cookie]; Path=/; HttpOnly
//	header  X-Api-Key: 3f9a...                    -> [REDACTED:header]
//	header  Content-Type, Server, Strict-Transport-Security, WWW-Authenticate,
//	        Access-Control-Allow-Credentials      -> kept
//
// and in Strict (the tokens shown are those of one key):
//
//	url     http://10.0.0.5:8080/admin?id=7        -> http://ip4-85ae3f6e8f30.private.invalid:8080/admin?id=REDACTED
//	host    *.Example.COM                          -> *.host-a999cd1cc88d.invalid
//	email   Alice <alice@example.com>              -> user-807455566f82@host-a999cd1cc88d.invalid
//	path    C:\Users\alice\Desktop\fw.bin          -> C:\path-47cddea2c6cf.bin
//
// The header policy, by header name (case-insensitive): Authorization and
// Proxy-Authorization keep a known scheme ("Bearer", "Basic", "Digest",
// "AWS4-HMAC-SHA256"...) and lose the rest; Cookie keeps every cookie's
// name and loses its value; Set-Cookie loses the value and keeps the name
// and attributes (a missing Secure or HttpOnly flag is a finding);
// any other name containing token, secret, key, auth, session, passw, pwd,
// signature, credential, cookie, csrf, xsrf, jwt or bearer, and DPoP,
// becomes "[REDACTED:header]", except WWW-Authenticate,
// Proxy-Authenticate, Access-Control-Allow-Credentials,
// Access-Control-Allow-Headers, Access-Control-Expose-Headers,
// Access-Control-Request-Headers and Public-Key-Pins(-Report-Only), which
// name credentials without holding one; Location, Content-Location,
// Referer, Origin, Access-Control-Allow-Origin and :path get the URL
// policy. In Strict, Host, X-Forwarded-Host and :authority get the host
// pseudonym, X-Forwarded-For, X-Real-IP, X-Client-IP, True-Client-IP,
// CF-Connecting-IP, X-Cluster-Client-IP and Forwarded's for=, by= and
// host= get address pseudonyms, and Set-Cookie's Domain its host
// pseudonym. Every other header is kept.
//
// URLs are split by hand (RFC 3986's generic syntax), never parsed and
// re-serialized: what the policy keeps stays byte for byte, and a URL
// nothing needs removing from comes back unchanged. The query and fragment
// marker is REDACTED without brackets, which RFC 3986 does not allow
// there, so a redacted URL still parses. A bare query segment without "="
// is kept when it reads as a flag (letters, "_", "-", ".", brackets; up
// to 64 bytes: "?debug", "?wsdl") and is otherwise a value.
//
// # Markers
//
// Everything removed is replaced by a marker that says what was there:
// "[REDACTED:<what>]", where what is the field's kind (secret, credential,
// cookie), "header" for a sensitive header, or the credential type
// KeySweep detected in free text ("[REDACTED:github_personal_access_token]",
// "[REDACTED:password]"). URL query values and fragments become REDACTED
// (see above). Markers are stable: redacting redacted output changes
// nothing, and KeySweep finds nothing in a marker.
//
// # Pseudonyms
//
// Strict replaces a host name, IP address, e-mail address or local path
// with a keyed token: the first 48 bits (12 hex digits) of
// HMAC-SHA-256(PseudonymKey, "warden-redact/v1" 0x00 kind 0x00 value).
// Equal values give equal tokens within a deployment (one key), so a
// reader still sees that two findings concern the same host; different
// keys give unrelated tokens; nothing can be checked against a guessed
// value without the key. Host names are compared lower-cased without a
// trailing dot, IP addresses in canonical form (an IPv4-mapped IPv6
// address is its IPv4 address; the zone is dropped), e-mail addresses
// lower-cased.
//
// Host names and IP addresses become names under .invalid, the top-level
// domain RFC 2606 reserves never to resolve: a URL stays a URL, a
// Host header stays a host, and a model that tries to use a pseudonym
// fails at once instead of reaching some real machine. IP pseudonyms keep
// the address family and a class, private (RFC 1918, ULA, CGNAT),
// linklocal, public or other, so "an internal address is disclosed" stays
// visible. An e-mail address keeps its shape: its domain gets the host
// pseudonym, so addresses at one domain stay related to each other and to
// that host. A path keeps its root ("/", "C:\", "\\", "~/"), its extension
// (up to 10 letters and digits) and a trailing separator.
//
// Kept as they are, because they identify nothing: localhost and names
// under .localhost, loopback and unspecified addresses, and names under
// .invalid, which is where pseudonyms live, so that pseudonymizing twice
// changes nothing.
//
// # Strict's free-text pass
//
// Strict pseudonymizes every string a result carries, not only typed
// fields: text blocks, warnings and every member name and string value of
// structured content, ours and third parties'. Free text has no type, so
// each identity is recognised by a narrow shape (identity.go), and what
// only looks like one is kept:
//
//   - a URL's host after "scheme://" (any name or address; a file: URL's
//     path as a path), and the userinfo left to the credential pass;
//   - an e-mail address: a domain of two or more labels ending in letters
//     ("pkg@v1.2.3", "image@sha256:..." are not);
//   - an IPv4 address: four octets not inside a longer dotted number or a
//     word ("v1.2.3.4", "1.3.6.1.4.1", "10.0.19041.1" stay; a bare
//     "1.2.3.4" reads as an address); an IPv6 address that parses, with a
//     digit and hex letters of one case ("fe80::1"; "CDC::Add" is C++);
//   - a bare host name: lower-case labels ending in a common top-level
//     domain that is not also a file extension (com, net, org, io, dev,
//     internal, corp, local...; not md, sh, py, rs, so, zip, app), standing
//     alone: "db.internal" goes, "main.go", "System.IO", "java.io.File"
//     and a host before "/" stay, the last because written without a
//     scheme before a path it is a Go package or module path
//     ("github.com/warden-mcp/warden") far more often than a link;
//   - a local path: "C:\", "C:/", "\\server", "~/", or "/" and a first
//     directory that is a filesystem root (home, Users, root, tmp, var,
//     etc, opt, usr, srv, mnt, Volumes, private, data, build, src, go,
//     lib, bin...); "/api/v1/users", "?next=/admin" and "text/html" are no
//     paths. A ":line:col" after a path stays.
//
// Loopback and unspecified addresses, localhost and pseudonyms keep their
// form, so the pass is idempotent; a credential that overlaps an identity
// wins (its marker covers both). A pseudonym is never taken for a
// credential on a later pass. The pass costs a few byte scans per string
// and a keyed hash per distinct value (remembered within a result):
// BenchmarkResult256KStrict measures it.
//
// # The text pass
//
// Text and Result replace every credential KeySweep detects with
// "[REDACTED:<type>]", in Balanced and Strict. Identifiers (KeySweep's
// family "identifier": AWS ARNs and account IDs, bucket host names, store
// domains, usernames, age recipients, all of severity low) name things
// without opening them, and a security reader needs them: Balanced keeps
// them and Strict removes them. Password hashes (bcrypt, crypt(3), Cisco
// type 8/9, Kerberos AS-REP) can be cracked offline and go in both.
// The default scanner has KeySweep's default rules and options, except
// that "keysweep:allow" comments are ignored (a tool's output is not its
// author's code to annotate) and the detection cap is raised so that a
// result full of credentials is redacted whole.
//
// A credential glued to the text around it is found too: KeySweep's
// prefixed rules want a word boundary either side, so "tok_ghp_...",
// "%zzghp_..." and a token packed against the next string of a binary
// ("ghp_...UH") match none. Where one of a few distinctive prefixes
// (those of rules with a checksum, and others of five characters or more
// that no word holds) occurs and the main scan found nothing, the glued
// pass (glued.go) scans from the prefix on alone, with KeySweep's Glued
// scanner, which also takes a checksummed match that a letter or digit
// continues, where the checksum passes. A rule without a checksum still
// wants its match to end where the word does: "glpat-...xyz" glued at its
// end is missed. The pass adds nothing on the shared example sets'
// negatives or on the go command's 15 MB of identifiers
// (TestGluedPassOnRealText), and about 0.1 ms to BenchmarkResult256K
// (BenchmarkGluedPass256K).
//
// Nothing else is touched: a UUID, a hash digest, a commit ID, a URL
// without credentials or an identifier next to a credential survive the
// pass (TestTextKeepsWhatIsNotACredential).
//
// Bytes rendered as text are read too. Every run of 20 or more hex
// digits (after an optional 0x) or base64 characters in any string is
// decoded, unless KeySweep decodes it itself (base64 of text); the bytes
// are read as text the way the strings tool reads them, and as UTF-16LE
// where they hold such a run; each credential found there replaces the
// hex digits, or the whole base64 quanta, that encode it, so what is left
// either side still decodes. A run whose bytes hold no 8 text characters
// in a row is not scanned. Hex dumps with offsets or a text column
// between the bytes (hexdump -C) are not read as one run; a field of kind
// bytes also takes hex pairs separated by a space, ':' or '-'.
//
// A credential cut by the edge of the bytes a result holds (a window read
// from a larger buffer) matches no rule. Two things cover it: bytes that
// end inside a run of token characters after a credential prefix
// ("ghp_", "AKIA", "xoxb-": the prefixes of KeySweep's rules) lose that
// tail ("[REDACTED:partial_secret]"); and a tool that returns a window of
// a buffer passes ByteContext bytes either side to Bytes and removes every
// byte of the window that belongs to a credential found there, as
// Warden's byte tools do (HexWithout, Base64Without), so no sequence of
// small windows puts one together. The tail of a cut credential without
// its prefix cannot be told from other text in a window alone: a tool
// that shows windows without context leaves that to its reader.
//
// # Named fields, logs and what is kept
//
// CredentialName says whether a form, JSON or multipart field name means a
// credential (password, api_key, token...); CredentialMembers removes the
// string values of such members from a JSON document, and http_parse
// applies both: password=hunter2 is a password though no rule matches
// hunter2. Query values and cookie values need no name: Balanced removes
// every one (the URL and cookie policies above), since a name does not
// tell a session ID from a theme.
//
// Hide is the credential pass for what must never hold a credential in
// any mode: approval questions, logs (NewLogHandler wraps a slog.Handler)
// and what a store keeps. It also finds a credential glued to the word
// before it after any of KeySweep's prefixes ("tok_ghp_...",
// "/tmp/xghp_...", "cachekey-..."), which the text pass's glued pass
// takes only after distinctive ones: a store and a log may lose a name to
// a false alarm; a result should not. A string shorter than
// 8 bytes, or of up to 128 bytes with no KeySweep keyword and no run of 20
// hex or base64 characters, cannot hold a credential a rule matches and
// costs no scan, so a log line's method, path and status are nearly free
// (BenchmarkLogLine).
//
// Result covers every string a client reads: text blocks, embedded
// resources' text, URI and _meta, every block's URI, name, title and
// description, warning messages, and every member name and string value of
// the structured content. Member names count, because a map keyed by token
// or session ID holds its secrets in its names; a changed name that now
// equals another member's name gets "#2", "#3"... so the object stays
// unambiguous. Image and audio data and resource blobs are not text and
// are left alone.
//
// Structured content is decoded and re-encoded, never edited as bytes: the
// strings the pass changes are re-encoded whole (as encoding/json writes
// them), every other token is copied byte for byte, member order and white
// space included, so the output is valid JSON whenever the input is, and
// identical to it when nothing is found. A text block that repeats the
// structured content byte for byte, as the SDK writes it for typed tools,
// becomes the redacted structured content: the two views agree and the
// scan runs once.
//
// All strings of a result are scanned in a few joint scans rather than one
// at a time, which costs twice the CPU and 15 times the allocations.
// In the joint scan text every string stands alone between blank lines,
// so KeySweep sees what it would see scanning the string alone; and a
// member whose name holds a KeySweep keyword ("password", "api_key",
// "stripe"...) is added as JSON, "name":"value", so that
// {"password": "..."} reads as the assignment it is, though neither string
// alone is one. render (jointscan.go) explains why a joint scan finds
// everything a scan of each string alone finds (decode budgets, truncated
// scans, rules that read other lines), and
// TestJointScanFindsWhatEachStringAloneFinds checks it on every string of
// the shared example sets.
//
// The pass scans decoded strings, not the JSON text. A scan of a typed
// result's text block as text would also match across members (compact
// JSON is one line) and read a shell command's escaped line continuation
// as one line; those matches are not made.
//
// # Bounds
//
// One Result pass scans at most Options.MaxBytes bytes (default 8 MiB,
// twice the protocol's message cap) and Options.MaxStrings strings
// (default 262,144), and reads structured content nested at most 10,000
// deep. Past a bound, or on structured content that is not valid JSON, or
// when KeySweep gives up on a single string, Result fails closed with a
// *errcode.Error (CodeLimit or CodeMalformed), which the Stage turns into a
// refusal: unscanned text never passes in Balanced or Strict.
//
// # Using it from the SDK and the call path
//
// Package tool must not import redact (redact imports tool for Result, and
// the SDK stays free of the scanner): both read the one kind vocabulary of
// package privacy, and the Stage (stage.go) hands each call's typed pass
// the method value r.Field of the caller's mode. Field does not scan: the Result pass that follows
// does. Result returns res itself when it changes nothing (and in Off), so
// the caller must treat the returned Result as read-only. RedactResult also
// returns a Report (how many credentials of which types went, how many
// strings and bytes were read) for the audit record; it never holds a
// removed value.
package redact
