package localas

import (
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"mime"
	"net"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/warden-mcp/warden/auth/asstore"
)

// Registration bounds.
const (
	maxRegistrationBytes = 16 << 10
	maxClientNameBytes   = 200
	maxRedirectURIBytes  = 2048
)

// registration is the RFC 7591 client metadata Warden reads; other
// members are ignored.
type registration struct {
	RedirectURIs            []string `json:"redirect_uris"`
	ClientName              string   `json:"client_name"`
	GrantTypes              []string `json:"grant_types"`
	ResponseTypes           []string `json:"response_types"`
	TokenEndpointAuthMethod string   `json:"token_endpoint_auth_method"`
}

// register serves RFC 7591 dynamic client registration. Every client is
// public (token_endpoint_auth_method "none", whatever it asked for: PKCE
// is its proof), may use the code and refresh grants, and is bounded in
// count and size.
func (s *Server) register(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	if mt, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type")); mt != "application/json" {
		writeJSONError(w, http.StatusBadRequest, "invalid_client_metadata", "the registration must be JSON (Content-Type: application/json)")
		return
	}
	body, err := io.ReadAll(io.LimitReader(r.Body, maxRegistrationBytes+1))
	if err != nil || len(body) > maxRegistrationBytes {
		writeJSONError(w, http.StatusBadRequest, "invalid_client_metadata", "the registration is unreadable or larger than 16 KiB")
		return
	}
	var reg registration
	if err := json.Unmarshal(body, &reg); err != nil {
		writeJSONError(w, http.StatusBadRequest, "invalid_client_metadata", "the registration is not a JSON object of client metadata")
		return
	}
	name, err := checkRegistration(&reg)
	if err != nil {
		code := "invalid_client_metadata"
		if errors.Is(err, errRedirectURI) {
			code = "invalid_redirect_uri"
		}
		writeJSONError(w, http.StatusBadRequest, code, err.Error())
		return
	}
	now := time.Now()
	if wait, ok := s.regRate.take(sourceOf(r), now); !ok {
		s.log.LogAttrs(ctx, slog.LevelInfo, "oauth: registration refused: too many from one address")
		secs := int64(wait/time.Second) + 1
		w.Header().Set("Retry-After", strconv.FormatInt(secs, 10))
		writeJSONError(w, http.StatusTooManyRequests, "temporarily_unavailable",
			"too many registrations from this address; retry in "+strconv.FormatInt(secs, 10)+" seconds")
		return
	}
	var id [16]byte
	rand.Read(id[:])
	c := asstore.Client{ID: base64.RawURLEncoding.EncodeToString(id[:]), Name: name, RedirectURIs: reg.RedirectURIs, CreatedAt: now}
	switch err := s.st.CreateClient(ctx, c, s.opts.MaxClients); {
	case errors.Is(err, asstore.ErrTooManyClients):
		s.log.LogAttrs(ctx, slog.LevelWarn, "oauth: registration refused: too many clients", slog.Int("max", s.opts.MaxClients))
		writeJSONError(w, http.StatusServiceUnavailable, "temporarily_unavailable", "too many registered clients hold a sign-in; revoke one, or wait until one is idle for 30 days")
		return
	case err != nil:
		s.log.LogAttrs(ctx, slog.LevelError, "oauth: storing a client failed", slog.String("cause", err.Error()))
		writeJSONError(w, http.StatusServiceUnavailable, "temporarily_unavailable", "the client cannot be stored now; retry later")
		return
	}
	s.log.LogAttrs(ctx, slog.LevelInfo, "oauth: client registered", slog.String("client_id", c.ID), slog.String("client_name", name))
	resp := map[string]any{
		"client_id":                  c.ID,
		"client_id_issued_at":        now.Unix(),
		"client_name":                name,
		"redirect_uris":              c.RedirectURIs,
		"grant_types":                []string{"authorization_code", "refresh_token"},
		"response_types":             []string{"code"},
		"token_endpoint_auth_method": "none",
	}
	if len(s.opts.Scopes) > 0 {
		resp["scope"] = strings.Join(s.opts.Scopes, " ")
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusCreated)
	json.NewEncoder(w).Encode(resp)
}

var errRedirectURI = errors.New("redirect URI")

// checkRegistration validates reg and returns the name to show.
func checkRegistration(reg *registration) (string, error) {
	if len(reg.RedirectURIs) == 0 || len(reg.RedirectURIs) > asstore.MaxRedirectURIs {
		return "", errors.New("redirect_uris must list 1 to 10 URIs")
	}
	for _, u := range reg.RedirectURIs {
		if err := checkRedirectURI(u); err != nil {
			return "", err
		}
	}
	for _, g := range reg.GrantTypes {
		if g != "authorization_code" && g != "refresh_token" {
			return "", errors.New("grant_types: only authorization_code and refresh_token are supported")
		}
	}
	for _, rt := range reg.ResponseTypes {
		if rt != "code" {
			return "", errors.New("response_types: only code is supported")
		}
	}
	name := strings.TrimSpace(reg.ClientName)
	if len(name) > maxClientNameBytes || !utf8.ValidString(name) || strings.ContainsFunc(name, func(r rune) bool {
		return unicode.IsControl(r) || unicode.Is(unicode.Bidi_Control, r)
	}) {
		return "", errors.New("client_name must be at most 200 bytes of printable UTF-8")
	}
	if name == "" {
		name = "An unnamed client"
	}
	return name, nil
}

var schemeRE = regexp.MustCompile(`^[a-z][a-z0-9+.-]*$`)

// refusedSchemes can run code, read files or reach a network peer the
// person did not choose; none is a redirect target for a native client.
var refusedSchemes = []string{"javascript", "data", "file", "vbscript", "about", "blob", "filesystem", "ws", "wss", "ftp", "view-source", "jar"}

// checkRedirectURI accepts what MCP clients register (RFC 8252): http on
// a loopback host (any port; the port may change per request), https
// anywhere, or a private-use scheme of a native app (cursor://…,
// com.example.app:/cb). No fragment, no user info.
func checkRedirectURI(raw string) error {
	bad := func(why string) error {
		return errors.Join(errRedirectURI, errors.New("redirect URI "+strconvQuote(raw)+": "+why))
	}
	if len(raw) > maxRedirectURIBytes {
		return bad("longer than 2048 bytes")
	}
	u, err := url.Parse(raw)
	if err != nil || !u.IsAbs() {
		return bad("not an absolute URI")
	}
	if u.Fragment != "" || strings.Contains(raw, "#") || u.User != nil {
		return bad("must not carry a fragment or user info")
	}
	switch scheme := u.Scheme; {
	case scheme == "https":
		if u.Host == "" {
			return bad("https needs a host")
		}
	case scheme == "http":
		if !loopbackRedirectHost(u.Hostname()) {
			return bad("http is allowed only on a loopback host (127.0.0.1, [::1], localhost)")
		}
	case !schemeRE.MatchString(scheme) || slices.Contains(refusedSchemes, scheme):
		return bad("scheme not allowed")
	}
	return nil
}

func loopbackRedirectHost(h string) bool {
	if strings.EqualFold(h, "localhost") {
		return true
	}
	ip := net.ParseIP(h)
	return ip != nil && ip.IsLoopback()
}

// strconvQuote quotes a client-supplied value for an error message,
// truncated so that an answer stays short.
func strconvQuote(s string) string {
	if len(s) > 100 {
		s = s[:100] + "…"
	}
	b, _ := json.Marshal(s)
	return string(b)
}
