// Package secretscan is KeySweep, Warden's secret-scanning engine. It finds
// credentials in text (about 340 credential types: API keys and tokens, cloud keys,
// private keys, database URLs with passwords, JWTs, and keyword-named
// passwords and secrets in configuration and code) and reports what they
// are and where, never what they are: a result carries type, severity,
// confidence, a keyed fingerprint and the value's length, and the value
// itself cannot be printed, logged or serialized by accident.
//
// It is a leaf: it imports only the standard library, so it can be fuzzed,
// benchmarked and reused without the MCP server around it.
//
// # Use
//
// Build one Scanner at start-up and share it; it is safe for concurrent use
// and New compiles the rules once per process:
//
//	scanner := secretscan.New(&secretscan.Options{FingerprintKey: deploymentKey})
//	res, err := scanner.ScanLimited(ctx, text, 0) // 0: the tool's 256,000-character cap
//	if err != nil { ... }                         // *errcode.Error with Code "input_too_large" or "canceled"
//	sum := res.Summarize()                        // total, by_severity, by_type
//	risk := res.RiskLevel()                       // none/low/medium/high/critical
//	score := res.ConfidenceScore()                // 0..1
//
// A nil *Options gives safe defaults (see Options for each zero value).
// Scan takes any size; ScanLimited enforces a character cap, ScanReader and
// ScanFile a byte cap, and ScanDir walks a directory for the CLI (honouring
// .gitignore files, skipping binary, oversized and symlinked files, with a
// bounded worker pool and bounded memory). WriteSARIF turns directory
// results into SARIF 2.1.0; Rules lists the built-in rules for
// documentation.
//
// # Results
//
// Result.Detections are ordered by byte Offset, then RuleID, so output is
// deterministic. Each Detection has RuleID, Type (snake_case credential
// type), Family, Severity, Confidence, Fingerprint, ValueLength (Unicode
// characters), Line and Column (1-based; columns count Unicode characters),
// Offset and End (byte span), Encoding (the encoded layers the secret was
// found under, if any) and Evidence. Result.TextLength is the text's length
// in Unicode characters; Suppressed counts detections removed by an inline
// allow comment or the baseline; Truncated is set when more than
// Options.MaxDetections matched.
//
// RiskLevel is the highest severity among the detections, whatever their
// confidence ("none" without detections).
// ConfidenceScore is 1 - Π(1 - confidence_i): the chance that the text
// holds at least one real credential, treating detections as independent.
//
// # Confidence
//
// Confidence is calibrated by the kind of evidence, strongest first:
//
//	checksum or structure verified (GitHub/npm CRC32 tail, JWT header and
//	  payload decode to JSON, PEM body is DER in base64, Azure key decodes
//	  to 64 bytes, PyPI macaroon names pypi.org, OpenAI "T3BlbkFJ")  0.95
//	self-describing structure (PEM armour, URL with user:password,
//	  connection string, service-account JSON) or distinctive prefix
//	  with exact length and alphabet (ghp_, xoxb-, sk_live_, AKIA...)  0.80
//	vendor keyword next to a value of the vendor's documented shape     0.65
//	keyword-named assignment ("password = ...", "api_key: ...")         0.45
//
// plus 0.10 for a strong name (api_key rather than a bare key) on generic
// assignments, plus 0.10 when a keyword or generic value has Shannon
// entropy of at least 4 bits per character. A failed checksum or structure
// check subtracts 0.25: it lowers confidence and never hides the finding
// (many real-world examples carry altered checksums). Values are rounded to
// two decimals.
//
// Severity is per type: critical for cloud root keys and key pairs, private
// keys, live payment keys and database URLs with passwords; high for
// provider API tokens; medium for JWTs, bearer headers and generic
// credentials; low for test-mode keys, password hashes and identifiers.
//
// # Fingerprints
//
// Fingerprint is "ks1_" followed by the first 24 hex digits (96 bits) of
// HMAC-SHA-256(FingerprintKey, "keysweep/v1" || 0x00 || value). It is
// stable for a value within a deployment (same key), differs across
// deployments, and cannot be checked against guessed values without the
// key, unlike unkeyed hashes of low-entropy passwords. The "ks1_" prefix
// versions the scheme. Without a configured key each Scanner draws a random
// one, so fingerprints are then stable only within that Scanner.
//
// # Suppression
//
// A line containing "keysweep:allow" (in any comment syntax) suppresses the
// detections that start on it, unless Options.IgnoreAllowComments is set.
// Options.AllowValues suppress values matching a pattern, each with its
// reason. A Baseline (ReadBaseline / WriteBaseline) suppresses accepted
// findings without storing their values: version 2 carries its own random
// key and digests each value under it (HMAC for generated tokens, PBKDF2
// for values a person may have chosen), so it works on any machine; see
// Baseline for the threat model.
//
// # Custom rules
//
// Build takes a team's own formats (Options.CustomRules: keywords, an RE2
// pattern, a severity, an optional entropy floor, and examples that must
// and must not match, checked when the scanner is built) and rule ids to
// turn off (Options.DisabledRules); they run through the same prefilter
// and filters as the built-in rules.
//
// # Rules
//
// Rules are data compiled into the binary, one family per file
// (rules_cloud.go, rules_vcs.go, rules_cicd.go, rules_package.go,
// rules_payment.go, rules_comms.go, rules_ai.go, rules_observability.go,
// rules_saas.go, rules_vendor_a_l.go, rules_vendor_m_z.go, rules_database.go, rules_keys.go,
// rules_tokens.go, rules_identifier.go, rules_generic.go). A rule has an
// id, a type, a severity, prefilter keywords, an RE2 pattern (or the
// generic assignment extractor), an optional entropy floor, an optional
// structural validator, and positive and negative examples that
// rules_test.go runs. Identifier rules (ARNs, bucket names, account IDs)
// report sensitive values that are not credentials, as severity low;
// Options.SkipIdentifiers drops them. Password-hash rules (bcrypt, crypt(3), Cisco type
// 8/9, Kerberos AS-REP) always run, at severity low: a leaked hash can be
// cracked offline.
//
// # How it is fast
//
// One case-folding Aho-Corasick automaton over all rule keywords passes
// over the text once. A rule's pattern runs only in windows around its
// keyword hits (clipped to the keyword's line for single-line rules), and
// the generic rules use a hand-written extractor instead of a regexp, so
// the work is proportional to the text plus the hits, not to rules × text.
// Go's regexp is RE2, linear in its input. Decoders (base64, URL
// percent-encoding, JSON string escapes, quoted-printable) scan forward
// only and peel at most MaxDecodeDepth (default 2) nested layers; a secret
// found in a layer is reported at the encoded span of the original text.
//
// # Errors
//
// Errors are *errcode.Error values with a stable snake_case Code and a
// short public Message that never contains scanned text: invalid_argument,
// input_too_large, canceled, read_failed, invalid_baseline. Use errors.Is
// with ErrTooLarge or ErrCanceled, or errcode.CodeOf to read the code.
package secretscan
