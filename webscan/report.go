package webscan

import "time"

// Report is the structured result of one scan. Its JSON field names are
// snake_case and only ever grow: fields are added, never renamed or removed.
// docs/microdefend.md documents every field.
type Report struct {
	// Status is "completed" for a scan that ran to the end. Checks that
	// could not run are reported inside the result as "not_tested"; they
	// never turn into a pass.
	Status string `json:"status" privacy:"plain"`
	// ScanID is a random identifier for this scan (32 hex characters).
	ScanID string `json:"scan_id" privacy:"plain"`
	// Target is the URL that was scanned, as normalised by the scanner.
	Target string `json:"target" privacy:"url"`
	// StartedAt is when the scan began, from Options.Now.
	StartedAt time.Time `json:"started_at" privacy:"plain"`
	// Findings lists every problem found, worst first.
	Findings []Finding `json:"findings"`
	// Result holds the grade and the per-section details.
	Result Result `json:"result"`
	// PolicyWarnings say where this scan departed from the default policy: a
	// command-line scan run with --allow-private or --allow-port. A scan
	// served to a client never has any.
	PolicyWarnings []ReportWarning `json:"policy_warnings,omitempty"`
}

// ReportWarning is one departure from the default policy.
type ReportWarning struct {
	// Code is a stable snake_case identifier, such as
	// "private_addresses_allowed".
	Code string `json:"code" privacy:"plain"`
	// Message is a human sentence.
	Message string `json:"message" privacy:"plain"`
}

// StatusCompleted is the only status a returned Report carries today.
const StatusCompleted = "completed"

// Category groups findings by check family.
type Category string

// The categories a Finding can carry.
const (
	CategoryTLS      Category = "tls"
	CategoryHeaders  Category = "headers"
	CategoryCookies  Category = "cookies"
	CategoryMetadata Category = "metadata"
	CategoryExposure Category = "exposure"
)

// Severity orders findings. The zero value is SeverityInfo.
type Severity string

// Severities from the least to the most serious.
const (
	SeverityInfo     Severity = "info"
	SeverityLow      Severity = "low"
	SeverityMedium   Severity = "medium"
	SeverityHigh     Severity = "high"
	SeverityCritical Severity = "critical"
)

// Rank returns 0 for info up to 4 for critical, and -1 for an unknown value.
func (s Severity) Rank() int {
	switch s {
	case SeverityInfo:
		return 0
	case SeverityLow:
		return 1
	case SeverityMedium:
		return 2
	case SeverityHigh:
		return 3
	case SeverityCritical:
		return 4
	}
	return -1
}

// Finding is one problem found on the site.
type Finding struct {
	// ID is a stable snake_case identifier such as "csp_unsafe_inline".
	ID string `json:"id" privacy:"plain"`
	// Category is the check family: tls, headers, cookies, metadata or exposure.
	Category Category `json:"category" privacy:"plain"`
	// Severity is info, low, medium, high or critical.
	Severity Severity `json:"severity" privacy:"plain"`
	// Title is a one-line summary.
	Title string `json:"title" privacy:"plain"`
	// Detail explains what was observed and why it matters.
	Detail string `json:"detail" privacy:"plain"`
	// Evidence is a short excerpt that shows the problem. Secret values are
	// never included: they are replaced by "***" or by a type and fingerprint.
	Evidence string `json:"evidence,omitempty" privacy:"plain"`
	// Recommendation says how to fix it.
	Recommendation string `json:"recommendation" privacy:"plain"`
}

// Result holds the grade and every section of a scan.
type Result struct {
	// Grade is the overall letter grade, A+ to F, after every cap.
	Grade string `json:"grade" privacy:"plain"`
	// Score is the header score (Observatory-like arithmetic, 0 and up).
	Score int `json:"score"`
	// AlgorithmVersion names the scoring algorithm, e.g. "observatory-like/1".
	AlgorithmVersion string `json:"algorithm_version" privacy:"plain"`
	// Reasons explains the grade: the header grade and every cap applied.
	Reasons []GradeReason `json:"reasons"`
	// TLS is the transport-security section.
	TLS TLSResult `json:"tls"`
	// Headers is the HTTP-header section with the per-test score modifiers.
	Headers HeadersResult `json:"headers"`
	// Metadata is what the site says about itself.
	Metadata MetadataResult `json:"metadata"`
	// Exposure lists the sensitive paths probed and what was confirmed.
	Exposure ExposureResult `json:"exposure"`
	// Redirects records the http:// and https:// redirect chains.
	Redirects RedirectResult `json:"redirects"`
	// Reference is the header score computed with the MDN HTTP
	// Observatory's own test set and arithmetic, for comparison with it.
	Reference ReferenceResult `json:"reference"`
	// CAA is the domain's certificate-authority policy (DNS CAA records).
	CAA CAAResult `json:"caa"`
	// Timings records how long each phase took, in milliseconds.
	Timings Timings `json:"timings"`
}

// ReferenceResult is the Observatory-equivalent header score: the MDN
// HTTP Observatory's ten tests (Warden's cross-origin-opener-policy and
// cross-origin-embedder-policy tests are not among them), each with the
// modifier Warden's reading gives, added up with the Observatory's
// arithmetic and graded on its chart. Where Warden reads a header more
// strictly than the Observatory, the difference is listed with its reason
// in docs/microdefend.md (deliberate deviations) and checked against the
// Observatory itself in CI.
type ReferenceResult struct {
	// Name is "mdn-http-observatory".
	Name string `json:"name" privacy:"plain"`
	// AlgorithmVersion is the Observatory's algorithm version this
	// follows (4).
	AlgorithmVersion int `json:"algorithm_version"`
	// Score and Grade are the Observatory-equivalent score and letter.
	Score int    `json:"score"`
	Grade string `json:"grade" privacy:"plain"`
	// Tests lists the ten tests in the Observatory's order.
	Tests []TestResult `json:"tests"`
}

// GradeReason is one input to the overall grade.
type GradeReason struct {
	// Source is "headers", "tls", "exposure" or "https".
	Source string `json:"source" privacy:"plain"`
	// Grade is the grade or cap this source imposes.
	Grade string `json:"grade" privacy:"plain"`
	// Applied is true when this reason lowered (or set) the final grade.
	Applied bool `json:"applied"`
	// Reason is a human sentence.
	Reason string `json:"reason" privacy:"plain"`
}

// Timings records phase durations in milliseconds.
type Timings struct {
	TotalMS    int64 `json:"total_ms"`
	FetchMS    int64 `json:"fetch_ms"`
	TLSMS      int64 `json:"tls_ms"`
	ExposureMS int64 `json:"exposure_ms"`
	MetadataMS int64 `json:"metadata_ms"`
}

// RedirectResult records both fetch sessions.
type RedirectResult struct {
	// HTTP is the chain that started at http://host/.
	HTTP Chain `json:"http"`
	// HTTPS is the chain that started at https://host/.
	HTTPS Chain `json:"https"`
}

// Chain is one fetch session, hop by hop.
type Chain struct {
	// Tested is false when this session was not attempted (for example an
	// explicit non-default port names only one scheme).
	Tested bool `json:"tested"`
	// Hops lists each request in order.
	Hops []Hop `json:"hops"`
	// FinalURL is the last URL fetched.
	FinalURL string `json:"final_url,omitempty" privacy:"url"`
	// Error is a short public error code when the session failed, e.g.
	// "fetch_failed" or "redirect_limit".
	Error string `json:"error,omitempty" privacy:"plain"`
	// ErrorDetail is a short public sentence about Error.
	ErrorDetail string `json:"error_detail,omitempty" privacy:"plain"`
	// FailureKind classifies a fetch failure for the analysis (timeout,
	// tls, refused, …); it is not part of the report.
	FailureKind string `json:"-"`
}

// Hop is one request and its response status.
type Hop struct {
	URL        string `json:"url" privacy:"url"`
	StatusCode int    `json:"status_code"`
	Location   string `json:"location,omitempty" privacy:"url"`
}

// Test result of one Observatory-like header test.
type TestResult struct {
	// Name is the test, e.g. "content-security-policy".
	Name string `json:"name" privacy:"plain"`
	// Result is the outcome key, e.g. "csp-implemented-with-unsafe-inline".
	Result string `json:"result" privacy:"plain"`
	// Modifier is the score change this result contributes.
	Modifier int `json:"modifier"`
	// Pass is true when the modifier is not negative.
	Pass bool `json:"pass"`
	// Description is a human sentence.
	Description string `json:"description" privacy:"plain"`
}

// HeadersResult is the header section.
type HeadersResult struct {
	// URL is the response the headers were read from.
	URL string `json:"url,omitempty" privacy:"url"`
	// Score is the Observatory-like score (see Result.Score).
	Score int `json:"score"`
	// Grade is the letter the header score alone earns.
	Grade string `json:"grade" privacy:"plain"`
	// BonusApplied reports whether the positive modifiers counted (they do
	// only when the score after penalties is at least 90).
	BonusApplied bool `json:"bonus_applied"`
	// Tests lists each scored test in a fixed order.
	Tests []TestResult `json:"tests"`
	// CSP is the parsed Content-Security-Policy.
	CSP CSPSummary `json:"csp"`
	// HSTS is the parsed Strict-Transport-Security header.
	HSTS HSTSSummary `json:"hsts"`
	// Cookies lists the cookies seen, by name and attributes (never values).
	Cookies []CookieSummary `json:"cookies"`
	// CORS records the probe-Origin result.
	CORS CORSSummary `json:"cors"`
	// Scripts counts the scripts found for the subresource-integrity test.
	Scripts ScriptSummary `json:"scripts"`
	// Raw holds the security-relevant response headers as received.
	Raw map[string]string `json:"raw" privacy:"header"`
}

// CSPSummary is the parsed Content-Security-Policy.
type CSPSummary struct {
	Present    bool `json:"present"`
	ReportOnly bool `json:"report_only"`
	FromMeta   bool `json:"from_meta"`
	// Directives maps a directive name to its source list (first policy).
	Directives        map[string][]string `json:"directives,omitempty" privacy:"plain"`
	UnsafeInline      bool                `json:"unsafe_inline"`
	UnsafeEval        bool                `json:"unsafe_eval"`
	BroadScriptSrc    bool                `json:"broad_script_src"`
	BroadObjectSrc    bool                `json:"broad_object_src"`
	InsecureSchemes   bool                `json:"insecure_schemes"`
	BaseURIRestricted bool                `json:"base_uri_restricted"`
	FrameAncestors    bool                `json:"frame_ancestors"`
	DefaultNone       bool                `json:"default_none"`
	FormAction        bool                `json:"form_action_restricted"`
	Duplicates        []string            `json:"duplicates,omitempty" privacy:"plain"`
}

// HSTSSummary is the parsed Strict-Transport-Security header.
type HSTSSummary struct {
	Present           bool  `json:"present"`
	Valid             bool  `json:"valid"`
	MaxAge            int64 `json:"max_age"`
	IncludeSubDomains bool  `json:"include_subdomains"`
	Preload           bool  `json:"preload"`
	// PreloadListed is always "not_tested": the scanner carries no copy of
	// the browsers' preload list.
	PreloadListed string `json:"preload_listed" privacy:"plain"`
}

// CookieSummary describes one Set-Cookie without its value.
type CookieSummary struct {
	Name     string `json:"name" privacy:"plain"`
	Secure   bool   `json:"secure"`
	HTTPOnly bool   `json:"http_only"`
	SameSite string `json:"same_site,omitempty" privacy:"plain"`
	Session  bool   `json:"session"`
	Prefix   string `json:"prefix,omitempty" privacy:"plain"`
	// Problems lists short codes such as "missing_secure".
	Problems []string `json:"problems,omitempty" privacy:"plain"`
}

// CORSSummary records what the site answered to a probe Origin.
type CORSSummary struct {
	ProbeOrigin      string `json:"probe_origin" privacy:"url"`
	AllowOrigin      string `json:"allow_origin,omitempty" privacy:"url"`
	AllowCredentials bool   `json:"allow_credentials"`
	Reflected        bool   `json:"reflected"`
}

// ScriptSummary counts the <script src> elements of the page.
type ScriptSummary struct {
	HTML          bool `json:"html"`
	Total         int  `json:"total"`
	CrossOrigin   int  `json:"cross_origin"`
	WithIntegrity int  `json:"with_integrity"`
	Insecure      int  `json:"insecure"`
}

// TLSResult is the transport-security section.
type TLSResult struct {
	// Tested is false when no TLS probe could run (no https, or no dialer).
	Tested bool `json:"tested"`
	// Address is host:port probed.
	Address string `json:"address,omitempty" privacy:"host"`
	// Error is a short code when the main handshake failed.
	Error string `json:"error,omitempty" privacy:"plain"`
	// Grade is the TLS-only grade (A+ to F, T for untrusted, M for a name
	// mismatch) after caps.
	Grade string `json:"grade,omitempty" privacy:"plain"`
	// Caps lists every TLS cap and warning with its reason.
	Caps []GradeReason `json:"caps"`
	// Protocols lists each probed version and whether it was accepted.
	Protocols []ProtocolResult `json:"protocols"`
	// CipherSuites lists the TLS 1.0–1.2 suites the server accepted: those
	// crypto/tls implements, probed with it, and the rest (DHE, CAMELLIA,
	// ARIA, CCM, export, NULL, anonymous, ...) with raw ClientHellos.
	CipherSuites []CipherResult `json:"cipher_suites"`
	// NegotiatedVersion, NegotiatedCipher and Group describe the default handshake.
	NegotiatedVersion string `json:"negotiated_version,omitempty" privacy:"plain"`
	NegotiatedCipher  string `json:"negotiated_cipher,omitempty" privacy:"plain"`
	Group             string `json:"group,omitempty" privacy:"plain"`
	ALPN              string `json:"alpn,omitempty" privacy:"plain"`
	// Groups lists the key-exchange groups the server accepted when offered
	// one at a time (X25519MLKEM768, X25519, P-256, P-384, P-521).
	Groups []string `json:"groups" privacy:"plain"`
	// Certificate describes the leaf and chain.
	Certificate *CertificateResult `json:"certificate,omitempty"`
	// OCSPStapled is true when the server stapled an OCSP response.
	OCSPStapled bool `json:"ocsp_stapled"`
	// OCSPStatus is the stapled response's status ("successful", …), if any.
	OCSPStatus string `json:"ocsp_status,omitempty" privacy:"plain"`
	// DHBits is the smallest Diffie-Hellman prime of the DHE suites the
	// server accepted (0 when it accepts none, or none could be read).
	DHBits int `json:"dh_bits,omitempty"`
	// SecureRenegotiation is "supported" when the server answers with the
	// RFC 5746 renegotiation_info extension, "not_supported" when it does
	// not, "not_applicable" with no TLS 1.2 or earlier; empty when untested.
	SecureRenegotiation string `json:"secure_renegotiation,omitempty" privacy:"plain"`
	// FallbackSCSV is "supported" when the server refuses a downgraded
	// ClientHello carrying TLS_FALLBACK_SCSV (RFC 7507), "not_supported"
	// when it accepts it, "not_applicable" with only one version to offer.
	FallbackSCSV string `json:"fallback_scsv,omitempty" privacy:"plain"`
	// Compression is true when the server chose TLS compression (CRIME);
	// absent when untested.
	Compression *bool `json:"compression,omitempty"`
	// Unanswered counts the suite and group probes that timed out or could
	// not connect; those suites and groups are not known to be refused.
	Unanswered int `json:"unanswered"`
	// NotTested names the checks crypto/tls cannot perform; they are never
	// counted as passed.
	NotTested []string `json:"not_tested" privacy:"plain"`
}

// ProtocolResult is one protocol-version probe.
type ProtocolResult struct {
	Version  string `json:"version" privacy:"plain"`
	Offered  bool   `json:"offered"`
	Tested   bool   `json:"tested"`
	Error    string `json:"error,omitempty" privacy:"plain"`
	Insecure bool   `json:"insecure"`
}

// CipherResult is one accepted cipher suite.
type CipherResult struct {
	Name           string `json:"name" privacy:"plain"`
	ID             uint16 `json:"id"`
	Version        string `json:"version" privacy:"plain"`
	ForwardSecrecy bool   `json:"forward_secrecy"`
	AEAD           bool   `json:"aead"`
	Weak           string `json:"weak,omitempty" privacy:"plain"`
}

// CertificateResult describes the served certificate chain.
type CertificateResult struct {
	Subject            string    `json:"subject" privacy:"plain"`
	Issuer             string    `json:"issuer" privacy:"plain"`
	DNSNames           []string  `json:"dns_names" privacy:"host"`
	NotBefore          time.Time `json:"not_before" privacy:"plain"`
	NotAfter           time.Time `json:"not_after" privacy:"plain"`
	DaysRemaining      int       `json:"days_remaining"`
	Expired            bool      `json:"expired"`
	NotYetValid        bool      `json:"not_yet_valid"`
	SelfSigned         bool      `json:"self_signed"`
	Trusted            bool      `json:"trusted"`
	TrustError         string    `json:"trust_error,omitempty" privacy:"plain"`
	HostnameMatch      bool      `json:"hostname_match"`
	KeyType            string    `json:"key_type" privacy:"plain"`
	KeyBits            int       `json:"key_bits"`
	SignatureAlgorithm string    `json:"signature_algorithm" privacy:"plain"`
	ChainLength        int       `json:"chain_length"`
	Chain              []string  `json:"chain" privacy:"plain"`
	MustStaple         bool      `json:"must_staple"`
	SCTs               bool      `json:"scts"`
	// ChainProblems lists what is wrong with the served chain's
	// structure: incomplete, wrong_order, weak_signature, unrelated,
	// validity_too_long (see docs/microdefend.md).
	ChainProblems []string `json:"chain_problems,omitempty" privacy:"plain"`
}

// MetadataResult is what the site discloses about itself.
type MetadataResult struct {
	StatusCode  int               `json:"status_code"`
	Title       string            `json:"title,omitempty" privacy:"plain"`
	Generator   string            `json:"generator,omitempty" privacy:"plain"`
	Banners     map[string]string `json:"banners,omitempty" privacy:"header"`
	SecurityTxt SecurityTxt       `json:"security_txt"`
	Robots      RobotsResult      `json:"robots"`
}

// SecurityTxt is the parsed RFC 9116 file.
type SecurityTxt struct {
	Present  bool      `json:"present"`
	URL      string    `json:"url,omitempty" privacy:"url"`
	Contact  []string  `json:"contact,omitempty" privacy:"url"`
	Expires  time.Time `json:"expires,omitzero" privacy:"plain"`
	Expired  bool      `json:"expired"`
	Signed   bool      `json:"signed"`
	Problems []string  `json:"problems,omitempty" privacy:"plain"`
	// The optional RFC 9116 fields, as the file gives them.
	Acknowledgments    []string `json:"acknowledgments,omitempty" privacy:"url"`
	Canonical          []string `json:"canonical,omitempty" privacy:"url"`
	Encryption         []string `json:"encryption,omitempty" privacy:"url"`
	Hiring             []string `json:"hiring,omitempty" privacy:"url"`
	Policy             []string `json:"policy,omitempty" privacy:"url"`
	PreferredLanguages []string `json:"preferred_languages,omitempty" privacy:"plain"`
	CSAF               []string `json:"csaf,omitempty" privacy:"url"`
}

// RobotsResult summarises robots.txt.
type RobotsResult struct {
	Present bool `json:"present"`
	// Entries counts the Allow/Disallow lines.
	Entries int `json:"entries"`
	// Sensitive lists entries whose paths suggest sensitive content.
	Sensitive []string `json:"sensitive,omitempty" privacy:"plain"`
}

// ExposureResult lists the sensitive-path probes.
type ExposureResult struct {
	// Origin is where the paths were probed.
	Origin string `json:"origin,omitempty" privacy:"url"`
	// Tested is false when no probe ran.
	Tested bool `json:"tested"`
	// Probed counts the candidate paths requested.
	Probed int `json:"probed"`
	// Baseline describes the random-path responses used to defeat soft 404s.
	Baseline []BaselineResult `json:"baseline"`
	// Exposed lists the confirmed paths.
	Exposed []ExposedPath `json:"exposed"`
	// Unanswered counts the candidate paths that got no response (timeout
	// or connection failure); they are not known to be safe.
	Unanswered int `json:"unanswered"`
	// Suppressed lists paths whose content matched but also matched the
	// baseline, so they were not reported.
	Suppressed []string `json:"suppressed,omitempty" privacy:"plain"`
}

// BaselineResult is one random-path response.
type BaselineResult struct {
	Path       string `json:"path" privacy:"plain"`
	StatusCode int    `json:"status_code"`
	Length     int    `json:"length"`
}

// ExposedPath is one confirmed sensitive file.
type ExposedPath struct {
	Path       string          `json:"path" privacy:"plain"`
	Kind       string          `json:"kind" privacy:"plain"`
	Severity   Severity        `json:"severity" privacy:"plain"`
	StatusCode int             `json:"status_code"`
	Evidence   string          `json:"evidence" privacy:"plain"`
	Secrets    []SecretFinding `json:"secrets,omitempty"`
}
