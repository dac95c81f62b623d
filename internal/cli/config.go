package cli

import (
	"bytes"
	"fmt"
	"github.com/warden-mcp/warden/plugin"
	"net"
	"net/url"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/warden-mcp/warden/binview"
	"github.com/warden-mcp/warden/binview/budget"
	"github.com/warden-mcp/warden/policy"
)

// Config is everything a hosted Warden needs, in one file (YAML),
// overridable by environment variables (WARDEN_*) and then by flags. The
// zero value is the fresh-machine default: loopback only, the embedded
// store and a local signing key in the state directory. docs/operations.md
// documents every field with a worked example.
type Config struct {
	// Listen is the bind address. Default 127.0.0.1:8787. A non-loopback
	// address needs an external token issuer (auth.issuer).
	Listen string `yaml:"listen"`
	// PublicURL is the endpoint's canonical URI as clients reach it, the
	// audience every token must name. Default http://<listen><path>.
	PublicURL string `yaml:"public_url"`
	// Path is the protocol endpoint. Default /mcp.
	Path string `yaml:"path"`
	// StateDir holds the embedded database and the keys made on first
	// start. Default $WARDEN_STATE_DIR, $XDG_STATE_HOME/warden or
	// ~/.local/state/warden.
	StateDir string `yaml:"state_dir"`
	// AllowedOrigins are the browser origins accepted. Default: the
	// loopback origins of the listen port when bound to loopback, none
	// otherwise. Requests without Origin always pass.
	AllowedOrigins []string `yaml:"allowed_origins"`
	// MaxBodyBytes caps a request body. Default 4 MiB.
	MaxBodyBytes int64 `yaml:"max_body_bytes"`
	// ShutdownTimeout is how long in-flight calls may run after a stop
	// signal. Default 10s.
	ShutdownTimeout Duration `yaml:"shutdown_timeout"`
	// LogLevel is debug, info, warn or error. Default info.
	LogLevel string `yaml:"log_level"`

	Auth   AuthConfig   `yaml:"auth"`
	Limits LimitsConfig `yaml:"limits"`
	Store  StoreConfig  `yaml:"store"`

	// Metrics, Tracing and Health say how the server is observed.
	// Keys gives the keys every replica shares; empty takes them from
	// the store (PostgreSQL) or the state directory (embedded store).
	Keys KeysConfig `yaml:"keys"`

	Metrics MetricsConfig `yaml:"metrics"`
	Tracing TracingConfig `yaml:"tracing"`
	Health  HealthConfig  `yaml:"health"`

	// Tools says which tools run and where network tools may go.
	Tools ToolsConfig `yaml:"tools"`
	// Privacy is what may leave in a result: strict, balanced (default)
	// or off.
	Privacy string `yaml:"privacy"`
	// Approvals says who asks a person before a confirm or confirm_each
	// tool runs: elicit (default: Warden asks through the client) or
	// client (the client or a gateway in front asks).
	Approvals string `yaml:"approvals"`
	// ApprovalTTL is how long a confirm approval lasts for a credential
	// and client on the stateless revision. Default 8h.
	ApprovalTTL Duration `yaml:"approval_ttl"`
	// Console serves the console at /console on the same listener, and
	// lets a client that cannot ask send the person to an approval page
	// there (approval_required). Unset: on in the local profile, off
	// hosted.
	Console *bool `yaml:"console"`
	// Tenants override server settings per tenant (the token's tenant
	// claim).
	Tenants map[string]TenantConfig `yaml:"tenants"`

	// Bininspect configures binary views: where files may be opened from
	// and the limits of the bininspect_ tools.
	Bininspect BininspectConfig `yaml:"bininspect"`
	// Keysweep configures the secret-scanning tools.
	Keysweep KeysweepConfig `yaml:"keysweep"`
	// Plugins are tools loaded from plugin directories (docs/plugins.md).
	Plugins PluginsConfig `yaml:"plugins"`
}

// KeysweepConfig is the keysweep block.
type KeysweepConfig struct {
	// Workspace are directories keysweep_scan_path may read, for every
	// caller. A local server also reads under the roots its client
	// declares; a hosted one only here. None and hosted: the tool is not
	// offered.
	Workspace []string `yaml:"workspace"`
}

// PluginsConfig is the plugins block. The zero value loads no plugin.
type PluginsConfig struct {
	// Dirs are plugin directories, or directories of them; --plugins
	// adds to them.
	Dirs []string `yaml:"dirs"`
	// PluginTimeout bounds one plugin call, its start-up included.
	// Zero: 5s.
	PluginTimeout Duration `yaml:"plugin_timeout"`
	// MemoryBytes is one WebAssembly instance's memory ceiling (zero:
	// 64 MiB) and a Python child's address space (zero: 512 MiB).
	MemoryBytes int64 `yaml:"memory_bytes"`
	// OutputBytes caps one call's answer. Zero: 1 MiB.
	OutputBytes int64 `yaml:"output_bytes"`
	// Grants are the capabilities granted per plugin name beyond log and
	// progress: view, annotate, http. --plugin-grant adds to them.
	Grants map[string][]string `yaml:"grants"`
	// ReloadInterval is how often warden serve looks for changed, new
	// and removed plugins, and loads them without a restart. Zero: 2s.
	ReloadInterval Duration `yaml:"reload_interval"`
}

// BininspectConfig is the bininspect block. Zero values take the
// profile's defaults: no roots; 64 MiB files hosted, 512 MiB local; 16
// views per caller, closed after 1h unused; 30 s per analysis, in a
// child process with 1 GiB of memory when hosted; 1 GiB of uploads per
// credential per UTC day when hosted, no limit local.
type BininspectConfig struct {
	// Roots are the directories bininspect_open may read files from by
	// path (--root replaces them). None: files come only as uploads or
	// data_base64.
	Roots []string `yaml:"roots"`
	// MaxFileBytes is the largest file opened or uploaded, at most
	// 512 MiB.
	MaxFileBytes int64 `yaml:"max_file_bytes"`
	// MaxViews is how many views one caller keeps open.
	MaxViews int `yaml:"max_views"`
	// ViewIdle closes a view unused this long.
	ViewIdle Duration `yaml:"view_idle"`
	// AnalysisTimeout bounds one analysis (its CPU time, in the child).
	AnalysisTimeout Duration `yaml:"analysis_timeout"`
	// AnalysisMemoryBytes is the child's memory limit (RLIMIT_DATA).
	AnalysisMemoryBytes int64 `yaml:"analysis_memory_bytes"`
	// UploadQuotaBytes is what one caller (issuer, tenant and
	// credential) may upload (PUT /uploads and data_base64) per UTC day;
	// -1 means no limit.
	UploadQuotaBytes int64 `yaml:"upload_quota_bytes"`
	// Isolate runs every analysis in a child process, also on a local
	// server (a hosted one always does): the file's parse and its code
	// analysis.
	Isolate bool `yaml:"isolate"`
	// AnalysisLimits is the budget of each view's code analysis and of
	// each graph drawn from it, the same in process and in the child.
	AnalysisLimits AnalysisLimitsConfig `yaml:"analysis_limits"`
}

// AnalysisLimitsConfig is the bininspect.analysis_limits block: the caps
// of package budget. Zero values take the budget's defaults.
type AnalysisLimitsConfig struct {
	// Instructions decoded by one analysis, every stage together
	// (64 Mi); past it the analysis goes on without decoding more.
	Instructions int64 `yaml:"instructions"`
	// Functions kept (1 Mi); past it later starts are dropped.
	Functions int64 `yaml:"functions"`
	// Blocks, Edges and Xrefs kept, every function together (8 Mi,
	// 16 Mi, 16 Mi); past the block or edge limit the stage fails with
	// analysis_limit, past the cross-reference limit later ones are
	// dropped.
	Blocks int64 `yaml:"blocks"`
	Edges  int64 `yaml:"edges"`
	Xrefs  int64 `yaml:"xrefs"`
	// Bytes of memory one analysis holds, counted as it grows (256 MiB).
	Bytes int64 `yaml:"bytes"`
	// OutputBytes of one graph or listing drawn from an analysis (8 MiB).
	OutputBytes int64 `yaml:"output_bytes"`
}

// limits returns the budget's limits.
func (a AnalysisLimitsConfig) limits() budget.Limits {
	return budget.Limits{Instructions: a.Instructions, Functions: a.Functions, Blocks: a.Blocks, Edges: a.Edges,
		Xrefs: a.Xrefs, Bytes: a.Bytes, Output: a.OutputBytes}
}

// check refuses values out of range.
func (b BininspectConfig) check() error {
	switch {
	case b.MaxFileBytes < 0 || b.MaxFileBytes > binview.LocalMaxFileSize:
		return fmt.Errorf("bininspect.max_file_bytes: %d is not between 1 and %d (512 MiB)", b.MaxFileBytes, binview.LocalMaxFileSize)
	case b.MaxViews < 0 || b.MaxViews > 1024:
		return fmt.Errorf("bininspect.max_views: %d is not between 1 and 1024", b.MaxViews)
	case b.ViewIdle < 0, b.AnalysisTimeout < 0:
		return fmt.Errorf("bininspect: durations must be positive")
	case b.AnalysisMemoryBytes < 0:
		return fmt.Errorf("bininspect.analysis_memory_bytes: must be positive")
	case b.UploadQuotaBytes < -1:
		return fmt.Errorf("bininspect.upload_quota_bytes: a number of bytes, or -1 for no limit")
	case b.AnalysisLimits.Instructions < 0 || b.AnalysisLimits.Functions < 0 || b.AnalysisLimits.Blocks < 0 ||
		b.AnalysisLimits.Edges < 0 || b.AnalysisLimits.Xrefs < 0 || b.AnalysisLimits.Bytes < 0 || b.AnalysisLimits.OutputBytes < 0:
		return fmt.Errorf("bininspect.analysis_limits: every limit must be positive")
	case b.AnalysisLimits.Bytes > 0 && b.AnalysisLimits.Bytes < 16<<20:
		return fmt.Errorf("bininspect.analysis_limits.bytes: at least 16 MiB (16777216)")
	case b.AnalysisLimits.OutputBytes > 0 && b.AnalysisLimits.OutputBytes < 64<<10:
		return fmt.Errorf("bininspect.analysis_limits.output_bytes: at least 64 KiB (65536)")
	}
	return nil
}

// ToolsConfig is the tools block: enablement, the unsafe switch and the
// scope of network tools. Names are tool names or family prefixes
// ("util_"); an unknown one is a start-up error.
type ToolsConfig struct {
	Enable      []string    `yaml:"enable"`
	Disable     []string    `yaml:"disable"`
	Unsafe      bool        `yaml:"unsafe"`
	AllowUnsafe []string    `yaml:"allow_unsafe"`
	Scope       ScopeConfig `yaml:"scope"`
}

// ScopeConfig bounds where network tools may go: exact host names or
// "*.example.org" for the names under a suffix. Exclude wins; an empty
// include list admits every public target.
type ScopeConfig struct {
	Include []string `yaml:"include"`
	Exclude []string `yaml:"exclude"`
}

// TenantConfig is what a tenant may set differently from the server.
type TenantConfig struct {
	Privacy string `yaml:"privacy"`
}

// catalog is the tools block as the policy layer takes it.
func (c Config) catalog() policy.CatalogConfig {
	return policy.CatalogConfig{
		Enable: c.Tools.Enable, Disable: c.Tools.Disable,
		Unsafe: c.Tools.Unsafe, AllowUnsafe: c.Tools.AllowUnsafe,
		ScopeInclude: c.Tools.Scope.Include, ScopeExclude: c.Tools.Scope.Exclude,
		Approvals: c.Approvals, ApprovalTTL: time.Duration(c.ApprovalTTL),
	}
}

// privacyModes are the valid privacy settings.
var privacyModes = []string{"strict", "balanced", "off"}

// AuthConfig selects who issues tokens. With no issuer, Warden makes a
// local ES256 key in the state directory, serves its JWKS and mints
// development tokens (warden token).
type AuthConfig struct {
	Issuer         string     `yaml:"issuer"`
	JWKSURL        string     `yaml:"jwks_url"`
	JWKSFile       string     `yaml:"jwks_file"`
	Claims         ClaimNames `yaml:"claims"`
	RequiredScopes []string   `yaml:"required_scopes"`
	Skew           Duration   `yaml:"skew"`
	// BindCredentials admits a verified token only if its subject is
	// registered (warden credentials create --subject) in the token's
	// tenant and not revoked. API keys always need their registry row.
	BindCredentials bool `yaml:"bind_credentials"`
	// CredentialCacheTTL bounds how stale a registry answer may be, and
	// so how soon a revocation reaches every replica. Default 30s.
	CredentialCacheTTL Duration `yaml:"credential_cache_ttl"`
}

// ClaimNames rename the claims read from tokens; empty keeps the default
// (sub, tenant, entitlements, scope).
type ClaimNames struct {
	Credential   string `yaml:"credential"`
	Tenant       string `yaml:"tenant"`
	Entitlements string `yaml:"entitlements"`
	Scope        string `yaml:"scope"`
}

// LimitsConfig sets the per-credential limits; zero keeps each default
// (120 requests per 60 s; 10 scans per 60 s; 1000 scans a month; 2
// concurrent scans; 16 across the server; 180 s slot leases), and how
// long a decision waits on the store.
type LimitsConfig struct {
	RequestsPerWindow  int      `yaml:"requests_per_window"`
	RequestWindow      Duration `yaml:"request_window"`
	ScansPerWindow     int      `yaml:"scans_per_window"`
	ScanWindow         Duration `yaml:"scan_window"`
	MonthlyScans       int64    `yaml:"monthly_scans"`
	MaxConcurrentScans int      `yaml:"max_concurrent_scans"`
	ScannerCapacity    int      `yaml:"scanner_capacity"`
	LeaseTTL           Duration `yaml:"lease_ttl"`
	// StoreTimeout is how long a decision waits on a store that answers
	// nothing before it is refused as unavailable (fail closed); while
	// the store answers other calls, a decision waits up to StoreMaxWait.
	// Zero: 250 ms for the transport limit and 500 ms for scan admission;
	// 5 s for both. A value set applies to both.
	StoreTimeout Duration `yaml:"store_timeout"`
	StoreMaxWait Duration `yaml:"store_max_wait"`
}

// StoreConfig selects the store: empty DSN is the embedded SQLite database
// in the state directory; a postgres:// DSN is PostgreSQL, shared by every
// replica.
type StoreConfig struct {
	DSN string `yaml:"dsn"`
	// Schema is the PostgreSQL schema of the store's tables. Default
	// "warden".
	Schema string `yaml:"schema"`
	// MaxConns caps each replica's PostgreSQL connections. Default 16.
	MaxConns int32 `yaml:"max_conns"`
}

// MetricsConfig turns on the Prometheus metrics listener.
type MetricsConfig struct {
	// Listen is the address of a separate listener serving /metrics,
	// /healthz and /readyz. Empty: no metrics. Keep it off the public
	// network.
	Listen string `yaml:"listen"`
	// TenantLabels adds the tenant to tool-call metrics. Default off: no
	// credential, tenant or argument value in a label.
	TenantLabels bool `yaml:"tenant_labels"`
}

// TracingConfig turns on OpenTelemetry tracing over OTLP/HTTP.
type TracingConfig struct {
	// OTLPEndpoint is the collector's URL: a base URL such as
	// http://127.0.0.1:4318 (spans go to /v1/traces on it), or a URL with
	// a path, used as it is. Empty: no tracing.
	OTLPEndpoint string `yaml:"otlp_endpoint"`
	// SampleRatio is the fraction of new traces kept. Default 1.
	SampleRatio float64 `yaml:"sample_ratio"`
}

// HealthConfig places the health checks on the public listener.
type HealthConfig struct {
	// LivenessPath and ReadinessPath default to /healthz and /readyz;
	// "-" serves none on the public listener (the metrics listener still
	// has both), so that every path but the endpoint and the well-known
	// documents answers 404.
	LivenessPath  string `yaml:"liveness_path"`
	ReadinessPath string `yaml:"readiness_path"`
}

// Duration is a time.Duration written as "30s" or "10m" in YAML.
type Duration time.Duration

// UnmarshalYAML reads a Go duration string.
func (d *Duration) UnmarshalYAML(n *yaml.Node) error {
	v, err := time.ParseDuration(n.Value)
	if err != nil {
		return fmt.Errorf("line %d: %q is not a duration such as 30s or 10m", n.Line, n.Value)
	}
	*d = Duration(v)
	return nil
}

// loadConfig reads the file (if any), then applies the environment.
func loadConfig(path string, getenv func(string) string) (Config, error) {
	var c Config
	if path != "" {
		b, err := os.ReadFile(path)
		if err != nil {
			return c, fmt.Errorf("config: %w", err)
		}
		dec := yaml.NewDecoder(bytes.NewReader(b))
		dec.KnownFields(true) // a misspelt key is an error, not a silent default
		if err := dec.Decode(&c); err != nil {
			return c, fmt.Errorf("config %s: %w", path, err)
		}
	}
	env := map[string]*string{
		"WARDEN_LISTEN":         &c.Listen,
		"WARDEN_PUBLIC_URL":     &c.PublicURL,
		"WARDEN_STATE_DIR":      &c.StateDir,
		"WARDEN_LOG_LEVEL":      &c.LogLevel,
		"WARDEN_STORE_DSN":      &c.Store.DSN,
		"WARDEN_AUTH_ISSUER":    &c.Auth.Issuer,
		"WARDEN_AUTH_JWKS_URL":  &c.Auth.JWKSURL,
		"WARDEN_AUTH_JWKS_FILE": &c.Auth.JWKSFile,
		"WARDEN_PRIVACY":        &c.Privacy,
		"WARDEN_APPROVALS":      &c.Approvals,
		"WARDEN_METRICS_LISTEN": &c.Metrics.Listen,
		"WARDEN_OTLP_ENDPOINT":  &c.Tracing.OTLPEndpoint,

		"WARDEN_REQUEST_STATE_KEY": &c.Keys.RequestState,
		"WARDEN_VIEW_HANDLE_KEY":   &c.Keys.ViewHandle,
		"WARDEN_PSEUDONYM_KEY":     &c.Keys.Pseudonym,
		"WARDEN_FINGERPRINT_KEY":   &c.Keys.Fingerprint,
	}
	for k, p := range env {
		if v := getenv(k); v != "" {
			*p = v
		}
	}
	if v := getenv("WARDEN_ALLOWED_ORIGINS"); v != "" {
		c.AllowedOrigins = nil
		for _, o := range strings.Split(v, ",") {
			if o = strings.TrimSpace(o); o != "" {
				c.AllowedOrigins = append(c.AllowedOrigins, o)
			}
		}
	}
	if v := getenv("WARDEN_UNSAFE"); v != "" {
		b, err := strconv.ParseBool(v)
		if err != nil {
			return c, fmt.Errorf("WARDEN_UNSAFE: %q is not true or false", v)
		}
		c.Tools.Unsafe = b
	}
	if v := getenv("WARDEN_MONTHLY_SCANS"); v != "" {
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil {
			return c, fmt.Errorf("WARDEN_MONTHLY_SCANS: %q is not a number", v)
		}
		c.Limits.MonthlyScans = n
	}
	return c, nil
}

// withDefaults fills the zero fields and checks the result.
func (c Config) withDefaults() (Config, error) {
	if c.Listen == "" {
		c.Listen = "127.0.0.1:8787"
	}
	if c.Path == "" {
		c.Path = "/mcp"
	}
	if !strings.HasPrefix(c.Path, "/") {
		return c, fmt.Errorf("path %q must start with /", c.Path)
	}
	if c.StateDir == "" {
		c.StateDir = defaultStateDir()
	}
	if c.LogLevel == "" {
		c.LogLevel = "info"
	}
	if c.ShutdownTimeout == 0 {
		c.ShutdownTimeout = Duration(10 * time.Second)
	}
	host, port, err := net.SplitHostPort(c.Listen)
	if err != nil {
		return c, fmt.Errorf("listen address %q: %w", c.Listen, err)
	}
	if c.PublicURL == "" {
		h := host
		if h == "" || h == "0.0.0.0" || h == "::" {
			h = "127.0.0.1"
		}
		c.PublicURL = (&url.URL{Scheme: "http", Host: net.JoinHostPort(h, port), Path: c.Path}).String()
	}
	if c.Privacy == "" {
		c.Privacy = "balanced"
	}
	if !slices.Contains(privacyModes, c.Privacy) {
		return c, fmt.Errorf("privacy: %q is not strict, balanced or off", c.Privacy)
	}
	for name, tc := range c.Tenants {
		if tc.Privacy != "" && !slices.Contains(privacyModes, tc.Privacy) {
			return c, fmt.Errorf("tenants.%s.privacy: %q is not strict, balanced or off", name, tc.Privacy)
		}
	}
	if c.Approvals == "" {
		c.Approvals = policy.ApprovalsElicit
	}
	if c.Approvals != policy.ApprovalsElicit && c.Approvals != policy.ApprovalsClient {
		return c, fmt.Errorf("approvals: %q is not elicit or client", c.Approvals)
	}
	for name, p := range map[string]string{"health.liveness_path": c.Health.LivenessPath, "health.readiness_path": c.Health.ReadinessPath} {
		if p != "" && p != "-" && (!strings.HasPrefix(p, "/") || p == c.Path) {
			return c, fmt.Errorf("%s: %q must start with / and differ from the endpoint, or be - for none", name, p)
		}
	}
	if c.Tracing.SampleRatio < 0 || c.Tracing.SampleRatio > 1 {
		return c, fmt.Errorf("tracing.sample_ratio: %v is not between 0 and 1", c.Tracing.SampleRatio)
	}
	if c.Auth.Issuer != "" && c.Auth.JWKSURL == "" && c.Auth.JWKSFile == "" {
		return c, fmt.Errorf("auth.issuer is set: give auth.jwks_url or auth.jwks_file too")
	}
	if err := c.Bininspect.check(); err != nil {
		return c, err
	}
	if err := c.Plugins.check(); err != nil {
		return c, err
	}
	return c, nil
}

// check refuses a plugins block that cannot mean what it says.
func (p PluginsConfig) check() error {
	if t := time.Duration(p.PluginTimeout); t < 0 || t > 10*time.Minute {
		return fmt.Errorf("plugins.plugin_timeout: %v is not between 0 and 10m", t)
	}
	if p.ReloadInterval < 0 {
		return fmt.Errorf("plugins.reload_interval cannot be negative")
	}
	if p.MemoryBytes < 0 || p.OutputBytes < 0 {
		return fmt.Errorf("plugins.memory_bytes and plugins.output_bytes cannot be negative")
	}
	for name, caps := range p.Grants {
		if name == "" {
			return fmt.Errorf("plugins.grants: a grant names no plugin (--plugin-grant NAME=view,annotate,http)")
		}
		for _, c := range caps {
			switch c {
			case plugin.CapLog, plugin.CapProgress, plugin.CapView, plugin.CapAnnotate, plugin.CapHTTP:
			default:
				return fmt.Errorf("plugins.grants.%s: %q is not a capability (log, progress, view, annotate, http)", name, c)
			}
		}
	}
	return nil
}

// checkServe refuses a bind beyond loopback without an external issuer:
// the local development key is for this machine only.
func (c Config) checkServe() error {
	if !c.loopback() && c.Auth.Issuer == "" {
		return fmt.Errorf("listen address %q is not loopback: binding beyond loopback needs an external token issuer (auth.issuer); the local development key is for this machine only", c.Listen)
	}
	return nil
}

// loopback reports whether the listen address is a loopback one.
func (c Config) loopback() bool {
	return loopbackOnly(c.Listen) == nil
}
