package tool

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
)

// Trust is the human-approval tier of a tool. It has no default: a
// definition that leaves it empty is refused at registration, so every tool
// makes an explicit decision. It is published in the tool's catalog
// metadata; a server's policy enforces it (Warden asks the person through
// the client, or trusts a client or gateway in front to ask).
type Trust string

const (
	// TrustAuto runs without asking a person. Only for read-only tools
	// that are neither destructive nor unsafe, with bounded output:
	// registration refuses it elsewhere.
	TrustAuto Trust = "auto"
	// TrustConfirm asks a person once before the tool is first used.
	TrustConfirm Trust = "confirm"
	// TrustConfirmEach asks a person before every call.
	TrustConfirmEach Trust = "confirm_each"
)

// Scope says whether a tool needs the caller's active target.
type Scope int

const (
	// Global tools run without an active target. A global tool may still
	// ask for one with Call.View.
	Global Scope = iota
	// ViewScoped tools act on one of the caller's open targets (an open
	// binary, say). The SDK adds an optional "view" parameter to their
	// input schema; the server resolves the target from it (or from the
	// session's active view, or the caller's only open one) before the
	// arguments are decoded, and answers no_active_binary_view itself
	// when there is none. Call.View returns it.
	ViewScoped
)

// Annotations are the four behaviour hints of the MCP tool definition.
// All four are always sent, with an explicit false where a flag is not set,
// so a client never falls back to the specification's pessimistic defaults
// by accident.
type Annotations struct {
	ReadOnly    bool // the tool does not modify its environment
	Destructive bool // the tool may perform destructive updates
	Idempotent  bool // repeating a call with the same arguments has no further effect
	OpenWorld   bool // the tool reaches entities outside a closed domain (the network, say)
}

// Catalog is the policy metadata of a definition. The policy layer enforces
// it; the SDK requires it from the start.
type Catalog struct {
	// Category groups tools in listings ("secrets", "web", "binary", ...).
	// Required.
	Category string
	// DisabledByDefault keeps the tool off unless a configuration enables
	// it. The zero value means enabled by default.
	DisabledByDefault bool
	// Unsafe marks a tool that changes state or sends traffic. The zero
	// value means safe. Servers keep unsafe tools off unless switched on.
	Unsafe bool
	// TargetParam names the argument that holds the network target (a URL
	// or a host name) of a tool that sends traffic. A server checks the
	// target against its scope before the handler runs, so an
	// out-of-scope target costs no look-up and no connection. It must be
	// a string parameter of the tool.
	TargetParam string
	// Trust is the approval tier. Required: the zero value is refused.
	Trust Trust
	// ConsumesQuota says each call spends one scan quota unit.
	ConsumesQuota bool
	// ApproveAtBegin says the handler runs its own checks (arguments,
	// ports, addresses) first and calls Call.Begin before any effect: a
	// confirm or confirm_each tool is then asked for at Begin, so a
	// person never approves a call its checks refuse. A handler that
	// succeeds without calling Begin has its result replaced by
	// internal_error. The zero value asks before the handler runs.
	ApproveAtBegin bool
}

// TaskSupport says whether a tool can run as a task of the
// io.modelcontextprotocol/tasks extension: answered at once with a task id,
// then polled.
type TaskSupport string

const (
	// TasksNone: the tool always answers in the call. The zero value.
	TasksNone TaskSupport = ""
	// TasksOptional: the tool becomes a task when the client supports
	// tasks and the handler calls Call.Detach.
	TasksOptional TaskSupport = "optional"
	// TasksRequired: the tool runs only as a task; a client without the
	// extension is refused.
	TasksRequired TaskSupport = "required"
)

// Def describes a tool. Pass it to Add, AddRaw or Registry.Register.
type Def struct {
	// Name: 1–64 characters of A-Z a-z 0-9 _ -, unique in a registry.
	Name string
	// Title is an optional display name.
	Title string
	// Description is required: models choose tools by it.
	Description string
	Annotations Annotations
	Catalog     Catalog
	Scope       Scope
	// Tasks says whether the tool can run as a task. Zero: never.
	Tasks TaskSupport
	// ClientNeeds are client capabilities ("roots", "sampling",
	// "elicitation") without which the tool cannot work: a client that
	// did not declare them is not shown it in tools/list. Nil: listed to
	// every client.
	ClientNeeds []string
	// Meta adds members to the tool's _meta in listings, for clients
	// and gateways that read them. Keys take the MCP form
	// "prefix/name" (a reverse-DNS prefix is recommended); the
	// dev.warden/catalog key and the reserved MCP prefixes are refused.
	// Values must marshal to JSON.
	Meta map[string]any
	// OutputSchema is the published output schema of a raw tool (a JSON
	// Schema object with "type":"object"). Typed tools derive theirs
	// from the result type and must leave it nil.
	OutputSchema json.RawMessage
}

var nameRE = regexp.MustCompile(`^[A-Za-z0-9_-]{1,64}$`)

// clientCapabilities are those a tool may need (Def.ClientNeeds).
var clientCapabilities = map[string]bool{"roots": true, "sampling": true, "elicitation": true}

func (d *Def) check() error {
	if !nameRE.MatchString(d.Name) {
		return fmt.Errorf("tool name %q: want 1-64 characters of A-Z a-z 0-9 _ -", d.Name)
	}
	if strings.TrimSpace(d.Description) == "" {
		return fmt.Errorf("tool %s: description required", d.Name)
	}
	switch d.Catalog.Trust {
	case TrustAuto, TrustConfirm, TrustConfirmEach:
	case "":
		return fmt.Errorf("tool %s: no trust decision (set Catalog.Trust to auto, confirm or confirm_each)", d.Name)
	default:
		return fmt.Errorf("tool %s: unknown trust tier %q", d.Name, d.Catalog.Trust)
	}
	if strings.TrimSpace(d.Catalog.Category) == "" {
		return fmt.Errorf("tool %s: catalog category required", d.Name)
	}
	for _, c := range d.ClientNeeds {
		if !clientCapabilities[c] {
			return fmt.Errorf("tool %s: unknown client capability %q in ClientNeeds (roots, sampling or elicitation)", d.Name, c)
		}
	}
	for k := range d.Meta {
		if !metaKeyRE.MatchString(k) || k == catalogMetaKey || reservedMetaPrefix(k) {
			return fmt.Errorf("tool %s: _meta key %q is not a valid, unreserved MCP _meta key", d.Name, k)
		}
	}
	switch d.Tasks {
	case TasksNone, TasksOptional, TasksRequired:
	default:
		return fmt.Errorf("tool %s: unknown task support %q", d.Name, d.Tasks)
	}
	if d.Annotations.ReadOnly && d.Annotations.Destructive {
		return fmt.Errorf("tool %s: read-only and destructive contradict", d.Name)
	}
	if d.Catalog.Trust == TrustAuto && (!d.Annotations.ReadOnly || d.Annotations.Destructive || d.Catalog.Unsafe) {
		return fmt.Errorf("tool %s: trust auto (no person asked) is only for read-only, non-destructive, safe tools; choose confirm or confirm_each", d.Name)
	}
	return nil
}

// catalogMetaKey is where a listing publishes the catalog.
const catalogMetaKey = "dev.warden/catalog"

// metaKeyRE is the MCP _meta key form: an optional prefix of dot-separated
// labels ending in "/", then a name.
var metaKeyRE = regexp.MustCompile(`^(?:[A-Za-z](?:[A-Za-z0-9-]*[A-Za-z0-9])?(?:\.[A-Za-z](?:[A-Za-z0-9-]*[A-Za-z0-9])?)*/)?[A-Za-z0-9](?:[A-Za-z0-9._-]*[A-Za-z0-9])?$`)

// reservedMetaPrefix reports a prefix whose second label is
// modelcontextprotocol or mcp, which the specification reserves.
func reservedMetaPrefix(key string) bool {
	prefix, _, ok := strings.Cut(key, "/")
	if !ok {
		return false
	}
	labels := strings.Split(strings.ToLower(prefix), ".")
	return len(labels) > 1 && (labels[1] == "modelcontextprotocol" || labels[1] == "mcp")
}

// Tool is a registered tool: its definition, its schemas as published, and
// its handler.
type Tool struct {
	Def
	inputSchema  json.RawMessage
	outputSchema json.RawMessage
	headers      []HeaderParam
	handler      RawHandler
	family       *familyViews    // the family's view resolver, once registered in one
	listing      json.RawMessage // the tools/list entry, precomputed
}

// InputSchema returns the published input schema.
func (t *Tool) InputSchema() json.RawMessage { return t.inputSchema }

// OutputSchema returns the published output schema, or nil.
func (t *Tool) OutputSchema() json.RawMessage { return t.outputSchema }

type listingJSON struct {
	Name         string          `json:"name"`
	Title        string          `json:"title,omitempty"`
	Description  string          `json:"description"`
	InputSchema  json.RawMessage `json:"inputSchema"`
	OutputSchema json.RawMessage `json:"outputSchema,omitempty"`
	Annotations  annotationsJSON `json:"annotations"`
	Meta         map[string]any  `json:"_meta,omitempty"`
}

type annotationsJSON struct {
	Title           string `json:"title,omitempty"`
	ReadOnlyHint    bool   `json:"readOnlyHint"`
	DestructiveHint bool   `json:"destructiveHint"`
	IdempotentHint  bool   `json:"idempotentHint"`
	OpenWorldHint   bool   `json:"openWorldHint"`
}

func (t *Tool) buildListing() error {
	l := listingJSON{
		Name:         t.Name,
		Title:        t.Title,
		Description:  t.Description,
		InputSchema:  t.inputSchema,
		OutputSchema: t.outputSchema,
		Annotations: annotationsJSON{
			Title:           t.Title,
			ReadOnlyHint:    t.Annotations.ReadOnly,
			DestructiveHint: t.Annotations.Destructive,
			IdempotentHint:  t.Annotations.Idempotent,
			OpenWorldHint:   t.Annotations.OpenWorld,
		},
		Meta: map[string]any{catalogMetaKey: catalogJSON(t.Def)},
	}
	for k, v := range t.Meta {
		l.Meta[k] = v
	}
	b, err := json.Marshal(l)
	if err != nil {
		return fmt.Errorf("tool %s: listing: %w", t.Name, err)
	}
	t.listing = b
	return nil
}

func catalogJSON(d Def) map[string]any {
	scope := "global"
	if d.Scope == ViewScoped {
		scope = "view"
	}
	m := map[string]any{
		"category":         d.Catalog.Category,
		"enabledByDefault": !d.Catalog.DisabledByDefault,
		"unsafe":           d.Catalog.Unsafe,
		"trust":            d.Catalog.Trust,
		"consumesQuota":    d.Catalog.ConsumesQuota,
		"scope":            scope,
	}
	if d.Tasks != TasksNone {
		m["tasks"] = d.Tasks
	}
	if d.Catalog.TargetParam != "" {
		m["targetParam"] = d.Catalog.TargetParam
	}
	return m
}
