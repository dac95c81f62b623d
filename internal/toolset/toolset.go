// Package toolset binds Warden's engines to tool definitions: one file per
// family (keysweep_, microdefend_, bininspect_). It is an adapter: the engines
// know nothing of MCP, and the wiring in internal/cli decides which
// families a server offers.
//
// It lives under internal/ because it is Warden's product, not the SDK: a tool
// author builds on package tool (and tool/tooltest), and only the wiring of
// cmd/warden reaches these bindings, so their names can change without
// breaking anyone.
package toolset

import (
	"log/slog"
	"slices"
	"time"

	"github.com/warden-mcp/warden/safehttp"

	"github.com/warden-mcp/warden/tool"
)

// Deps are the shared things a family may need.
type Deps struct {
	// Logger receives causes that never reach a client. Nil discards.
	Logger *slog.Logger
	// FingerprintKey keys the fingerprints of found secrets. Nil: a key
	// for this process only, so fingerprints do not match across runs.
	FingerprintKey []byte
	// SafeHTTP configures the fetcher of the website scans. Nil is the
	// production policy. Tests set it to reach their own loopback
	// fixtures, and warden scan site to honour --allow-private and
	// --allow-port; no server wiring, configuration file or tool
	// argument reaches it (internal/cli's TestWidenedFetchIsCommandLineOnly).
	// http_request uses the same policy.
	SafeHTTP *safehttp.Options
	// Annotations keeps what people add to binaries (comments, names,
	// function starts) for the bininspect_ tools, and lays the names over
	// the views a resolver returns. Nil: the annotation tools answer
	// annotations_unavailable and listings carry no names people set.
	Annotations *AnnotationLayer
	// CodeWait is how long a bininspect_ tool waits for an unfinished
	// stage of a view's code analysis before it answers with what is
	// ready and the warning analysis_incomplete. Zero: 2 s.
	CodeWait time.Duration
	// Binary serves the bininspect_ family: its views, store and limits.
	// Nil: a service for this process alone (a memory store, no roots),
	// enough to list the tools.
	Binary *BinaryViews
	// InScope reports whether a network tool may reach a host (lower
	// case, no port, no trailing dot): the server's tools.scope. The scope
	// gate checks a tool's target argument before the handler runs; tools
	// that follow redirects check every further hop with this. Nil: every
	// host the SSRF rules allow.
	InScope func(host string) bool
	// Native is what the warden_ tools read about the server. Nil: they
	// answer with what a bare registry knows. Its Privacy also tells the
	// byte tools (memory_read, address_info, search_bytes) and http_parse
	// the caller's privacy mode, for what they must remove with context
	// the field pass lacks; nil there is balanced.
	Native *Native

	// registry is the registry being filled, for warden_status.
	registry *tool.Registry
}

// Edition names a build of Warden. Build tags select editions: the lean
// edition ships no tool that sends traffic; the full edition ships all.
type Edition string

const (
	EditionLean Edition = "lean"
	EditionFull Edition = "full"
)

// Categories are the documented tool categories (docs/operations.md), each
// with what its tools do. Every built-in tool names one.
var Categories = map[string]string{
	"secrets":   "find exposed credentials in text",
	"web":       "grade websites from the outside",
	"binary":    "inspect and analyse executable files",
	"utilities": "offline encoding, hashing, token and compression helpers",
	"http":      "parse and send HTTP requests",
	"warden":    "the server's own status, findings and audit trail",
}

// Prefixes are the name prefixes of Warden's own tool families. Register
// claims every one of them in the registry, including families this build
// leaves out, so that no other tool can pass itself off as a built-in.
var Prefixes = []string{"warden_", "keysweep_", "microdefend_", "bininspect_", "util_", "http_"}

// Selection says which tools to register. Every tool of the build's
// edition is registered, those off by default included: the server's
// gates decide which ones a caller may list and call, and say why not.
type Selection struct {
	// Edition is the build's edition; families outside it are skipped.
	Edition Edition
}

// family is one family's constructor: it builds its tools.
type family struct {
	prefix string
	// editions ship the family; nil means every edition.
	editions []Edition
	build    func(Deps) ([]*tool.Tool, error)
}

func (f family) inEdition(e Edition) bool {
	return f.editions == nil || slices.Contains(f.editions, e)
}

// families lists every built-in family, in registration order.
var families = []family{
	{prefix: "warden_", build: wardenTools},
	{prefix: "keysweep_", build: keysweepTools},
	{prefix: "bininspect_", build: bininspectTools},
	// Code analysis and annotations on binary views: the other half of
	// the bininspect_ family, registered under the same prefix.
	{prefix: "bininspect_", build: bininspectCodeTools},
	{prefix: "util_", build: utilTools},
	{prefix: "http_", build: httpParseTools},
	// The lean edition ships no tool that sends traffic.
	{prefix: "microdefend_", editions: []Edition{EditionFull}, build: microdefendTools},
	{prefix: "http_", editions: []Edition{EditionFull}, build: httpRequestTools},
}

// Register claims every built-in family's prefix in reg and registers the
// selected tools of the families in the selection's edition.
func Register(reg *tool.Registry, deps Deps, sel Selection) error {
	deps.registry = reg
	fams := map[string]*tool.Family{}
	for _, p := range Prefixes {
		fam, err := reg.Family(p)
		if err != nil {
			return err
		}
		fams[p] = fam
	}
	if deps.Binary != nil {
		// The views the bininspect_ tools open are theirs to find.
		fams["bininspect_"].ResolveViews(deps.Binary.Resolve)
	}
	for _, f := range families {
		if !f.inEdition(sel.Edition) {
			continue
		}
		tools, err := f.build(deps)
		if err != nil {
			return err
		}
		for _, t := range tools {
			if err := fams[f.prefix].Register(t); err != nil {
				return err
			}
		}
	}
	return nil
}
