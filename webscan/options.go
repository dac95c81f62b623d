package webscan

import (
	"context"
	"crypto/x509"
	"net"
	"net/http"
	"time"
)

// Doer sends one HTTP request. In production it is an SSRF-safe client that
// does not follow redirects (the scanner follows and records them itself, so
// every hop goes back through the Doer and is re-validated) and caps bodies.
// *http.Client satisfies it.
type Doer interface {
	Do(*http.Request) (*http.Response, error)
}

// DialFunc opens a raw connection for the TLS probes. In production it
// applies the same SSRF policy as the Doer.
type DialFunc func(ctx context.Context, network, addr string) (net.Conn, error)

// SecretFinding is a secret seen in an exposed file, reported by type and
// fingerprint only. It never carries the secret itself.
type SecretFinding struct {
	// Type names the kind of secret, e.g. "aws_access_key_id".
	Type string `json:"type" privacy:"plain"`
	// Fingerprint identifies the secret without revealing it, e.g. a
	// truncated SHA-256 of the value.
	Fingerprint string `json:"fingerprint" privacy:"plain"`
	// Line is the 1-based line of the match, or 0 when unknown.
	Line int `json:"line,omitempty"`
}

// SecretScanFunc reports the secrets found in text. It must not return or
// log the secret values.
type SecretScanFunc func(ctx context.Context, text string) []SecretFinding

// Options configures a Scanner. The zero value of every field is a safe
// default, described on the field.
type Options struct {
	// HTTP sends every HTTP request. Nil makes Scan fail with code
	// "not_configured": the scanner never falls back to an unguarded client.
	HTTP Doer
	// Dial opens the TCP connections of the TLS probes. Nil disables the
	// TLS probes: the TLS section is reported as not tested (never passed).
	Dial DialFunc
	// RootCAs verifies certificate chains. Nil uses the system roots.
	RootCAs *x509.CertPool
	// Now is the clock used for certificate validity and security.txt
	// expiry. Nil uses time.Now.
	Now func() time.Time
	// Concurrency bounds the simultaneous probes (exposure paths and TLS
	// handshakes). Zero means 8; values above 32 are lowered to 32.
	Concurrency int
	// Timeout bounds the whole scan. Zero means 60 seconds. Probes stop a
	// tenth of it (at most 2 s) earlier so that a slow site still gets a
	// report, with the unanswered probes counted.
	Timeout time.Duration
	// RequestTimeout bounds each request or handshake. Zero means 10 seconds.
	RequestTimeout time.Duration
	// MaxRedirects bounds each redirect chain. Zero means 10, as browsers
	// and the MDN HTTP Observatory follow at least that many (a login or
	// locale chain often takes four); values above 10 are lowered to 10.
	MaxRedirects int
	// MaxBodyBytes bounds the page body read. Zero means 2 MiB; values
	// above 2 MiB are lowered to 2 MiB. Exposure probes read at most 64 KiB.
	MaxBodyBytes int64
	// UserAgent is sent with every request. Empty means "Warden-webscan/1".
	UserAgent string
	// SecretScan, when set, is called on the content of every confirmed
	// exposed file; its findings are reported as type and fingerprint only.
	SecretScan SecretScanFunc
	// SkipCipherProbes disables the per-suite TLS 1.0–1.2 handshakes (22
	// with Go 1.26). Zero (false) probes every suite crypto/tls implements.
	SkipCipherProbes bool
	// Preload looks a host up in the browsers' HSTS preload list. Nil uses
	// the list bundled with this package (LookupPreload).
	Preload func(host string) *PreloadEntry
	// SkipExposure disables the sensitive-path probes. Zero (false) probes them.
	SkipExposure bool
	// CAA answers the CAA queries of the domain's certificate-authority
	// policy, through the same resolver as the fetches. Nil: CAA is not
	// tested (result.caa.tested is false, never "no records").
	CAA CAALookupFunc
}

const (
	defaultConcurrency    = 8
	maxConcurrency        = 32
	defaultTimeout        = 60 * time.Second
	defaultRequestTimeout = 10 * time.Second
	maxRedirects          = 10
	maxBodyBytes          = 2 << 20
	probeBodyBytes        = 64 << 10
	maxURLLength          = 2048
	defaultUserAgent      = "Warden-webscan/1"
)

// withDefaults returns a copy of o with every zero field set.
func (o Options) withDefaults() Options {
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.Concurrency <= 0 {
		o.Concurrency = defaultConcurrency
	}
	if o.Concurrency > maxConcurrency {
		o.Concurrency = maxConcurrency
	}
	if o.Timeout <= 0 {
		o.Timeout = defaultTimeout
	}
	if o.RequestTimeout <= 0 {
		o.RequestTimeout = defaultRequestTimeout
	}
	if o.MaxRedirects <= 0 || o.MaxRedirects > maxRedirects {
		o.MaxRedirects = maxRedirects
	}
	if o.MaxBodyBytes <= 0 || o.MaxBodyBytes > maxBodyBytes {
		o.MaxBodyBytes = maxBodyBytes
	}
	if o.Preload == nil {
		o.Preload = LookupPreload
	}
	if o.UserAgent == "" {
		o.UserAgent = defaultUserAgent
	}
	return o
}
