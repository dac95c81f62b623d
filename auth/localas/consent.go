package localas

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"html/template"
	"log/slog"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/warden-mcp/warden/auth/asstore"
)

// authorize serves the authorization endpoint. GET validates the request
// and shows the consent page; POST carries the person's decision, and
// only from this server's own page: same Origin, and a consent token
// bound to the exact request that only the page contains.
func (s *Server) authorize(w http.ResponseWriter, r *http.Request) {
	if r.Method == http.MethodPost {
		s.decide(w, r)
		return
	}
	ctx := r.Context()
	q := r.URL.Query()
	ar, e := s.authorizeRequest(ctx, q)
	if e != nil {
		s.logRefusal(ctx, "authorization request refused", e)
		s.writeAuthorizeError(w, ar, e)
		return
	}
	s.renderConsent(w, r, ar, q)
}

// consentToken binds a consent page to one authorization request for a
// few minutes, once: 8 bytes of expiry, 16 random bytes that name this
// page, and an HMAC over both and the request. The decision spends the
// name (see decide), so the page's form cannot be posted twice.
func (s *Server) consentToken(canonical string, exp time.Time) string {
	head := binary.BigEndian.AppendUint64(nil, uint64(exp.Unix()))
	head = append(head, make([]byte, consentNonceLen)...)
	rand.Read(head[8:])
	return base64.RawURLEncoding.EncodeToString(s.consentMAC(head, canonical))
}

const consentNonceLen = 16

// consentMAC appends to head (expiry and nonce) its HMAC with the request.
func (s *Server) consentMAC(head []byte, canonical string) []byte {
	m := hmac.New(sha256.New, s.csrfKey)
	m.Write(head)
	m.Write([]byte(canonical))
	return m.Sum(head)
}

// checkConsentToken reports whether tok is a live consent token of this
// server for the request, and returns the page's name and expiry.
func (s *Server) checkConsentToken(canonical, tok string) (name string, exp time.Time, ok bool) {
	raw, err := base64.RawURLEncoding.DecodeString(tok)
	const head = 8 + consentNonceLen
	if err != nil || len(raw) != head+sha256.Size {
		return "", time.Time{}, false
	}
	exp = time.Unix(int64(binary.BigEndian.Uint64(raw[:8])), 0)
	if !time.Now().Before(exp) {
		return "", time.Time{}, false
	}
	want := s.consentMAC(append([]byte(nil), raw[:head]...), canonical)
	if subtle.ConstantTimeCompare(raw, want) != 1 {
		return "", time.Time{}, false
	}
	return hex.EncodeToString(raw[8:head]), exp, true
}

// decide takes the person's decision from the consent page.
func (s *Server) decide(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	// The page is this server's own: a cross-site form or a page on a
	// rebinding host name cannot post here.
	origin := r.Header.Values("Origin")
	if len(origin) != 1 || origin[0] != "http://"+r.Host {
		s.log.LogAttrs(ctx, slog.LevelWarn, "oauth: consent refused: foreign or missing Origin")
		writeJSONError(w, http.StatusForbidden, "access_denied", "the decision must come from this server's consent page")
		return
	}
	if site := r.Header.Get("Sec-Fetch-Site"); site != "" && site != "same-origin" {
		writeJSONError(w, http.StatusForbidden, "access_denied", "the decision must come from this server's consent page")
		return
	}
	r.Body = http.MaxBytesReader(w, r.Body, maxFormBytes)
	if err := r.ParseForm(); err != nil {
		writeJSONError(w, http.StatusBadRequest, "invalid_request", "unreadable form")
		return
	}
	q, err := url.ParseQuery(r.PostForm.Get("request"))
	if err != nil {
		writeJSONError(w, http.StatusBadRequest, "invalid_request", "unreadable authorization request")
		return
	}
	page, exp, ok := s.checkConsentToken(q.Encode(), r.PostForm.Get("consent"))
	if !ok {
		s.log.LogAttrs(ctx, slog.LevelWarn, "oauth: consent refused: bad or expired consent token")
		writeJSONError(w, http.StatusForbidden, "access_denied", "the consent page expired or was not this server's; start the connection again")
		return
	}
	ar, e := s.authorizeRequest(ctx, q)
	if e != nil {
		s.logRefusal(ctx, "authorization request refused", e)
		s.writeAuthorizeError(w, ar, e)
		return
	}
	client := ar.client.ID
	// A page decides once, whatever it decides: its name is recorded
	// until the page would have expired, and a second post finds it.
	switch err := s.st.PutToken(ctx, asstore.Token{Kind: asstore.KindConsent, Signature: page, GrantID: page, ClientID: client,
		ExpiresAt: exp}); {
	case errors.Is(err, asstore.ErrExists):
		s.log.LogAttrs(ctx, slog.LevelWarn, "oauth: consent refused: the page was used already", slog.String("client_id", client))
		writeJSONError(w, http.StatusForbidden, "access_denied", "this consent page was used already; start the connection again")
		return
	case err != nil:
		s.log.LogAttrs(ctx, slog.LevelError, "oauth: recording a consent failed", slog.String("cause", err.Error()))
		writeJSONError(w, http.StatusServiceUnavailable, "temporarily_unavailable", "the decision cannot be recorded now; retry later")
		return
	}
	if r.PostForm.Get("decision") != "allow" {
		s.log.LogAttrs(ctx, slog.LevelInfo, "oauth: access denied at the consent page", slog.String("client_id", client))
		s.writeAuthorizeError(w, ar, &protocolError{"access_denied", "Access was denied on the consent page.", http.StatusForbidden})
		return
	}
	code, sig := s.tokens.generate(codePrefix)
	g := &grant{ID: randomID(), ClientID: client, RequestedAt: time.Now(), Scopes: ar.scopes,
		Subject: "oauth:" + client, Entitlements: []string{"*"}, RedirectURI: ar.redirectParam, Challenge: ar.challenge}
	rec, err := s.record(asstore.KindCode, sig, g, g.RequestedAt.Add(DefaultCodeLifetime))
	if err == nil {
		err = s.st.PutToken(ctx, rec)
	}
	if err != nil {
		s.writeAuthorizeError(w, ar, s.storeFailed(ctx, err))
		return
	}
	s.log.LogAttrs(ctx, slog.LevelInfo, "oauth: access granted", slog.String("client_id", client))
	params := url.Values{"code": {code}}
	if len(ar.scopes) > 0 {
		params.Set("scope", strings.Join(ar.scopes, " "))
	}
	s.redirectWith(w, ar, params)
}

type consentView struct {
	ClientName  string
	ClientID    string
	RedirectURI string
	Resource    string
	Tools       []Tool
	Request     string
	Consent     string
	Refresh     string
}

func (s *Server) renderConsent(w http.ResponseWriter, r *http.Request, ar *authRequest, q url.Values) {
	c := ar.client
	canonical := q.Encode()
	v := consentView{
		ClientName:  c.Name,
		ClientID:    c.ID,
		RedirectURI: ar.redirect.String(),
		Resource:    s.opts.Resource,
		Request:     canonical,
		Consent:     s.consentToken(canonical, time.Now().Add(consentLifetime)),
		Refresh:     humanDays(s.opts.RefreshTokenLifetime),
	}
	if s.opts.Tools != nil {
		v.Tools = s.opts.Tools()
	}
	h := w.Header()
	h.Set("Content-Type", "text/html; charset=utf-8")
	h.Set("Content-Security-Policy", "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'; base-uri 'none'")
	h.Set("X-Frame-Options", "DENY")
	// same-origin, not no-referrer: under no-referrer a browser sends
	// "Origin: null" with the form, which decide must refuse.
	h.Set("Referrer-Policy", "same-origin")
	if err := consentPage.Execute(w, v); err != nil {
		s.log.LogAttrs(r.Context(), slog.LevelError, "oauth: rendering the consent page failed", slog.String("cause", err.Error()))
	}
}

func humanDays(d time.Duration) string {
	switch days := int(d / (24 * time.Hour)); {
	case days == 1:
		return "1 day"
	case days > 1:
		return strconv.Itoa(days) + " days"
	}
	return d.String()
}

// consentPage names the client, where it will be sent back to, and what
// it will reach. html/template escapes every value.
var consentPage = template.Must(template.New("consent").Parse(`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>Allow {{.ClientName}} to use Warden?</title>
<style>
body{font:16px/1.5 system-ui,sans-serif;max-width:40em;margin:3em auto;padding:0 1em;color:#1a1a1a}
h1{font-size:1.4em} code{background:#f2f2f2;padding:0 .25em;word-break:break-all}
ul.tools{max-height:16em;overflow:auto;border:1px solid #ddd;padding:.5em 1.5em}
.buttons{margin-top:1.5em} button{font-size:1em;padding:.5em 1.5em;margin-right:1em}
.note{color:#555;font-size:.9em}
</style></head>
<body>
<h1>Allow <strong id="client-name">{{.ClientName}}</strong> to use Warden?</h1>
<p>A program on this computer registered as <strong>{{.ClientName}}</strong> (client <code>{{.ClientID}}</code>)
asks to call the tools of the Warden server at <code>{{.Resource}}</code> for you.</p>
<p>If you allow it, your browser goes back to <code id="redirect-uri">{{.RedirectURI}}</code>.</p>
{{if .Tools}}<p>It will be able to call every tool this server serves ({{len .Tools}}):</p>
<ul class="tools" id="tools">{{range .Tools}}<li><code>{{.Name}}</code>{{if .Title}} — {{.Title}}{{end}}</li>{{end}}</ul>
{{else}}<p>It will be able to call every tool this server serves.</p>{{end}}
<p class="note">Access renews itself while the client is used and ends after {{.Refresh}} without use, or when
the client revokes it. Only someone on this computer can see this page. If you did not start connecting a
client just now, choose Deny.</p>
<form method="post" action="/oauth/authorize">
<input type="hidden" name="request" value="{{.Request}}">
<input type="hidden" name="consent" value="{{.Consent}}">
<div class="buttons">
<button type="submit" name="decision" value="allow" id="allow">Allow</button>
<button type="submit" name="decision" value="deny" id="deny">Deny</button>
</div>
</form>
</body></html>
`))
