package localas

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/warden-mcp/warden/auth"
	"github.com/warden-mcp/warden/auth/asstore"
)

// The endpoints, relative to the issuer (the server's origin).
const (
	MetadataPath  = "/.well-known/oauth-authorization-server" // RFC 8414
	AuthorizePath = "/oauth/authorize"                        // GET: consent page; POST: the decision
	TokenPath     = "/oauth/token"
	RegisterPath  = "/oauth/register" // RFC 7591
	RevokePath    = "/oauth/revoke"   // RFC 7009
)

// Defaults for zero Options fields.
const (
	DefaultAccessTokenLifetime  = time.Hour
	DefaultRefreshTokenLifetime = 30 * 24 * time.Hour
	DefaultCodeLifetime         = 2 * time.Minute
	DefaultMaxClients           = 1000
	DefaultClientIdle           = 90 * 24 * time.Hour
	consentLifetime             = 10 * time.Minute
	maxFormBytes                = 64 << 10
)

// Tool is a tool named on the consent page.
type Tool struct {
	Name, Title string
}

// Options configure a Server. Issuer, Resource and Keys are required;
// every other zero field takes the default its comment names.
type Options struct {
	// Issuer is the authorization server's identifier and the base of its
	// endpoints: the serving Warden's origin, such as
	// "http://127.0.0.1:8787". It must be http on a loopback IP or
	// localhost.
	Issuer string
	// Resource is the MCP endpoint's canonical URI, the audience of every
	// access token ("http://127.0.0.1:8787/mcp").
	Resource string
	// Keys signs the access tokens.
	Keys *auth.LocalIssuer
	// Store keeps clients and token records. Zero: in memory, lost at exit.
	Store asstore.Store
	// Tools lists what a grant reaches, for the consent page. Zero: the
	// page says "every tool this server serves" without a list.
	Tools func() []Tool
	// Scopes are granted with every token and advertised in the metadata.
	// Zero: none.
	Scopes []string
	// Tenant is the tenant claim of access tokens. Zero: "local".
	Tenant string
	// AccessTokenLifetime: zero, 1 h. At most auth.DefaultMaxLifetime.
	AccessTokenLifetime time.Duration
	// RefreshTokenLifetime is how long a refresh token lives; each use
	// gives a new one with the full lifetime. Zero: 30 days.
	RefreshTokenLifetime time.Duration
	// MaxClients bounds registered clients. Zero: 1000. At the cap, the
	// oldest clients that never signed in (or whose every grant lapsed)
	// make room for new ones; past a cap of clients that hold grants,
	// registration answers 503.
	MaxClients int
	// Logger receives one line per grant, refusal and revocation of note,
	// never a token or code. Zero: nothing is logged.
	Logger *slog.Logger
}

// Server is Warden's local OAuth 2.1 authorization server. It is safe for
// concurrent use.
type Server struct {
	opts    Options
	host    string // the issuer's host:port
	port    string
	st      asstore.Store
	tokens  opaque // codes and refresh tokens
	csrfKey []byte
	log     *slog.Logger
	regRate sourceRate // registrations by source address
	// grantMu serializes redeeming a code, rotating a refresh token and
	// revoking, so that two requests with one code or one refresh token
	// cannot both succeed: the second sees the first's work and is taken
	// for reuse.
	grantMu sync.Mutex
}

// New returns the server for opts.
func New(opts Options) (*Server, error) {
	if opts.Keys == nil {
		return nil, errors.New("localas: Options.Keys is required")
	}
	iss, err := url.Parse(opts.Issuer)
	if err != nil || iss.Scheme != "http" || iss.Path != "" || iss.RawQuery != "" || iss.User != nil || !loopbackName(iss.Hostname()) || iss.Port() == "" {
		return nil, errors.New("localas: Options.Issuer must be http://<loopback host>:<port> with no path")
	}
	res, err := url.Parse(opts.Resource)
	if err != nil || res.Scheme+"://"+res.Host != opts.Issuer {
		return nil, errors.New("localas: Options.Resource must be a URL under Options.Issuer")
	}
	o := opts
	if o.Store == nil {
		o.Store = &asstore.Memory{}
	}
	if o.Tenant == "" {
		o.Tenant = "local"
	}
	if o.AccessTokenLifetime == 0 {
		o.AccessTokenLifetime = DefaultAccessTokenLifetime
	}
	if o.AccessTokenLifetime < 0 || o.AccessTokenLifetime > auth.DefaultMaxLifetime {
		return nil, fmt.Errorf("localas: Options.AccessTokenLifetime must be at most %v", auth.DefaultMaxLifetime)
	}
	if o.RefreshTokenLifetime <= 0 {
		o.RefreshTokenLifetime = DefaultRefreshTokenLifetime
	}
	if o.MaxClients <= 0 {
		o.MaxClients = DefaultMaxClients
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	scopes := append([]string{}, o.Scopes...)
	o.Scopes = scopes
	csrf := sha256.Sum256(o.Keys.DeriveSecret("oauth consent"))
	return &Server{opts: o, host: iss.Host, port: iss.Port(), st: o.Store, tokens: opaque{key: o.Keys.DeriveSecret("oauth hmac")},
		csrfKey: csrf[:], log: o.Logger}, nil
}

// Handlers returns the authorization server's endpoints by path, to be
// mounted beside the MCP endpoint without authentication. Each refuses a
// Host header that is not a loopback name on the issuer's port (DNS
// rebinding).
func (s *Server) Handlers() map[string]http.Handler {
	return map[string]http.Handler{
		MetadataPath:  s.guard(http.HandlerFunc(s.metadata), "GET, HEAD"),
		AuthorizePath: s.guard(http.HandlerFunc(s.authorize), "GET, POST"),
		TokenPath:     s.guard(s.cors(http.HandlerFunc(s.token)), "POST"),
		RegisterPath:  s.guard(s.localCORS(http.HandlerFunc(s.register)), "POST"),
		RevokePath:    s.guard(s.cors(http.HandlerFunc(s.revoke)), "POST"),
	}
}

// Issuer is the authorization server's identifier, for RFC 9728
// authorization_servers.
func (s *Server) Issuer() string { return s.opts.Issuer }

// CheckToken is an auth.Config.CheckCredential for the verifier of the
// MCP endpoint: a token this server issued (it carries client_id) is
// admitted only while its record lives, so revocation and refresh-token
// reuse take effect at once. Tokens without client_id (pasted ones from
// `warden token`) pass through.
func (s *Server) CheckToken(ctx context.Context, p auth.Principal) error {
	if p.ClientID == "" {
		return nil
	}
	rec, err := s.st.Token(ctx, asstore.KindAccess, p.TokenID)
	switch {
	case errors.Is(err, asstore.ErrNotFound) || err == nil && (!rec.Active || rec.ClientID != p.ClientID):
		return fmt.Errorf("access token of client %s: %w", p.ClientID, auth.ErrCredentialRejected)
	case err != nil:
		return err
	}
	return nil
}

// Prune removes expired records and idle clients that hold none.
func (s *Server) Prune(ctx context.Context) error {
	return s.st.PruneGrants(ctx, time.Now(), DefaultClientIdle)
}

// guard refuses methods outside allow and Host headers that do not name
// this server on loopback, and marks every answer uncacheable.
func (s *Server) guard(next http.Handler, allow string) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h.Set("Cache-Control", "no-store")
		h.Set("X-Content-Type-Options", "nosniff")
		if r.Method == http.MethodOptions && strings.Contains(allow, "POST") && r.URL.Path != AuthorizePath {
			next.ServeHTTP(w, r) // CORS preflight, answered by cors
			return
		}
		if !strings.Contains(allow, r.Method) {
			h.Set("Allow", allow)
			writeJSONError(w, http.StatusMethodNotAllowed, "invalid_request", "method not allowed")
			return
		}
		if !s.hostAllowed(r.Host) {
			writeJSONError(w, http.StatusForbidden, "invalid_request", "host not allowed")
			return
		}
		next.ServeHTTP(w, r)
	})
}

func (s *Server) hostAllowed(hostport string) bool {
	host, port, err := net.SplitHostPort(hostport)
	return err == nil && port == s.port && loopbackName(host)
}

// cors lets browser-based clients (the Inspector's web UI) call the
// endpoints that carry no ambient credential and change nothing without
// a code or token the page cannot have: token and revocation answer any
// origin, and never read cookies. Registration, which needs nothing, is
// served to this machine's pages only (localCORS).
func (s *Server) cors(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h.Set("Access-Control-Allow-Origin", "*")
		if r.Method == http.MethodOptions {
			h.Set("Access-Control-Allow-Methods", "POST")
			h.Set("Access-Control-Allow-Headers", "Content-Type, Authorization, MCP-Protocol-Version")
			h.Set("Access-Control-Max-Age", "600")
			w.WriteHeader(http.StatusNoContent)
			return
		}
		next.ServeHTTP(w, r)
	})
}

// localCORS serves registration to pages of this machine only: a request
// from a loopback origin (the Inspector's web UI on localhost) is
// answered with that origin allowed; one from any other origin, web
// pages on the internet included, is refused, and its preflight allows
// nothing. Otherwise any page a person visits could register clients
// until the cap. Native clients send no Origin and are not concerned.
func (s *Server) localCORS(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h.Add("Vary", "Origin")
		origins := r.Header.Values("Origin")
		if len(origins) > 0 {
			if len(origins) != 1 || !loopbackOrigin(origins[0]) {
				s.log.LogAttrs(r.Context(), slog.LevelInfo, "oauth: registration refused: a web page's origin")
				writeJSONError(w, http.StatusForbidden, "access_denied", "clients register from this machine, not from web pages")
				return
			}
			h.Set("Access-Control-Allow-Origin", origins[0])
		}
		if r.Method == http.MethodOptions {
			h.Set("Access-Control-Allow-Methods", "POST")
			h.Set("Access-Control-Allow-Headers", "Content-Type, Authorization, MCP-Protocol-Version")
			h.Set("Access-Control-Max-Age", "600")
			w.WriteHeader(http.StatusNoContent)
			return
		}
		next.ServeHTTP(w, r)
	})
}

// loopbackOrigin reports whether an Origin names a page served from this
// machine: http or https on a loopback name, any port.
func loopbackOrigin(origin string) bool {
	u, err := url.Parse(origin)
	return err == nil && (u.Scheme == "http" || u.Scheme == "https") && u.Path == "" && u.User == nil && loopbackName(u.Hostname())
}

func loopbackName(h string) bool {
	switch strings.ToLower(strings.Trim(h, "[]")) {
	case "localhost", "127.0.0.1", "::1":
		return true
	}
	return false
}

// metadata serves RFC 8414 authorization server metadata.
func (s *Server) metadata(w http.ResponseWriter, r *http.Request) {
	doc := struct {
		Issuer                            string   `json:"issuer"`
		AuthorizationEndpoint             string   `json:"authorization_endpoint"`
		TokenEndpoint                     string   `json:"token_endpoint"`
		RegistrationEndpoint              string   `json:"registration_endpoint"`
		RevocationEndpoint                string   `json:"revocation_endpoint"`
		ResponseTypesSupported            []string `json:"response_types_supported"`
		ResponseModesSupported            []string `json:"response_modes_supported"`
		GrantTypesSupported               []string `json:"grant_types_supported"`
		TokenEndpointAuthMethodsSupported []string `json:"token_endpoint_auth_methods_supported"`
		RevocationEndpointAuthMethods     []string `json:"revocation_endpoint_auth_methods_supported"`
		CodeChallengeMethodsSupported     []string `json:"code_challenge_methods_supported"`
		ScopesSupported                   []string `json:"scopes_supported,omitempty"`
		IssParameterSupported             bool     `json:"authorization_response_iss_parameter_supported"`
	}{
		Issuer:                            s.opts.Issuer,
		AuthorizationEndpoint:             s.opts.Issuer + AuthorizePath,
		TokenEndpoint:                     s.opts.Issuer + TokenPath,
		RegistrationEndpoint:              s.opts.Issuer + RegisterPath,
		RevocationEndpoint:                s.opts.Issuer + RevokePath,
		ResponseTypesSupported:            []string{"code"},
		ResponseModesSupported:            []string{"query"},
		GrantTypesSupported:               []string{"authorization_code", "refresh_token"},
		TokenEndpointAuthMethodsSupported: []string{"none"},
		RevocationEndpointAuthMethods:     []string{"none"},
		CodeChallengeMethodsSupported:     []string{"S256"},
		ScopesSupported:                   s.opts.Scopes,
		IssParameterSupported:             true,
	}
	h := w.Header()
	h.Set("Content-Type", "application/json")
	h.Set("Access-Control-Allow-Origin", "*")
	h.Set("Cache-Control", "public, max-age=300")
	if r.Method == http.MethodHead {
		return
	}
	json.NewEncoder(w).Encode(doc)
}

// checkResource refuses an RFC 8707 resource indicator that names
// anything but this server's MCP endpoint; absent, it means that one.
func (s *Server) checkResource(form url.Values) *protocolError {
	vals := form["resource"]
	if len(vals) == 0 {
		return nil
	}
	if len(vals) > 1 || !sameResource(vals[0], s.opts.Resource) {
		return &protocolError{"invalid_target", "The resource parameter must name this server's MCP endpoint, " + s.opts.Resource + ".",
			http.StatusBadRequest}
	}
	return nil
}

// sameResource compares resource URIs as RFC 8707 and MCP ask: scheme and
// host case-insensitively, one trailing slash ignored.
func sameResource(a, b string) bool {
	ua, err1 := url.Parse(a)
	ub, err2 := url.Parse(b)
	if err1 != nil || err2 != nil || ua.RawQuery != "" || ua.Fragment != "" {
		return false
	}
	return strings.EqualFold(ua.Scheme, ub.Scheme) && strings.EqualFold(ua.Host, ub.Host) &&
		strings.TrimSuffix(ua.EscapedPath(), "/") == strings.TrimSuffix(ub.EscapedPath(), "/")
}

func (s *Server) logRefusal(ctx context.Context, msg string, e *protocolError) {
	s.log.LogAttrs(ctx, slog.LevelInfo, "oauth: "+msg, slog.String("error", e.code))
}
