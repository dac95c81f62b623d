package mcp

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/warden-mcp/warden/statestore"
	"github.com/warden-mcp/warden/tool"
)

// Protocol revisions.
const (
	// VersionModern is the stateless revision served on every request
	// that carries its _meta.
	VersionModern = "2026-07-28"
	// VersionLatestLegacy is offered to a legacy client that asks for a
	// version this server does not know.
	VersionLatestLegacy = "2025-11-25"
)

// LegacyVersions are the initialize-handshake revisions served, newest
// first.
var LegacyVersions = []string{"2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"}

// isLegacyVersion reports whether v is a legacy revision served.
func isLegacyVersion(v string) bool {
	for _, l := range LegacyVersions {
		if v == l {
			return true
		}
	}
	return false
}

// modernVersions are the revisions a request may name in its _meta; kept
// identical in server/discover and in the unsupported-version error.
var modernVersions = []string{VersionModern}

// Meta keys of the modern revision.
const (
	metaProtocolVersion = "io.modelcontextprotocol/protocolVersion"
	metaClientCaps      = "io.modelcontextprotocol/clientCapabilities"
	metaClientInfo      = "io.modelcontextprotocol/clientInfo"
	metaLogLevel        = "io.modelcontextprotocol/logLevel"
	metaServerInfo      = "io.modelcontextprotocol/serverInfo"
	metaSubscriptionID  = "io.modelcontextprotocol/subscriptionId"
)

// Options configure a Server. The zero value of each field is a safe
// default.
type Options struct {
	// Name and Version identify the server in serverInfo. Defaults:
	// "warden" and "dev".
	Name, Version, Title string
	// Instructions are returned by server/discover and initialize; empty
	// omits them.
	Instructions string
	// Logger receives diagnostics; nil discards them.
	Logger *slog.Logger
	// StateKey seals the requestState of input rounds (AES-256-GCM, 32
	// bytes). Replicas behind one endpoint must share it. Nil: a random
	// key for this process.
	StateKey []byte
	// StateTTL bounds how long an input round may wait for the client.
	// Zero: 10 minutes.
	StateTTL time.Duration
	// PageSize is the number of items per list page. Zero: 100.
	PageSize int
	// ListTTL is the ttlMs published on list and discover results. Zero:
	// 60 seconds. Clients also hear of changes on subscriptions/listen.
	ListTTL time.Duration
	// Visible filters the tools a caller sees listed. Nil: all. When
	// set, list results are marked cacheScope "private". A call to a
	// registered tool that is not visible still reaches the middleware,
	// which refuses it with a code that says why.
	Visible func(ctx context.Context, t *tool.Tool) bool
	// Middleware wraps every tool call, outermost first, around
	// tool.Invoke: each stage gets the parsed *tool.Call (see
	// tool.Middleware). Nil: the tool runs alone.
	Middleware []tool.Middleware
	// Tasks enables the io.modelcontextprotocol/tasks extension.
	Tasks bool
	// State keeps the protocol state that outlives a request: tasks,
	// legacy sessions, the events kept for resuming their streams, and
	// the answers to their server-to-client requests. Replicas behind one
	// endpoint share it (with StateKey), so that any of them serves any
	// request. Nil: this process's memory.
	State statestore.Store
}

// Server serves a tool registry, resources and prompts over MCP, in both
// protocol eras. It holds no per-connection state of the modern revision;
// legacy sessions are created by transports with NewSession.
type Server struct {
	reg        *tool.Registry
	opts       Options
	log        *slog.Logger
	serverInfo json.RawMessage
	resultMeta []byte // ,"_meta":{...serverInfo...}
	sealer     *sealer
	features   features
	tasks      bool
	state      statestore.Store
	runs       taskRuns
	// call is the tool call path: the middleware around tool.Invoke.
	call tool.Handler

	// lists holds the last rendered tools/list page per era (0 legacy, 1
	// modern) while every caller sees the same tools; see toolsList.
	lists [2]atomic.Pointer[listPage]
	// discovered holds the server/discover result rendered for each
	// combination of feature flags; everything else in it is fixed.
	discovered [featureCombos]atomic.Pointer[[]byte]

	mu        sync.Mutex
	listeners map[*listener]struct{}
	cancelReg func()

	// instance names this server in the state store; its record is kept
	// alive until Retire (state_replica.go).
	instance   string
	stopBeat   context.CancelFunc
	retireOnce sync.Once
}

// NewServer returns a server for reg.
func NewServer(reg *tool.Registry, opts *Options) *Server {
	s := &Server{reg: reg, listeners: map[*listener]struct{}{}}
	if opts != nil {
		s.opts = *opts
	}
	if s.opts.Name == "" {
		s.opts.Name = "warden"
	}
	if s.opts.Version == "" {
		s.opts.Version = "dev"
	}
	if s.opts.PageSize <= 0 {
		s.opts.PageSize = 100
	}
	if s.opts.ListTTL <= 0 {
		s.opts.ListTTL = 60 * time.Second
	}
	if s.opts.StateTTL <= 0 {
		s.opts.StateTTL = 10 * time.Minute
	}
	s.log = s.opts.Logger
	if s.log == nil {
		s.log = slog.New(slog.DiscardHandler)
	}
	key := s.opts.StateKey
	if len(key) != 32 {
		key = make([]byte, 32)
		_, _ = rand.Read(key)
	}
	s.sealer = newSealer(key)
	info := map[string]string{"name": s.opts.Name, "version": s.opts.Version}
	if s.opts.Title != "" {
		info["title"] = s.opts.Title
	}
	s.serverInfo, _ = json.Marshal(info)
	s.resultMeta = append([]byte(`,"_meta":{"`+metaServerInfo+`":`), s.serverInfo...)
	s.resultMeta = append(s.resultMeta, '}')
	s.features.init()
	s.call = tool.Chain(tool.Invoke, s.opts.Middleware...)
	s.tasks = s.opts.Tasks
	s.state = s.opts.State
	if s.state == nil {
		s.state = statestore.NewMemory()
	}
	s.cancelReg = reg.Subscribe(func() { s.broadcast(notifyTools, "") })
	s.instance = newID()
	var bctx context.Context
	bctx, s.stopBeat = context.WithCancel(context.Background())
	go s.heartbeat(bctx)
	return s
}

// Registry returns the served registry.
func (s *Server) Registry() *tool.Registry { return s.reg }

// Close stops listening to the registry, ends every open
// subscriptions/listen stream and retires the server (Retire).
func (s *Server) Close() {
	s.cancelReg()
	s.endListeners()
	s.Retire()
}

// endListeners ends every open subscriptions/listen stream and legacy
// session's interest in changes.
func (s *Server) endListeners() {
	s.mu.Lock()
	for l := range s.listeners {
		l.close()
	}
	s.mu.Unlock()
}

// Instance is the id this server is known by among the replicas sharing
// its state store.
func (s *Server) Instance() string { return s.instance }

// Retire removes the server's record from the state store: other
// replicas then take the tasks and streams it still held as lost. Call it
// last, once its calls have ended.
func (s *Server) Retire() { s.retireOnce.Do(s.stopBeat) }

// Logger returns the server's diagnostic logger.
func (s *Server) Logger() *slog.Logger { return s.log }

func (s *Server) cacheScope() string {
	if all, _ := s.reg.Tools(); s.opts.Visible != nil || needsClient(all) {
		return "private"
	}
	return "public"
}

func (s *Server) visible(ctx context.Context, t *tool.Tool) bool {
	return s.opts.Visible == nil || s.opts.Visible(ctx, t)
}

// Feature flags that shape the capabilities object: what is served
// beside tools.
const (
	hasPrompts = 1 << iota
	hasResources
	hasCompletions
	featureCombos = 1 << iota // number of flag combinations
)

// featureFlags reads which optional features are served now.
func (s *Server) featureFlags() int {
	f := &s.features
	f.mu.RLock()
	defer f.mu.RUnlock()
	flags := 0
	if len(f.prompts) > 0 {
		flags |= hasPrompts
	}
	if len(f.resources) > 0 || len(f.templates) > 0 {
		flags |= hasResources
	}
	if f.completions() {
		flags |= hasCompletions
	}
	return flags
}

// capabilities renders the server capabilities object. Prompts, resources
// and completions are advertised only when something serves them, so that
// what discover declares is exactly what answers.
func (s *Server) capabilities(legacy bool) map[string]any {
	return s.capabilitiesFor(s.featureFlags(), legacy)
}

func (s *Server) capabilitiesFor(flags int, legacy bool) map[string]any {
	caps := map[string]any{
		"tools":   map[string]any{"listChanged": true},
		"logging": map[string]any{},
	}
	if flags&hasPrompts != 0 {
		caps["prompts"] = map[string]any{"listChanged": true}
	}
	if flags&hasResources != 0 {
		caps["resources"] = map[string]any{"listChanged": true, "subscribe": true}
	}
	if flags&hasCompletions != 0 {
		caps["completions"] = map[string]any{}
	}
	if s.tasks && !legacy {
		caps["extensions"] = map[string]any{taskExtension: map[string]any{}}
	}
	return caps
}

func (s *Server) ttlMs() int64 { return s.opts.ListTTL.Milliseconds() }
