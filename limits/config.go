package limits

import (
	"fmt"
	"log/slog"
	"time"
)

// Bounds on configuration and inputs. They keep stored state and query cost
// bounded whatever a caller passes.
const (
	// MaxRateLimit is the largest Limit a RatePolicy may have; a sliding log
	// stores one timestamp per admission, so this bounds a key's state.
	MaxRateLimit = 10000
	// MaxIDLength bounds credential, tenant, tool, correlation and call ids.
	MaxIDLength = 256
	// MaxAuditQueryLimit bounds the rows one audit query returns.
	MaxAuditQueryLimit = 10000
)

// Defaults applied to zero fields of Config.
const (
	DefaultTransportLimit     = 120
	DefaultTransportWindow    = 60 * time.Second
	DefaultScanRateLimit      = 10
	DefaultScanRateWindow     = 60 * time.Second
	DefaultMonthlyScans       = 1000
	DefaultMaxConcurrentScans = 2
	DefaultScannerCapacity    = 16
	DefaultLeaseTTL           = 180 * time.Second
	DefaultTransportTimeout   = 250 * time.Millisecond
	DefaultTransportMaxWait   = 5 * time.Second
	DefaultScanTimeout        = 500 * time.Millisecond
	DefaultScanMaxWait        = 5 * time.Second
	DefaultUnavailableRetry   = 2 * time.Second
	DefaultAuditQueryLimit    = 100
)

// RatePolicy is a sliding-log rate limit: at most Limit admissions in any
// interval of length Window.
type RatePolicy struct {
	// Limit is the number of admissions allowed per Window. Zero means the
	// default of the field that holds the policy. At most MaxRateLimit.
	Limit int
	// Window is the length of the rolling window. Zero means the default of
	// the field that holds the policy. At least one millisecond.
	Window time.Duration
}

func (p RatePolicy) withDefaults(limit int, window time.Duration) RatePolicy {
	if p.Limit == 0 {
		p.Limit = limit
	}
	if p.Window == 0 {
		p.Window = window
	}
	return p
}

func (p RatePolicy) validate(name string) error {
	if p.Limit < 1 || p.Limit > MaxRateLimit {
		return fmt.Errorf("limits: %s limit %d out of range [1, %d]", name, p.Limit, MaxRateLimit)
	}
	if p.Window < time.Millisecond {
		return fmt.Errorf("limits: %s window %v shorter than 1ms", name, p.Window)
	}
	return nil
}

// Config sets the limits. The zero value is the documented default for every
// field, so &Config{} (or nil) is a complete, safe configuration.
type Config struct {
	// Transport is the per-credential request limit applied by the HTTP
	// layer. Zero fields: 120 requests per 60 s.
	Transport RatePolicy
	// ScanRate is the short per-credential window for scans that consume
	// quota. Zero fields: 10 scans per 60 s.
	ScanRate RatePolicy
	// MonthlyScans is the per-credential allowance of charged scans per UTC
	// calendar month. Zero: 1000. Negative: no monthly cap (usage is still
	// counted).
	MonthlyScans int64
	// MaxConcurrentScans is how many scans one credential may run at once.
	// Zero: 2. Negative is invalid.
	MaxConcurrentScans int
	// ScannerCapacity is how many scans may run at once across all
	// credentials sharing the store. Zero: 16. Negative is invalid.
	ScannerCapacity int
	// LeaseTTL is how long a scan slot stays held without renewal; it is the
	// bound after which an abandoned slot is reclaimed. Zero: 180 s. At
	// least 3 s, so that renewals every TTL/3 are meaningful.
	LeaseTTL time.Duration
	// TransportTimeout is how long a transport rate-limit decision waits
	// on a store that answers nothing: once neither the call nor any other
	// store call of the Limiter has been answered for this long, the store
	// is taken to be down and the request is refused with
	// rate_limit_unavailable. While the store keeps answering other calls
	// (it is slow, not down) the decision waits its turn, up to
	// TransportMaxWait, and after the store has stalled for longer the
	// quiet period grows to twice that stall for a while (see
	// deadline.go). Zero: 250 ms.
	TransportTimeout time.Duration
	// TransportMaxWait bounds a transport decision however busy the store
	// is. Zero: 5 s (at 2 s, a few decisions in 40,000 on a host at load
	// 21 were refused while the store answered the others).
	TransportMaxWait time.Duration
	// ScanTimeout is TransportTimeout for scan admissions, renewals,
	// releases, refunds, usage reads and audit writes. Zero: 500 ms.
	ScanTimeout time.Duration
	// ScanMaxWait bounds those calls however busy the store is. Zero: 5 s.
	ScanMaxWait time.Duration
	// UnavailableRetryAfter is the Retry-After hint returned with
	// *_unavailable errors. Zero: 2 s.
	UnavailableRetryAfter time.Duration
	// Now is the clock. Nil: time.Now. Tests inject a controlled clock.
	Now func() time.Time
	// Logger receives, at warn, the cause of refusals for a store that
	// cannot be evaluated (which store call, how long it waited, the
	// error), once per run of failures, and at info when the store
	// answers again. Nil: discarded.
	Logger *slog.Logger
}

// withDefaults returns a copy of c with every zero field set to its default.
func (c *Config) withDefaults() Config {
	var out Config
	if c != nil {
		out = *c
	}
	out.Transport = out.Transport.withDefaults(DefaultTransportLimit, DefaultTransportWindow)
	out.ScanRate = out.ScanRate.withDefaults(DefaultScanRateLimit, DefaultScanRateWindow)
	if out.MonthlyScans == 0 {
		out.MonthlyScans = DefaultMonthlyScans
	}
	if out.MaxConcurrentScans == 0 {
		out.MaxConcurrentScans = DefaultMaxConcurrentScans
	}
	if out.ScannerCapacity == 0 {
		out.ScannerCapacity = DefaultScannerCapacity
	}
	if out.LeaseTTL == 0 {
		out.LeaseTTL = DefaultLeaseTTL
	}
	if out.TransportTimeout == 0 {
		out.TransportTimeout = DefaultTransportTimeout
	}
	if out.TransportMaxWait == 0 {
		out.TransportMaxWait = DefaultTransportMaxWait
	}
	if out.ScanTimeout == 0 {
		out.ScanTimeout = DefaultScanTimeout
	}
	if out.ScanMaxWait == 0 {
		out.ScanMaxWait = DefaultScanMaxWait
	}
	if out.UnavailableRetryAfter == 0 {
		out.UnavailableRetryAfter = DefaultUnavailableRetry
	}
	if out.Now == nil {
		out.Now = time.Now
	}
	if out.Logger == nil {
		out.Logger = slog.New(slog.DiscardHandler)
	}
	return out
}

func (c *Config) validate() error {
	if err := c.Transport.validate("transport"); err != nil {
		return err
	}
	if err := c.ScanRate.validate("scan rate"); err != nil {
		return err
	}
	if c.MaxConcurrentScans < 1 {
		return fmt.Errorf("limits: MaxConcurrentScans %d < 1", c.MaxConcurrentScans)
	}
	if c.ScannerCapacity < 1 {
		return fmt.Errorf("limits: ScannerCapacity %d < 1", c.ScannerCapacity)
	}
	if c.LeaseTTL < 3*time.Second {
		return fmt.Errorf("limits: LeaseTTL %v < 3s", c.LeaseTTL)
	}
	if c.TransportTimeout < 0 || c.ScanTimeout < 0 || c.TransportMaxWait < 0 || c.ScanMaxWait < 0 || c.UnavailableRetryAfter < 0 {
		return fmt.Errorf("limits: negative timeout")
	}
	return nil
}
