package toolset

import (
	"context"
	"strings"
	"time"

	"github.com/warden-mcp/warden/annotation"
	"github.com/warden-mcp/warden/binview"
	"github.com/warden-mcp/warden/errcode"
	"github.com/warden-mcp/warden/tool"
)

// The annotation tools of the bininspect_ family: comments, names and
// function starts a person adds to a binary. They are kept in the store
// as an append-only log keyed by the caller's tenant and the file's
// SHA-256, addressed relative to the image base, so they survive closing
// the view, uploading the file again, loading it at another base, a
// restart and another replica. Every write returns the value before and
// after it, and a write that changes nothing appends nothing.

// AnnotationValue is one annotation as stored.
type AnnotationValue struct {
	Text   string `json:"text" privacy:"plain" desc:"The comment or name; empty for a function start."`
	Author string `json:"author" privacy:"plain" desc:"The id of the credential that set it (local for the local user): a name, not a secret."`
	Time   string `json:"time" privacy:"plain" desc:"When it was set (RFC 3339, UTC)."`
	Seq    int64  `json:"seq" desc:"Its number in the file's log."`
}

func annotationValue(e *annotation.Entry) *AnnotationValue {
	if e == nil {
		return nil
	}
	return &AnnotationValue{Text: e.Text, Author: e.Author, Time: e.Time.UTC().Format(time.RFC3339Nano), Seq: e.Seq}
}

// AnnotationChange is what a write did.
type AnnotationChange struct {
	Address string           `json:"address" privacy:"plain"`
	Offset  string           `json:"offset" privacy:"plain" desc:"The address minus the image base: how the annotation is stored."`
	Kind    string           `json:"kind" privacy:"plain" desc:"comment, name or function."`
	Before  *AnnotationValue `json:"before" desc:"The value before the call; null when there was none."`
	After   *AnnotationValue `json:"after" desc:"The value after the call; null when there is none."`
	Changed bool             `json:"changed" desc:"False when the call changed nothing (writes are idempotent)."`
}

// RenameResult is bininspect_symbol_rename's answer.
type RenameResult struct {
	Address      string           `json:"address" privacy:"plain"`
	Offset       string           `json:"offset" privacy:"plain" desc:"The address minus the image base: how the name is stored."`
	Before       *AnnotationValue `json:"before" desc:"The name a person set before; null when none."`
	After        *AnnotationValue `json:"after"`
	Changed      bool             `json:"changed" desc:"False when the address already had this name."`
	PreviousName string           `json:"previous_name" privacy:"plain" desc:"The name listings showed before: a name set earlier, the file's symbol, or sub_<hex>."`
}

// DefineResult is bininspect_function_define's answer.
type DefineResult struct {
	Function        AnnotationChange  `json:"function"`
	Name            *AnnotationChange `json:"name,omitempty" desc:"When a name was given: its change."`
	FoundByAnalysis bool              `json:"found_by_analysis" desc:"The analysis had already found a function there."`
}

// AnnotationItem is one annotation of a listing.
type AnnotationItem struct {
	Address string `json:"address" privacy:"plain"`
	Offset  string `json:"offset" privacy:"plain" desc:"Address minus image base."`
	Kind    string `json:"kind" privacy:"plain"`
	Text    string `json:"text" privacy:"plain"`
	Author  string `json:"author" privacy:"plain" desc:"The id of the credential that set it."`
	Time    string `json:"time" privacy:"plain"`
	Seq     int64  `json:"seq"`
	Deleted bool   `json:"deleted,omitempty" desc:"In history: a deletion."`
}

// AnnotationsResult is a page of bininspect_annotations: with the file's
// hash and image base it is also an export that can be applied again.
type AnnotationsResult struct {
	SHA256     string           `json:"sha256" privacy:"plain"`
	ImageBase  string           `json:"image_base" privacy:"plain"`
	History    bool             `json:"history" desc:"Items are the whole log, superseded values and deletions included."`
	Items      []AnnotationItem `json:"items"`
	Count      int              `json:"count"`
	Total      int              `json:"total"`
	NextOffset int              `json:"next_offset,omitempty"`
	Truncated  bool             `json:"truncated"`
}

type commentSetArgs struct {
	Address tool.Address `json:"address" desc:"Where the comment goes."`
	Text    string       `json:"text" minLength:"1" maxLength:"4096" desc:"The comment, at most 4096 characters; newlines allowed."`
}

type annotationAddressArgs struct {
	Address tool.Address `json:"address" desc:"The annotated address."`
}

type renameArgs struct {
	Address tool.Address `json:"address" desc:"The address to name (a function's entry, data, any mapped address)."`
	Name    string       `json:"name" minLength:"1" maxLength:"256" desc:"The new name: no spaces or quotes, not starting with a digit, not sub_/data_/loc_<hex>. It resolves in address expressions and wins in every listing."`
}

type defineArgs struct {
	Address tool.Address `json:"address" desc:"Where the function starts."`
	Name    string       `json:"name,omitempty" maxLength:"256" desc:"Optionally, its name."`
}

type annotationsArgs struct {
	Offset  int           `json:"offset" default:"0" min:"0" max:"100000000"`
	Limit   int           `json:"limit" default:"100" min:"1" max:"1000"`
	Address *tool.Address `json:"address,omitempty" desc:"Only annotations at this address."`
	Start   *tool.Address `json:"start,omitempty"`
	End     *tool.Address `json:"end,omitempty"`
	Length  *tool.IntExpr `json:"length,omitempty" relative:"start"`
	Query   string        `json:"query,omitempty" maxLength:"256" desc:"Keep annotations whose text contains this (case-insensitive)."`
	Kind    string        `json:"kind" default:"any" enum:"comment,name,function,any"`
	History bool          `json:"history" default:"false" desc:"List the whole log (every value ever set, deletions included) instead of the current annotations."`
}

func bininspectAnnotationTools(deps Deps) ([]*tool.Tool, error) {
	c := newCodeTools(deps)
	// Writes: a person is asked once (confirm); repeating a call changes
	// nothing more (idempotent); nothing is destroyed, since the log keeps
	// every earlier value and a deletion is one more entry.
	write := tool.Annotations{Idempotent: true}
	wcat := tool.Catalog{Category: "binary", Trust: tool.TrustConfirm}
	var tools []*tool.Tool
	add := func(t *tool.Tool, err error) error {
		if err != nil {
			return err
		}
		tools = append(tools, t)
		return nil
	}
	for _, err := range []error{
		add(tool.New(tool.Def{
			Name:  "bininspect_comment_set",
			Title: "Set a comment",
			Description: "Set the comment at an address of the open binary, replacing the previous one. Comments are kept per tenant and file (by SHA-256), " +
				"relative to the image base, across sessions, restarts and replicas; disassembly shows them. Returns the comment before and after. " +
				"A comment that holds a credential is refused (annotation_holds_secret): the store never keeps one.",
			Annotations: write, Catalog: wcat, Scope: tool.ViewScoped,
		}, c.commentSet)),
		add(tool.New(tool.Def{
			Name:  "bininspect_comment_delete",
			Title: "Delete a comment",
			Description: "Delete the comment at an address. The log keeps the deleted text (bininspect_annotations with history shows it), " +
				"so nothing is lost. Returns the comment before.",
			Annotations: write, Catalog: wcat, Scope: tool.ViewScoped,
		}, c.commentDelete)),
		add(tool.New(tool.Def{
			Name:  "bininspect_symbol_rename",
			Title: "Name an address",
			Description: "Give an address (a function, data) a name. The name resolves in address expressions of every bininspect tool " +
				"and replaces the file's name or sub_<hex> in every listing (source user). Returns the name before and after. " +
				"A name that holds a credential, even glued into an identifier (tok_ghp_...), is refused (annotation_holds_secret).",
			Annotations: write, Catalog: wcat, Scope: tool.ViewScoped,
		}, c.symbolRename)),
		add(tool.New(tool.Def{
			Name:  "bininspect_function_define",
			Title: "Declare a function",
			Description: "Declare that a function starts at an address the analysis missed (optionally naming it). It appears in bininspect_functions " +
				"with source user. Returns the state before and after.",
			Annotations: write, Catalog: wcat, Scope: tool.ViewScoped,
		}, c.functionDefine)),
		add(tool.New(tool.Def{
			Name:  "bininspect_annotations",
			Title: "List annotations",
			Description: "List the comments, names and function starts set on the open binary by your tenant, across sessions and restarts, " +
				"with the file's SHA-256 and image base so the list can be exported and applied again. " +
				"history lists every value ever set, deletions included.",
			Annotations: tool.Annotations{ReadOnly: true, Idempotent: true},
			Catalog:     tool.Catalog{Category: "binary", Trust: tool.TrustAuto},
			Scope:       tool.ViewScoped,
		}, c.annotations)),
	} {
		if err != nil {
			return nil, err
		}
	}
	return tools, nil
}

// writeTarget checks what a write needs: a store, an identity, a view
// whose file hash is known, and a mapped address. It returns the entry
// with file, offset and author filled in.
func (c *codeTools) writeTarget(ctx context.Context, call *tool.Call, addr uint64, kind annotation.Kind) (*binview.View, annotation.Entry, error) {
	v, err := binaryViewOf(call)
	if err != nil {
		return nil, annotation.Entry{}, err
	}
	if c.layer == nil {
		return nil, annotation.Entry{}, errcode.New(annotation.CodeUnavailable, "this server keeps no annotations (no store is configured)")
	}
	tenant, cred, ok := codeCaller(ctx)
	if !ok {
		return nil, annotation.Entry{}, errcode.New("unauthenticated", "annotations belong to a tenant; the call carries no identity")
	}
	if !v.Mapped(addr) {
		return nil, annotation.Entry{}, errcode.New(binview.CodeAddressUnmapped, "the address is not mapped in this file").WithDetail("address", codeHex(addr))
	}
	e := annotation.Entry{File: annotationFile(tenant, v), Kind: kind, Offset: addr - v.Analysis().ImageBase, Author: cred}
	return v, e, nil
}

func annotationChangeOf(addr uint64, e annotation.Entry, ch annotation.Change) AnnotationChange {
	return AnnotationChange{Address: codeHex(addr), Offset: codeHex(e.Offset), Kind: string(e.Kind),
		Before: annotationValue(ch.Before), After: annotationValue(ch.After), Changed: ch.Changed}
}

// CodeAnnotationSecret: a comment or name holds a credential, which the
// annotation store never keeps, whatever the privacy mode.
const CodeAnnotationSecret = "annotation_holds_secret"

// refuseSecret refuses an annotation text that holds a credential: the
// store keeps annotations for every later reader, so none may hold one.
// A name is read with each of its parts standing alone too, so a token
// glued into an identifier (tok_ghp_..., ghp_..._key) is found.
func refuseSecret(what, text string) error {
	if typ := balanced().Credential(text); typ != "" {
		return errcode.New(CodeAnnotationSecret, "the "+what+" holds a credential ("+typ+"), and annotations never keep one: remove it and try again")
	}
	return nil
}

func (c *codeTools) commentSet(ctx context.Context, call *tool.Call, in commentSetArgs) (AnnotationChange, error) {
	if err := refuseSecret("comment", in.Text); err != nil {
		return AnnotationChange{}, err
	}
	_, e, err := c.writeTarget(ctx, call, uint64(in.Address), annotation.KindComment)
	if err != nil {
		return AnnotationChange{}, err
	}
	e.Text = in.Text
	ch, err := annotation.Set(ctx, c.layer.store, e)
	if err != nil {
		return AnnotationChange{}, c.storeError(call, err)
	}
	return annotationChangeOf(uint64(in.Address), e, ch), nil
}

func (c *codeTools) commentDelete(ctx context.Context, call *tool.Call, in annotationAddressArgs) (AnnotationChange, error) {
	_, e, err := c.writeTarget(ctx, call, uint64(in.Address), annotation.KindComment)
	if err != nil {
		return AnnotationChange{}, err
	}
	ch, err := annotation.Delete(ctx, c.layer.store, e)
	if err != nil {
		return AnnotationChange{}, c.storeError(call, err)
	}
	return annotationChangeOf(uint64(in.Address), e, ch), nil
}

// displayName is what listings call addr: a name a person set, the
// file's symbol, the analysis's function name, or sub_<hex>.
func (c *codeTools) displayName(ctx context.Context, call *tool.Call, v *binview.View, addr uint64) string {
	o, _ := c.overlay(ctx, call, v)
	if n, ok := o.Name(addr); ok {
		return n
	}
	if s, off, ok := v.SymbolAt(addr); ok && off == 0 {
		return s.Name
	}
	fns := v.Functions(v.CodeState(), o)
	if f, ok := binview.FunctionContaining(fns, nil, addr); ok && f.Addr == addr {
		return f.Name
	}
	return binview.AutoName(addr)
}

func (c *codeTools) symbolRename(ctx context.Context, call *tool.Call, in renameArgs) (RenameResult, error) {
	if err := annotation.CheckName(in.Name); err != nil {
		return RenameResult{}, err
	}
	if err := refuseSecret("name", in.Name); err != nil {
		return RenameResult{}, err
	}
	v, e, err := c.writeTarget(ctx, call, uint64(in.Address), annotation.KindName)
	if err != nil {
		return RenameResult{}, err
	}
	prev := c.displayName(ctx, call, v, uint64(in.Address))
	e.Text = in.Name
	ch, err := annotation.Set(ctx, c.layer.store, e)
	if err != nil {
		return RenameResult{}, c.storeError(call, err)
	}
	c2 := annotationChangeOf(uint64(in.Address), e, ch)
	return RenameResult{Address: c2.Address, Offset: c2.Offset, Before: c2.Before, After: c2.After, Changed: c2.Changed, PreviousName: prev}, nil
}

func (c *codeTools) functionDefine(ctx context.Context, call *tool.Call, in defineArgs) (DefineResult, error) {
	if in.Name != "" {
		if err := annotation.CheckName(in.Name); err != nil {
			return DefineResult{}, err
		}
		if err := refuseSecret("name", in.Name); err != nil {
			return DefineResult{}, err
		}
	}
	v, e, err := c.writeTarget(ctx, call, uint64(in.Address), annotation.KindFunction)
	if err != nil {
		return DefineResult{}, err
	}
	if s, ok := v.SectionAt(uint64(in.Address)); ok && s.Perm&binview.PermX == 0 {
		return DefineResult{}, errcode.New("invalid_params", "a function must start in executable code").WithDetail("section", s.FullName())
	}
	out := DefineResult{}
	for _, f := range v.CodeState().Functions {
		if f.Addr == uint64(in.Address) {
			out.FoundByAnalysis = true
			break
		}
	}
	ch, err := annotation.Set(ctx, c.layer.store, e)
	if err != nil {
		return DefineResult{}, c.storeError(call, err)
	}
	out.Function = annotationChangeOf(uint64(in.Address), e, ch)
	if in.Name != "" {
		ne := e
		ne.Kind, ne.Text = annotation.KindName, in.Name
		nch, err := annotation.Set(ctx, c.layer.store, ne)
		if err != nil {
			return DefineResult{}, c.storeError(call, err)
		}
		nc := annotationChangeOf(uint64(in.Address), ne, nch)
		out.Name = &nc
	}
	return out, nil
}

// storeError logs a store failure's cause and returns its public form.
func (c *codeTools) storeError(call *tool.Call, err error) error {
	if e, ok := errcode.As(err); ok && e.Code != annotation.CodeUnavailable {
		return err
	}
	call.Logger().Error("annotation store failed", "tool", call.ToolName(), "cause", err.Error())
	return errcode.New(annotation.CodeUnavailable, "the annotation store is unavailable; nothing was changed, try again")
}

func (c *codeTools) annotations(ctx context.Context, call *tool.Call, in annotationsArgs) (AnnotationsResult, error) {
	v, err := binaryViewOf(call)
	if err != nil {
		return AnnotationsResult{}, err
	}
	var q binview.Query
	if err := codeRange(&q, in.Address, in.Start, in.End, in.Length); err != nil {
		return AnnotationsResult{}, err
	}
	if c.layer == nil {
		return AnnotationsResult{}, errcode.New(annotation.CodeUnavailable, "this server keeps no annotations (no store is configured)")
	}
	tenant, _, ok := codeCaller(ctx)
	if !ok {
		return AnnotationsResult{}, errcode.New("unauthenticated", "annotations belong to a tenant; the call carries no identity")
	}
	base := v.Analysis().ImageBase
	f := annotationFile(tenant, v)
	var entries []annotation.Entry
	if in.History {
		for after := int64(0); ; {
			es, err := c.layer.store.AnnotationLog(ctx, f, after, 5000)
			if err != nil {
				return AnnotationsResult{}, c.storeError(call, err)
			}
			entries = append(entries, es...)
			if len(es) < 5000 {
				break
			}
			after = es[len(es)-1].Seq
		}
	} else {
		st, err := c.layer.State(ctx, f)
		if err != nil {
			return AnnotationsResult{}, c.storeError(call, err)
		}
		entries = st.Entries()
	}
	needle := strings.ToLower(in.Query)
	out := AnnotationsResult{SHA256: f.SHA256, ImageBase: codeHex(base), History: in.History, Items: []AnnotationItem{}}
	for _, e := range entries {
		addr := base + e.Offset
		if in.Kind != "any" && string(e.Kind) != in.Kind ||
			q.Ranged && (addr < q.Start || addr >= q.End) ||
			needle != "" && !strings.Contains(strings.ToLower(e.Text), needle) {
			continue
		}
		if out.Total >= in.Offset && len(out.Items) < in.Limit {
			out.Items = append(out.Items, AnnotationItem{Address: codeHex(addr), Offset: codeHex(e.Offset), Kind: string(e.Kind),
				Text: e.Text, Author: e.Author, Time: e.Time.UTC().Format(time.RFC3339Nano), Seq: e.Seq, Deleted: e.Deleted})
		}
		out.Total++
	}
	out.Count = len(out.Items)
	if in.Offset+out.Count < out.Total {
		out.Truncated, out.NextOffset = true, in.Offset+out.Count
	}
	return out, nil
}
