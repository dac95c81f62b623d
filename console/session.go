package console

import (
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/warden-mcp/warden/approval"
	"github.com/warden-mcp/warden/auth"
	"github.com/warden-mcp/warden/policy"
)

// Session is who is signed in: a caller (issuer, tenant, credential), or
// the owner of every credential of a tenant (the local user).
type Session struct {
	Issuer     string `json:"iss"`
	Tenant     string `json:"ten"`
	Credential string `json:"cred,omitempty"`
	// Owner: the session speaks for every credential of its issuer and
	// tenant.
	Owner bool `json:"own,omitempty"`
	// Name is shown and recorded as who decided.
	Name    string `json:"name"`
	Expires int64  `json:"exp"`
	// Nonce names the session; CSRF tokens are bound to it.
	Nonce string `json:"n"`
}

func (s Session) principal() auth.Principal {
	return auth.Principal{Issuer: s.Issuer, Tenant: s.Tenant, Credential: s.Credential}
}

// MayDecide reports whether the session speaks for r's caller.
func (s Session) MayDecide(r approval.Request) bool {
	p := s.principal()
	if s.Owner {
		return subtle.ConstantTimeCompare([]byte(r.Owner), []byte(policy.ApprovalOwner(p))) == 1
	}
	return s.Credential != "" && subtle.ConstantTimeCompare([]byte(r.Caller), []byte(policy.ApprovalCaller(p))) == 1
}

// cookieName is the session cookie. Its value is the session's JSON and
// its HMAC, both base64url; it holds no token.
const cookieName = "warden_console"

type sessionKey struct{}

// signedIn serves next only with a valid session; a page without one
// sends the browser to sign in and back.
func (h *Handler) signedIn(next func(http.ResponseWriter, *http.Request, Session)) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		s, ok := h.session(r)
		if !ok {
			if r.Method == http.MethodGet && r.URL.Path != Path+"/events" && !strings.HasPrefix(r.URL.Path, Path+"/findings/export") {
				http.Redirect(w, r, Path+"/signin?next="+urlQueryEscape(r.URL.Path), http.StatusSeeOther)
				return
			}
			h.fail(w, r, http.StatusUnauthorized, "sign_in_required", "Sign in to the console first.")
			return
		}
		next(w, r.WithContext(context.WithValue(r.Context(), sessionKey{}, s)), s)
	}
}

func (h *Handler) mac(parts ...[]byte) []byte {
	m := hmac.New(sha256.New, h.o.Key)
	for _, p := range parts {
		m.Write(p)
		m.Write([]byte{0})
	}
	return m.Sum(nil)
}

// session reads and checks the session cookie.
func (h *Handler) session(r *http.Request) (Session, bool) {
	c, err := r.Cookie(cookieName)
	if err != nil || len(c.Value) > 4096 {
		return Session{}, false
	}
	body, sig, ok := strings.Cut(c.Value, ".")
	if !ok {
		return Session{}, false
	}
	raw, err1 := base64.RawURLEncoding.DecodeString(body)
	mac, err2 := base64.RawURLEncoding.DecodeString(sig)
	if err1 != nil || err2 != nil || !hmac.Equal(mac, h.mac([]byte("session"), raw)) {
		return Session{}, false
	}
	var s Session
	if json.Unmarshal(raw, &s) != nil || h.o.Now().Unix() >= s.Expires || s.Nonce == "" {
		return Session{}, false
	}
	return s, true
}

// startSession sets the session cookie for s.
func (h *Handler) startSession(w http.ResponseWriter, s Session) {
	s.Expires = h.o.Now().Add(h.o.SessionLifetime).Unix()
	var n [16]byte
	rand.Read(n[:])
	s.Nonce = hex.EncodeToString(n[:])
	raw, _ := json.Marshal(s)
	v := base64.RawURLEncoding.EncodeToString(raw) + "." + base64.RawURLEncoding.EncodeToString(h.mac([]byte("session"), raw))
	http.SetCookie(w, &http.Cookie{Name: cookieName, Value: v, Path: Path, HttpOnly: true, Secure: h.secure,
		SameSite: http.SameSiteStrictMode, MaxAge: int(h.o.SessionLifetime / time.Second)})
}

// csrf is the session's CSRF token for one form action.
func (h *Handler) csrf(s Session, action string) string {
	return base64.RawURLEncoding.EncodeToString(h.mac([]byte("csrf"), []byte(s.Nonce), []byte(action)))
}

func (h *Handler) checkCSRF(r *http.Request, s Session, action string) bool {
	got := r.PostFormValue("csrf")
	return got != "" && hmac.Equal([]byte(got), []byte(h.csrf(s, action)))
}

// A one-time sign-in link carries its session, expiry and a random nonce,
// signed with the console's key, so any replica (or the warden command
// that minted it) reads it; the nonce is spent once, in the store when
// Options.SpendLink is set, so a link works once across replicas.
type linkBody struct {
	S   Session `json:"s"`
	Exp int64   `json:"exp"`
	N   string  `json:"n"`
}

// DeriveKey derives the console's key (Options.Key) from a secret every
// replica shares.
func DeriveKey(shared []byte) []byte {
	m := hmac.New(sha256.New, shared)
	m.Write([]byte("warden console sessions"))
	return m.Sum(nil)
}

// MintLink returns a one-time link that signs a browser in to the console
// at origin as s until exp; key is the console's key (DeriveKey). The
// warden command mints links for an API key's owner with it.
func MintLink(key []byte, origin string, s Session, exp time.Time) string {
	var n [16]byte
	rand.Read(n[:])
	raw, _ := json.Marshal(linkBody{S: s, Exp: exp.Unix(), N: hex.EncodeToString(n[:])})
	m := hmac.New(sha256.New, key)
	for _, p := range [][]byte{[]byte("link"), raw} {
		m.Write(p)
		m.Write([]byte{0})
	}
	code := base64.RawURLEncoding.EncodeToString(raw) + "." + base64.RawURLEncoding.EncodeToString(m.Sum(nil))
	return strings.TrimSuffix(origin, "/") + Path + "/signin?code=" + code
}

// SignInLink mints a one-time link that signs a browser in as s (Owner
// set: the owner of s's tenant) within ttl.
func (h *Handler) SignInLink(s Session, ttl time.Duration) (string, error) {
	if ttl <= 0 || ttl > 7*24*time.Hour {
		return "", errorf("console: a sign-in link lives between a second and a week")
	}
	return MintLink(h.o.Key, h.o.Origin, s, h.o.Now().Add(ttl)), nil
}

// spentLinks are the nonces of links used, when no store keeps them:
// bounded, each until its link's expiry.
type spentLinks struct {
	mu    sync.Mutex
	until map[string]time.Time
}

// maxSpent bounds the nonces kept in memory.
const maxSpent = 10000

// spend checks a link's code and spends it, once.
func (h *Handler) spend(ctx context.Context, code string) (Session, bool) {
	body, sig, ok := strings.Cut(code, ".")
	if !ok || len(code) > 4096 {
		return Session{}, false
	}
	raw, err1 := base64.RawURLEncoding.DecodeString(body)
	mac, err2 := base64.RawURLEncoding.DecodeString(sig)
	if err1 != nil || err2 != nil || !hmac.Equal(mac, h.mac([]byte("link"), raw)) {
		return Session{}, false
	}
	var l linkBody
	now := h.o.Now()
	if json.Unmarshal(raw, &l) != nil || l.N == "" || now.Unix() >= l.Exp {
		return Session{}, false
	}
	exp := time.Unix(l.Exp, 0)
	if h.o.SpendLink != nil {
		if err := h.o.SpendLink(ctx, l.N, exp); err != nil {
			return Session{}, false // spent already, or the store cannot tell: refused
		}
		return l.S, true
	}
	h.spent.mu.Lock()
	defer h.spent.mu.Unlock()
	for k, t := range h.spent.until {
		if !now.Before(t) {
			delete(h.spent.until, k)
		}
	}
	if _, used := h.spent.until[l.N]; used || len(h.spent.until) >= maxSpent {
		return Session{}, false
	}
	h.spent.until[l.N] = exp
	return l.S, true
}

// signInPage shows the sign-in form: a one-time link's code in a hidden
// field (a GET spends nothing, so a link preview cannot use it up), and
// the field for a token or API key.
func (h *Handler) signInPage(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	h.render(w, http.StatusOK, "signin", page{Title: "Sign in", Code: q.Get("code"), Next: safeNext(q.Get("next")),
		TokenSignIn: h.o.Authenticate != nil})
}

// signIn spends a sign-in code, or verifies a pasted token or API key, and
// starts a session for its caller.
func (h *Handler) signIn(w http.ResponseWriter, r *http.Request) {
	if !h.fails.allow(h.o.Now()) {
		h.fail(w, r, http.StatusTooManyRequests, "rate_limited", "Too many failed sign-ins; wait a minute.")
		return
	}
	next := safeNext(r.PostFormValue("next"))
	if code := r.PostFormValue("code"); code != "" {
		s, ok := h.spend(r.Context(), code)
		if !ok {
			h.fails.failed(h.o.Now())
			h.fail(w, r, http.StatusForbidden, "sign_in_link_invalid", "This sign-in link was used already or has expired.")
			return
		}
		h.startSession(w, s)
		http.Redirect(w, r, next, http.StatusSeeOther)
		return
	}
	token := strings.TrimSpace(r.PostFormValue("token"))
	if h.o.Authenticate == nil || token == "" {
		h.fail(w, r, http.StatusBadRequest, "sign_in_invalid", "Paste the access token or API key your client uses.")
		return
	}
	p, err := h.o.Authenticate(r.Context(), token)
	if err != nil {
		h.fails.failed(h.o.Now())
		h.o.Logger.Info("console sign-in refused")
		h.fail(w, r, http.StatusForbidden, "sign_in_refused", "That token or API key was not accepted.")
		return
	}
	name := p.Subject
	if name == "" {
		name = policy.CredentialOf(p)
	}
	h.startSession(w, Session{Issuer: p.Issuer, Tenant: p.Tenant, Credential: policy.CredentialOf(p), Name: name})
	http.Redirect(w, r, next, http.StatusSeeOther)
}

// signOut ends the session in this browser.
func (h *Handler) signOut(w http.ResponseWriter, r *http.Request, s Session) {
	if !h.checkCSRF(r, s, "signout") {
		h.fail(w, r, http.StatusForbidden, "csrf_invalid", "This form has expired; reload the page.")
		return
	}
	http.SetCookie(w, &http.Cookie{Name: cookieName, Value: "", Path: Path, HttpOnly: true, Secure: h.secure,
		SameSite: http.SameSiteStrictMode, MaxAge: -1})
	http.Redirect(w, r, Path+"/signin", http.StatusSeeOther)
}

// safeNext keeps a return path inside the console; anything else goes
// home.
func safeNext(next string) string {
	if !strings.HasPrefix(next, Path+"/") || strings.ContainsAny(next, "\\\r\n") || strings.Contains(next, "//") || len(next) > 200 {
		return Path + "/approvals"
	}
	return next
}

// failRate bounds failed sign-ins: at most 20 a minute across the
// console, so a pasted-token form is no oracle for guessing keys.
type failRate struct {
	mu    sync.Mutex
	start time.Time
	n     int
}

const maxFailsPerMinute = 20

func (f *failRate) allow(now time.Time) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	if now.Sub(f.start) >= time.Minute {
		f.start, f.n = now, 0
	}
	return f.n < maxFailsPerMinute
}

func (f *failRate) failed(now time.Time) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if now.Sub(f.start) >= time.Minute {
		f.start, f.n = now, 0
	}
	f.n++
}
