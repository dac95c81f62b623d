package cli

import (
	"fmt"
	"net/netip"
	"net/url"
	"strings"
	"time"

	"github.com/warden-mcp/warden/limits"
	"github.com/warden-mcp/warden/mcp"
	"github.com/warden-mcp/warden/policy"
)

// profile says whom a serving Warden serves, which decides the defaults of
// its limits.
type profile string

const (
	// profileLocal serves one person: warden stdio, or warden serve bound
	// to loopback with the local development key and a loopback public
	// URL. No request limit, no short scan window, no monthly quota, and
	// scans beyond the concurrency slots wait in line.
	profileLocal profile = "local"
	// profileHosted serves many: an external issuer, or anything reachable
	// beyond loopback. The documented limits apply and refuse at once.
	profileHosted profile = "hosted"
)

// localScanRate stands in for "no short scan window" in the local profile:
// the limiter always applies one, and 10,000 scans a second is beyond what
// one person's concurrency slots can ever admit.
var localScanRate = limits.RatePolicy{Limit: limits.MaxRateLimit, Window: time.Second}

// serveProfile is the profile of warden serve. Every sign must say one
// person for it to be local: a listener beyond loopback, an external
// issuer, or a public URL that names another host (a proxy in front) each
// make it hosted, whatever else is set.
func (c Config) serveProfile() profile {
	if c.loopback() && c.Auth.Issuer == "" && loopbackURL(c.PublicURL) {
		return profileLocal
	}
	return profileHosted
}

// loopbackURL reports whether raw is an http(s) URL on a loopback host.
func loopbackURL(raw string) bool {
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") {
		return false
	}
	h := u.Hostname()
	if h == "localhost" {
		return true
	}
	ip, err := netip.ParseAddr(h)
	return err == nil && ip.IsLoopback()
}

// limits is the limiter's configuration for p: what the file sets, and
// for what it leaves unset, the profile's default. The hosted defaults
// are the limiter's own.
func (c LimitsConfig) limits(p profile) *limits.Config {
	cfg := &limits.Config{
		Transport:          limits.RatePolicy{Limit: c.RequestsPerWindow, Window: time.Duration(c.RequestWindow)},
		ScanRate:           limits.RatePolicy{Limit: c.ScansPerWindow, Window: time.Duration(c.ScanWindow)},
		MonthlyScans:       c.MonthlyScans,
		MaxConcurrentScans: c.MaxConcurrentScans,
		ScannerCapacity:    c.ScannerCapacity,
		LeaseTTL:           time.Duration(c.LeaseTTL),
		TransportTimeout:   time.Duration(c.StoreTimeout),
		ScanTimeout:        time.Duration(c.StoreTimeout),
		TransportMaxWait:   time.Duration(c.StoreMaxWait),
		ScanMaxWait:        time.Duration(c.StoreMaxWait),
	}
	if p == profileLocal {
		if c.ScansPerWindow == 0 && c.ScanWindow == 0 {
			cfg.ScanRate = localScanRate
		}
		if c.MonthlyScans == 0 {
			cfg.MonthlyScans = -1 // counted, never capped
		}
	}
	return cfg
}

// transportLimited reports whether requests pass the per-credential
// transport rate limit: always when hosted, and when local only if the
// configuration asks for it.
func (c LimitsConfig) transportLimited(p profile) bool {
	return p == profileHosted || c.RequestsPerWindow != 0 || c.RequestWindow != 0
}

// The HTTP handler's server-wide caps as warden serve sets them: requests
// being served at once, legacy sessions, legacy GET streams.
const (
	serveMaxInFlight   = 256
	serveMaxSessions   = 1000
	serveMaxGETStreams = 1024
)

// httpCaps sets the HTTP handler's caps and how much of each one caller
// may take. Hosted, a caller gets the handler's default share (an eighth
// of the requests in flight, at most 32 legacy sessions, 64 GET streams),
// so that a few credentials cannot crowd out the rest. Local, every
// request comes from one person, often a parallel agent with dozens of
// calls in flight over one token: its share is the whole of each cap, so
// that it never meets a limit meant to keep credentials apart.
func (p profile) httpCaps(o *mcp.HTTPOptions) {
	o.MaxInFlight, o.MaxSessions, o.MaxGETStreams = serveMaxInFlight, serveMaxSessions, serveMaxGETStreams
	if p == profileLocal {
		o.MaxInFlightPerCaller, o.MaxSessionsPerCaller, o.MaxGETStreamsPerCaller = o.MaxInFlight, o.MaxSessions, o.MaxGETStreams
	}
}

// queue is the profile's waiting line for scan slots: local calls wait,
// hosted ones are refused at once.
func (p profile) queue() *policy.Queue {
	if p == profileLocal {
		return &policy.Queue{}
	}
	return nil
}

// describe says in one line which profile a server runs and what it
// means, for the person who started it.
func (c *controls) describe() string {
	l := c.lim.Config()
	var parts []string
	if c.transport {
		parts = append(parts, fmt.Sprintf("%d requests per %v", l.Transport.Limit, l.Transport.Window))
	}
	if l.ScanRate != localScanRate {
		parts = append(parts, fmt.Sprintf("%d scans per %v", l.ScanRate.Limit, l.ScanRate.Window))
	}
	if l.MonthlyScans >= 0 {
		parts = append(parts, fmt.Sprintf("%d scans a month", l.MonthlyScans))
	}
	parts = append(parts, fmt.Sprintf("%d concurrent scans", l.MaxConcurrentScans))
	if c.profile == profileLocal {
		limits := "no request limit, no per-minute scan limit, no monthly quota"
		if len(parts) > 1 {
			limits = strings.Join(parts[:len(parts)-1], ", ")
		}
		return fmt.Sprintf("local (one person): %s; %s, more wait in line (at most %v) instead of being refused",
			limits, parts[len(parts)-1], policy.DefaultQueueMaxWait)
	}
	return fmt.Sprintf("hosted: per credential %s; refusals carry retryAfterSeconds", strings.Join(parts, ", "))
}
