package tool

import (
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
)

// Trust is the human-approval tier of a tool. It has no default: a
// definition that leaves it empty is refused at registration, so every tool
// makes an explicit decision. It is published in the tool's catalog
// metadata for clients and gateways that ask a person before a call; the
// server itself does not prompt.
type Trust string

const (
	// TrustAuto runs without asking a person. Fit for read-only tools with
	// bounded output.
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
	// ViewScoped tools act on the caller's active target (an open binary,
	// say). The server resolves it before the handler runs and answers
	// no_active_view itself when there is none.
	ViewScoped
)

// Edition names a build of Warden. Build tags select editions: the lean
// edition ships the tools marked EditionLean; the full edition ships all.
type Edition string

const (
	EditionLean Edition = "lean"
	EditionFull Edition = "full"
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
	// value means safe.
	Unsafe bool
	// Trust is the approval tier. Required: the zero value is refused.
	Trust Trust
	// ConsumesQuota says each call spends one scan quota unit.
	ConsumesQuota bool
	// Editions lists the builds that ship the tool. Empty means every
	// edition.
	Editions []Edition
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
}

var nameRE = regexp.MustCompile(`^[A-Za-z0-9_-]{1,64}$`)

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
	for _, e := range d.Catalog.Editions {
		if e != EditionLean && e != EditionFull {
			return fmt.Errorf("tool %s: unknown edition %q", d.Name, e)
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
	return nil
}

// InEdition reports whether the definition ships in edition e.
func (d *Def) InEdition(e Edition) bool {
	if len(d.Catalog.Editions) == 0 {
		return true
	}
	for _, x := range d.Catalog.Editions {
		if x == e {
			return true
		}
	}
	return false
}

// Handler is the untyped form every tool is reduced to. args are the raw
// JSON arguments of the call (never nil: an absent argument object is {}).
// Most authors use Add instead and never see this type.
type Handler func(ctx context.Context, call *Call, args json.RawMessage) (*Result, error)

// Tool is a registered tool: its definition, its schemas as published, and
// its handler.
type Tool struct {
	Def
	inputSchema  json.RawMessage
	outputSchema json.RawMessage
	headers      []HeaderParam
	handler      Handler
	listing      json.RawMessage // the tools/list entry, precomputed
}

// HeaderParam is an argument mirrored into an Mcp-Param-{Header} HTTP
// header (the "x-mcp-header" schema keyword).
type HeaderParam struct {
	Arg    string // argument name
	Header string // header suffix
	Kind   string // "string", "integer" or "boolean"
}

// InputSchema returns the published input schema.
func (t *Tool) InputSchema() json.RawMessage { return t.inputSchema }

// OutputSchema returns the published output schema, or nil.
func (t *Tool) OutputSchema() json.RawMessage { return t.outputSchema }

// HeaderParams lists the arguments the tool mirrors into headers.
func (t *Tool) HeaderParams() []HeaderParam { return t.headers }

// Listing returns the tool's tools/list entry as JSON.
func (t *Tool) Listing() json.RawMessage { return t.listing }

// Invoke runs the handler with panic recovery and error shaping: the result
// is exactly what a client receives. It does not resolve the view; callers
// that serve clients go through the server, which does.
func (t *Tool) Invoke(ctx context.Context, call *Call, args json.RawMessage) *Result {
	return t.invoke(ctx, call, args)
}

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
		Meta: map[string]any{
			"dev.warden/catalog": catalogJSON(t.Def),
		},
	}
	b, err := json.Marshal(l)
	if err != nil {
		return fmt.Errorf("tool %s: listing: %w", t.Name, err)
	}
	t.listing = b
	return nil
}

func catalogJSON(d Def) map[string]any {
	ed := d.Catalog.Editions
	if len(ed) == 0 {
		ed = []Edition{EditionLean, EditionFull}
	}
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
		"editions":         ed,
		"scope":            scope,
	}
	if d.Tasks != TasksNone {
		m["tasks"] = d.Tasks
	}
	return m
}
