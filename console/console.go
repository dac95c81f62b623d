// Package console serves Warden's console at /console: the page where a
// person decides an out-of-band approval request (/console/approvals/{id}),
// the pending requests live and their history, the tenant's findings with
// their exports, the audit trail and the server's settings, read-only.
//
// It is server-rendered HTML (html/template escapes every value) with one
// small script of its own for the live list, and no asset from anywhere
// else. Every answer carries a Content-Security-Policy that allows only
// the console's own script and style and forbids framing; every form
// carries a CSRF token bound to the session, and every POST must come
// from the console's own origin.
//
// A person signs in as a caller: with a one-time sign-in link the server
// mints (the local user: the owner of every credential of the local
// tenant), or by pasting the access token or API key their client uses,
// which the MCP endpoint's own authentication verifies. A session is a
// signed cookie, so every replica that shares the key reads it. A person
// sees and decides only the requests of the caller they signed in as.
package console

import (
	"context"
	"embed"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/warden-mcp/warden/approval"
	"github.com/warden-mcp/warden/auth"
	"github.com/warden-mcp/warden/finding"
	"github.com/warden-mcp/warden/limits"
	"github.com/warden-mcp/warden/viewstore"
)

// Path is where the console is served; Path + "/approvals/{id}" is an
// approval request's page.
const Path = "/console"

// Options configure a Handler. Origin, Key and Requests are required;
// every other zero field says what it leaves out.
type Options struct {
	// Origin is the console's public origin ("http://127.0.0.1:8787"),
	// the only Origin a POST may carry.
	Origin string
	// Key signs sessions and CSRF tokens: at least 32 bytes, the same on
	// every replica.
	Key []byte
	// Requests are the out-of-band approval requests.
	Requests approval.RequestStore
	// Authenticate verifies a pasted access token or API key as the MCP
	// endpoint does. Nil: sign-in links only.
	Authenticate func(ctx context.Context, token string) (auth.Principal, error)
	// Findings are the tenant's findings. Nil: no Findings page.
	Findings finding.Store
	// Statuses keeps the findings' triage states. Nil: findings cannot
	// be marked.
	Statuses finding.StatusStore
	// Views lists a caller's open binary views. Nil: no Binary views
	// page.
	Views func(ctx context.Context, p auth.Principal) ([]viewstore.View, error)
	// Audit queries the audit trail. Nil: no Activity page.
	Audit func(ctx context.Context, f limits.AuditFilter) ([]limits.AuditRecord, error)
	// Record writes an audit record of a person's act on the console (a
	// decision, a finding marked), before the act: an act that cannot be
	// recorded is refused. Nil: acts are not recorded.
	Record func(ctx context.Context, r limits.AuditRecord) error
	// Settings are the read-only settings shown to a session. Nil: none.
	Settings func(ctx context.Context, s Session) []Setting
	// Version names the server in exports.
	Version string
	// ApprovalTTL is how long an approval for the session lasts, for the
	// page's wording. Zero: not stated.
	ApprovalTTL time.Duration
	// SpendLink marks a one-time sign-in link's nonce used until its
	// expiry, and fails if it was used already (or cannot be marked): a
	// store every replica shares. Nil: this process remembers them.
	SpendLink func(ctx context.Context, nonce string, until time.Time) error
	// PerMinute bounds the requests of one source address a minute
	// (hosted servers). Zero: no bound (one person on loopback).
	PerMinute int
	// SessionLifetime: zero, 12 hours.
	SessionLifetime time.Duration
	// Poll is how often the live list looks for changes. Zero: 2 s.
	Poll time.Duration
	// Logger receives refusals of note, never a token. Nil discards.
	Logger *slog.Logger
	// Now is the clock. Nil: time.Now.
	Now func() time.Time
}

// Setting is one read-only line of the Settings page.
type Setting struct {
	Name, Value string
}

// Handler serves the console. Build it with New.
type Handler struct {
	o       Options
	secure  bool // the origin is https: cookies are Secure
	mux     *http.ServeMux
	spent   spentLinks
	rate    pageRate
	fails   failRate
	streams chan struct{} // bounds the live streams
}

// maxStreams bounds the live lists open at once.
const maxStreams = 64

// New returns the console for o.
func New(o Options) (*Handler, error) {
	u, err := url.Parse(o.Origin)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || (u.Path != "" && u.Path != "/") {
		return nil, errorf("console: Options.Origin must be an http(s) origin")
	}
	if len(o.Key) < 32 {
		return nil, errorf("console: Options.Key must be at least 32 bytes")
	}
	if o.Requests == nil {
		return nil, errorf("console: Options.Requests is required")
	}
	o.Origin = u.Scheme + "://" + u.Host
	if o.SessionLifetime <= 0 {
		o.SessionLifetime = 12 * time.Hour
	}
	if o.Poll <= 0 {
		o.Poll = 2 * time.Second
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	h := &Handler{o: o, secure: u.Scheme == "https", streams: make(chan struct{}, maxStreams)}
	h.spent.until = map[string]time.Time{}
	h.rate.per = float64(o.PerMinute)
	m := http.NewServeMux()
	m.HandleFunc("GET "+Path, h.signedIn(h.home))
	m.HandleFunc("GET "+Path+"/{$}", h.signedIn(h.home))
	m.HandleFunc("GET "+Path+"/signin", h.signInPage)
	m.HandleFunc("POST "+Path+"/signin", h.signIn)
	m.HandleFunc("POST "+Path+"/signout", h.signedIn(h.signOut))
	m.HandleFunc("GET "+Path+"/approvals", h.signedIn(h.approvals))
	m.HandleFunc("GET "+Path+"/approvals/{id}", h.signedIn(h.approvalPage))
	m.HandleFunc("POST "+Path+"/approvals/{id}", h.signedIn(h.decide))
	m.HandleFunc("GET "+Path+"/events", h.signedIn(h.events))
	m.HandleFunc("GET "+Path+"/findings", h.signedIn(h.findings))
	m.HandleFunc("GET "+Path+"/findings/export", h.signedIn(h.exportFindings))
	m.HandleFunc("POST "+Path+"/findings/{id}/status", h.signedIn(h.markFinding))
	m.HandleFunc("GET "+Path+"/activity", h.signedIn(h.activity))
	m.HandleFunc("GET "+Path+"/views", h.signedIn(h.views))
	m.HandleFunc("GET "+Path+"/settings", h.signedIn(h.settings))
	m.HandleFunc("GET "+Path+"/static/{file}", h.static)
	h.mux = m
	return h, nil
}

type consoleError string

func (e consoleError) Error() string { return string(e) }

func errorf(s string) error { return consoleError(s) }

// csp allows the console's own script and style only, and no framing.
const csp = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; " +
	"form-action 'self'; frame-ancestors 'none'; base-uri 'none'"

// ServeHTTP serves every path under Path. POSTs must carry the console's
// own Origin (browsers send it on every form post), else 403.
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	hd := w.Header()
	hd.Set("Content-Security-Policy", csp)
	hd.Set("X-Frame-Options", "DENY")
	hd.Set("X-Content-Type-Options", "nosniff")
	// same-origin, not no-referrer: with no-referrer a browser sends
	// "Origin: null" on form posts, and the Origin check needs the real one.
	hd.Set("Referrer-Policy", "same-origin")
	hd.Set("Cache-Control", "no-store")
	hd.Set("Cross-Origin-Opener-Policy", "same-origin")
	hd.Set("Cross-Origin-Resource-Policy", "same-origin")
	if h.limited(w, r) {
		return
	}
	if r.Method == http.MethodPost && !h.sameOrigin(r) {
		h.fail(w, r, http.StatusForbidden, "origin_not_allowed", "This form must be sent from the console's own page.")
		return
	}
	if r.Method == http.MethodPost {
		r.Body = http.MaxBytesReader(w, r.Body, maxForm)
	}
	h.mux.ServeHTTP(w, r)
}

// maxForm bounds a form's body: a pasted token is the largest field.
const maxForm = 32 << 10

// sameOrigin reports whether a POST carries exactly the console's Origin.
// A POST without one is refused: every browser this serves sends it.
func (h *Handler) sameOrigin(r *http.Request) bool {
	o := r.Header.Values("Origin")
	return len(o) == 1 && strings.EqualFold(o[0], h.o.Origin)
}

// fail writes a short page for a refusal: a stable code and a public
// message, nothing of the cause.
func (h *Handler) fail(w http.ResponseWriter, r *http.Request, status int, code, msg string) {
	if status >= 500 {
		h.o.Logger.Warn("console refusal", "code", code, "path", r.URL.Path)
	}
	w.Header().Set("X-Warden-Error", code)
	h.render(w, status, "error", page{Title: "Not possible", Code: code, Message: msg})
}

//go:embed assets
var assets embed.FS

// static serves the console's own script and style.
func (h *Handler) static(w http.ResponseWriter, r *http.Request) {
	name := r.PathValue("file")
	var ctype string
	switch name {
	case "console.js":
		ctype = "text/javascript; charset=utf-8"
	case "console.css":
		ctype = "text/css; charset=utf-8"
	default:
		http.NotFound(w, r)
		return
	}
	b, err := assets.ReadFile("assets/" + name)
	if err != nil {
		http.NotFound(w, r)
		return
	}
	w.Header().Set("Content-Type", ctype)
	_, _ = w.Write(b)
}
