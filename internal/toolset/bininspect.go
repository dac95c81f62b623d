package toolset

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"log/slog"
	"strings"
	"time"

	"github.com/warden-mcp/warden/binview"
	"github.com/warden-mcp/warden/errcode"
	"github.com/warden-mcp/warden/tool"
	"github.com/warden-mcp/warden/viewstore"
)

// The bininspect_ family: binary views (ELF, PE, Mach-O, raw) for
// reverse engineering. Every tool is closed-world and read-only: opening,
// closing and choosing views changes what this server remembers for the
// caller, never the caller's files or anything outside. Contracts fixed
// by the issue: bininspect_open takes path, blob or data_base64 and
// returns the handle in "view"; list tools take offset, limit, query and
// a range, and return items, count, total, next_offset and truncated;
// every address in output is a hex string; the codes
// no_active_binary_view and path_not_allowed.

// binaryCatalog is every bininspect_ tool's catalog entry: read-only and
// closed-world, so no person is asked.
var binaryCatalog = tool.Catalog{Category: "binary", Trust: tool.TrustAuto}

// readOnly are the annotations of every bininspect_ tool.
var readOnly = tool.Annotations{ReadOnly: true, Idempotent: true}

func bininspectTools(deps Deps) ([]*tool.Tool, error) {
	n := deps.Native
	if n == nil {
		n = &Native{}
	}
	b := deps.Binary
	if b == nil {
		var err error
		if b, err = NewBinaryViews(BinaryOptions{Logger: deps.Logger, Privacy: n.privacy}); err != nil {
			return nil, err
		}
	}
	builders := []func() (*tool.Tool, error){
		b.openTool, b.viewListTool, b.viewCloseTool, b.viewSetActiveTool,
		evalTool, triageTool, sectionsTool, symbolsTool, importsTool, exportsTool, stringsTool,
		func() (*tool.Tool, error) { return memoryReadTool(n) },
		func() (*tool.Tool, error) { return searchBytesTool(n) },
		func() (*tool.Tool, error) { return addressInfoTool(n) },
		buildInfoTool,
	}
	var out []*tool.Tool
	for _, f := range builders {
		t, err := f()
		if err != nil {
			return nil, err
		}
		out = append(out, t)
	}
	return out, nil
}

// boundOf returns the view a view-scoped call acts on.
func boundOf(call *tool.Call) (*boundView, error) {
	v, ok := call.View()
	if bv, isBound := v.(*boundView); ok && isBound {
		return bv, nil
	}
	return nil, errcode.New(tool.CodeNoActiveView, "no binary view is open: open one with bininspect_open first")
}

type openArgs struct {
	Path       string       `json:"path,omitempty" maxLength:"4096" desc:"A file on the server, under a directory its operator allows (--root): absolute, or relative to those directories. Give exactly one of path, blob or data_base64."`
	Blob       string       `json:"blob,omitempty" maxLength:"71" desc:"An upload's reference, sha256:<64 hex digits>, from PUT /uploads or warden upload."`
	DataBase64 string       `json:"data_base64,omitempty" maxLength:"1400000" maxLengthCode:"file_too_large" desc:"The file's bytes in base64, for snippets of at most 1 MiB."`
	Name       string       `json:"name,omitempty" maxLength:"128" desc:"A name for the view in listings. Default: the file's name, or data-/blob- and the start of its SHA-256."`
	Format     string       `json:"format,omitempty" enum:"elf,pe,macho,raw" desc:"Force a format instead of detecting it; raw loads the bytes as one region at base and needs arch."`
	Arch       string       `json:"arch,omitempty" enum:"x86,x86-64,arm64,arm,riscv64,ppc64,s390x,loong64" desc:"The architecture of a raw load."`
	Base       tool.IntExpr `json:"base,omitempty" desc:"The load address of a raw load (an integer or a hex string such as \"0x400000\")."`
	FatArch    string       `json:"fat_arch,omitempty" maxLength:"16" desc:"The architecture to open in a Mach-O fat file (x86-64, arm64, ...). Default: the first."`
	SetActive  bool         `json:"set_active" default:"true" desc:"In a legacy session, make this the session's active view, used by calls that name none."`
}

// OpenResult is the result of bininspect_open.
type OpenResult struct {
	View   string `json:"view" privacy:"plain" desc:"The view's handle: pass it as view to the other bininspect_ tools."`
	Name   string `json:"name" privacy:"path" desc:"The view's name (a file name, never a path)."`
	SHA256 string `json:"sha256" privacy:"plain"`
	Size   int64  `json:"size" desc:"File size in bytes."`
	Format string `json:"format" privacy:"plain" desc:"elf, pe, macho or raw."`
	Arch   string `json:"arch" privacy:"plain"`
	Kind   string `json:"kind" privacy:"plain" desc:"executable, pie, shared_library, object, core, driver or raw."`
	// Blob is set when the bytes are kept as a blob (uploads and
	// data_base64), so the file can be opened again by reference.
	Blob string `json:"blob,omitempty" privacy:"plain" desc:"The blob reference to open these bytes again, when the server keeps them."`
	// Cached reports that the analysis came from the cache.
	Cached bool   `json:"cached" desc:"The analysis was served from the cache rather than run."`
	Active bool   `json:"active" desc:"The view is the legacy session's active view."`
	State  string `json:"state" privacy:"plain" desc:"complete, or partial when the analysis skipped or cut something (see warnings)."`
	// Expires is when the view lapses if unused.
	Expires string `json:"expires" privacy:"plain" desc:"When the view closes if unused (RFC 3339); every use moves it."`
}

func (b *BinaryViews) openTool() (*tool.Tool, error) {
	return tool.New(tool.Def{
		Name:  "bininspect_open",
		Title: "Open a binary",
		Description: "Open an executable (ELF, PE, Mach-O including fat files, or raw bytes with an architecture and base) " +
			"as a view and return its handle in view. Start here, then call bininspect_triage. Give exactly one source: " +
			"path (a file under the directories the server's operator allows), blob (sha256:... from an upload) or " +
			"data_base64 (up to 1 MiB). Opening the same file again returns the same view. Analysis of a large file " +
			"may run as a task. The server never shows its paths, only the file's name.",
		Annotations: readOnly,
		Catalog:     binaryCatalog,
		Tasks:       tool.TasksOptional,
	}, b.open)
}

// source is where bininspect_open's bytes come from.
type source int

const (
	fromPath source = iota
	fromBlob
	fromData
)

func (b *BinaryViews) open(ctx context.Context, call *tool.Call, in openArgs) (OpenResult, error) {
	who, err := b.who(ctx)
	if err != nil {
		return OpenResult{}, err
	}
	var src source
	n := 0
	for i, s := range []string{in.Path, in.Blob, in.DataBase64} {
		if s != "" {
			n, src = n+1, source(i)
		}
	}
	if n != 1 {
		return OpenResult{}, errcode.New(tool.CodeInvalidParams, "give exactly one of path, blob or data_base64")
	}
	lo := loadOptions{Format: binview.Format(in.Format), Slice: binview.Arch(in.FatArch)}
	if lo.Format == binview.FormatRaw {
		if in.Arch == "" {
			return OpenResult{}, errcode.New(binview.CodeInvalidOptions, "a raw load needs arch (and usually base)")
		}
		lo.Arch, lo.Base, lo.Slice = binview.Arch(in.Arch), uint64(in.Base), ""
	} else if in.Arch != "" || in.Base != 0 {
		return OpenResult{}, errcode.New(tool.CodeInvalidParams, "arch and base apply to raw loads only: add format raw, or drop them (other formats name their architecture)")
	}
	now := b.now()
	views, err := b.store.Views(ctx, who.key(), now)
	if err != nil {
		return OpenResult{}, storeErr(err)
	}

	call.Progress(0, 3, "reading")
	var data []byte
	var path, name string
	switch src {
	case fromPath:
		if data, path, name, err = b.readPath(in.Path); err != nil {
			return OpenResult{}, err
		}
	case fromBlob:
		sha, ok := parseBlobRef(in.Blob)
		if !ok {
			return OpenResult{}, errcode.New(tool.CodeInvalidParams, "blob must be a reference sha256:<64 hex digits>, as an upload returns")
		}
		if data, err = b.blob(ctx, who, sha, now); err != nil {
			return OpenResult{}, err
		}
		name = "blob-" + sha[:12]
	case fromData:
		if data, err = decodeData(in.DataBase64); err != nil {
			return OpenResult{}, err
		}
	}
	if int64(len(data)) > b.o.MaxFileSize {
		return OpenResult{}, errFileTooLarge(b.o.MaxFileSize)
	}
	sum := sha256.Sum256(data)
	sha := hex.EncodeToString(sum[:])
	if src == fromData {
		name = "data-" + sha[:12]
	}
	if in.Name != "" {
		name = cleanName(in.Name)
	}
	meta := viewMeta{Load: lo}
	// The view's id depends on the load options only; format and
	// architecture come from the analysis below.
	id := b.handles.viewID(who, sha, jsonOf(lo), name)
	if len(views) >= b.o.MaxViews && !hasView(views, id) {
		return OpenResult{}, b.tooManyViews(views)
	}
	if src == fromData {
		if err := b.chargeUpload(ctx, who, int64(len(data)), now); err != nil {
			return OpenResult{}, err
		}
		if err := b.store.PutBlob(ctx, sha, data, now.Add(b.o.BlobTTL)); err != nil {
			return OpenResult{}, storeErr(err)
		}
	}
	// Whoever opens the bytes may use them, and their cached analysis.
	if err := b.store.Grant(ctx, who.tenant, sha, now.Add(b.o.BlobTTL)); err != nil {
		return OpenResult{}, storeErr(err)
	}

	detached := false
	hooks := buildHooks{
		beforeAnalyze: func(size int) (context.Context, error) {
			if int64(size) > b.o.DetachAbove {
				detached = call.Detach() // a tasks-capable client polls from here on
			}
			if src == fromData {
				return ctx, nil // at most 1 MiB: no slot needed
			}
			return call.Begin(ctx)
		},
		progress: func(step float64, msg string) { call.Progress(step, 3, msg) },
	}
	v, cached, err := b.build(ctx, sha, data, lo, name, hooks)
	if err != nil {
		return OpenResult{}, err
	}
	t := v.Analysis()
	meta.Format, meta.Arch = t.Format, t.Arch
	rec := viewstore.View{Caller: who.key(), ID: id, Tenant: who.tenant, SHA256: sha, Name: name,
		Options: jsonOf(meta), Path: path, Size: int64(len(data)), Opened: now, Used: now, Expires: now.Add(b.o.ViewIdle)}
	rec, err = b.store.OpenView(ctx, rec, b.o.MaxViews)
	if errors.Is(err, viewstore.ErrTooManyViews) {
		views, _ := b.store.Views(ctx, who.key(), now)
		return OpenResult{}, b.tooManyViews(views)
	}
	if err != nil {
		return OpenResult{}, storeErr(err)
	}
	handle, err := b.handles.seal(rec)
	if err != nil {
		return OpenResult{}, err
	}
	active := false
	if s := call.Session(); s != "" && in.SetActive {
		b.setActive(s, who, id)
		active = true
	}
	call.Progress(3, 3, "done")
	for _, w := range t.Warnings {
		call.Warn(w.Code, w.Message)
	}
	b.log.LogAttrs(ctx, slog.LevelDebug, "view opened", slog.String("sha256", sha), slog.Bool("cached", cached), slog.Bool("task", detached))
	res := OpenResult{View: handle, Name: name, SHA256: sha, Size: int64(len(data)), Format: string(t.Format), Arch: string(t.Arch),
		Kind: t.Kind, Cached: cached, Active: active, State: "complete", Expires: rec.Expires.UTC().Format(time.RFC3339)}
	if src != fromPath {
		res.Blob = BlobRef(sha)
	}
	if len(t.Warnings) > 0 {
		res.State = "partial"
	}
	return res, nil
}

// blob returns an upload's bytes for a tenant that may use them; to any
// other, it does not exist.
func (b *BinaryViews) blob(ctx context.Context, who caller, sha string, now time.Time) ([]byte, error) {
	notFound := errcode.New(CodeBlobNotFound, "no upload of yours has that reference (uploads lapse after a day unused); upload the file again with warden upload or PUT /uploads")
	ok, err := b.store.Granted(ctx, who.tenant, sha, now)
	if err != nil {
		return nil, storeErr(err)
	}
	if !ok {
		return nil, notFound
	}
	data, err := b.store.Blob(ctx, sha, now)
	if errors.Is(err, viewstore.ErrNotFound) {
		return nil, notFound
	}
	if err != nil {
		return nil, storeErr(err)
	}
	if sum := sha256.Sum256(data); hex.EncodeToString(sum[:]) != sha {
		b.log.LogAttrs(ctx, slog.LevelError, "stored blob does not match its digest", slog.String("sha256", sha))
		return nil, notFound
	}
	return data, nil
}

// chargeUpload counts n bytes against the caller's daily allowance.
func (b *BinaryViews) chargeUpload(ctx context.Context, who caller, n int64, now time.Time) error {
	if b.o.UploadQuota < 0 {
		return nil
	}
	_, err := b.store.ChargeUpload(ctx, who.credential, viewstore.Day(now), n, b.o.UploadQuota)
	return b.quotaErr(err, now)
}

// quotaFits checks, without charging, that n more bytes fit the caller's
// allowance today.
func (b *BinaryViews) quotaFits(ctx context.Context, who caller, n int64, now time.Time) error {
	if b.o.UploadQuota < 0 {
		return nil
	}
	if n > b.o.UploadQuota {
		return b.quotaErr(viewstore.ErrQuotaExceeded, now)
	}
	_, err := b.store.ChargeUpload(ctx, who.credential, viewstore.Day(now), 0, b.o.UploadQuota-n)
	return b.quotaErr(err, now)
}

func (b *BinaryViews) quotaErr(err error, now time.Time) error {
	if errors.Is(err, viewstore.ErrQuotaExceeded) {
		next := now.UTC().Truncate(24 * time.Hour).Add(24 * time.Hour)
		return &errcode.Error{Code: CodeUploadQuota,
			Message:    "this credential has uploaded its " + sizeWords(b.o.UploadQuota) + " for today (UTC); open files already uploaded by blob, or try again tomorrow",
			Details:    map[string]any{"retryAfterSeconds": int64(next.Sub(now).Seconds()) + 1},
			RetryAfter: next.Sub(now)}
	}
	if err != nil {
		return storeErr(err)
	}
	return nil
}

func (b *BinaryViews) tooManyViews(views []viewstore.View) error {
	return &errcode.Error{Code: CodeTooManyViews,
		Message: "you have the most views this server keeps open per caller; close one with bininspect_view_close (handles in details.views), or wait for an unused one to lapse",
		Details: map[string]any{"views": b.refs(views), "max": b.o.MaxViews}}
}

func hasView(views []viewstore.View, id string) bool {
	for _, v := range views {
		if v.ID == id {
			return true
		}
	}
	return false
}

// cleanName keeps a caller's view name to one printable line without
// path separators.
func cleanName(s string) string {
	s = strings.Map(func(r rune) rune {
		switch {
		case r == '/' || r == '\\':
			return '_'
		case r < 0x20 || r == 0x7f:
			return -1
		}
		return r
	}, s)
	if s = strings.TrimSpace(s); s == "" || s == "." || s == ".." {
		return "view"
	}
	return s
}

func jsonOf(v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err) // plain structs of strings and numbers
	}
	return b
}

// ---- view management ----

type viewListArgs struct {
	Offset int    `json:"offset" default:"0" min:"0" desc:"Views to skip."`
	Limit  int    `json:"limit" default:"100" min:"1" desc:"Views per page, at most 1000 (larger values are clamped)."`
	Query  string `json:"query,omitempty" maxLength:"256" desc:"Keep views whose name or SHA-256 contains this, ignoring case."`
}

// ViewItem is one open view in bininspect_view_list.
type ViewItem struct {
	View     string `json:"view" privacy:"plain" desc:"The handle."`
	Name     string `json:"name" privacy:"path"`
	SHA256   string `json:"sha256" privacy:"plain"`
	Size     int64  `json:"size"`
	Format   string `json:"format" privacy:"plain"`
	Arch     string `json:"arch" privacy:"plain"`
	Opened   string `json:"opened" privacy:"plain" desc:"RFC 3339."`
	LastUsed string `json:"last_used" privacy:"plain" desc:"RFC 3339."`
	Expires  string `json:"expires" privacy:"plain" desc:"When it closes if unused (RFC 3339)."`
	Active   bool   `json:"active" desc:"The legacy session's active view."`
}

func (b *BinaryViews) viewListTool() (*tool.Tool, error) {
	return tool.New(tool.Def{
		Name:  "bininspect_view_list",
		Title: "List open binary views",
		Description: "List your open binary views with their handles, names, SHA-256, format and architecture, and which " +
			"is the session's active view (legacy sessions). Views close after a while unused.",
		Annotations: readOnly,
		Catalog:     binaryCatalog,
	}, func(ctx context.Context, call *tool.Call, in viewListArgs) (Page[ViewItem], error) {
		who, err := b.who(ctx)
		if err != nil {
			return Page[ViewItem]{}, err
		}
		views, err := b.store.Views(ctx, who.key(), b.now())
		if err != nil {
			return Page[ViewItem]{}, storeErr(err)
		}
		activeID := ""
		if s := call.Session(); s != "" {
			activeID, _ = b.activeOf(s, who)
		}
		q := strings.ToLower(in.Query)
		items := []ViewItem{}
		for _, v := range views {
			if q != "" && !strings.Contains(strings.ToLower(v.Name), q) && !strings.Contains(v.SHA256, q) {
				continue
			}
			h, err := b.handles.seal(v)
			if err != nil {
				return Page[ViewItem]{}, err
			}
			var meta viewMeta
			_ = json.Unmarshal(v.Options, &meta)
			items = append(items, ViewItem{View: h, Name: v.Name, SHA256: v.SHA256, Size: v.Size,
				Format: string(meta.Format), Arch: string(meta.Arch),
				Opened: rfc3339(v.Opened), LastUsed: rfc3339(v.Used), Expires: rfc3339(v.Expires), Active: v.ID == activeID})
		}
		return pageOf(items, in.Offset, in.Limit), nil
	})
}

func rfc3339(t time.Time) string { return t.UTC().Format(time.RFC3339) }

type viewHandleArgs struct {
	View string `json:"view" minLength:"1" maxLength:"512" desc:"The handle of one of your open views (from bininspect_open or bininspect_view_list)."`
}

// ViewCloseResult is the result of bininspect_view_close.
type ViewCloseResult struct {
	View   string `json:"view" privacy:"plain"`
	Closed bool   `json:"closed" desc:"Always true: the view is closed and its handle no longer works."`
}

func (b *BinaryViews) viewCloseTool() (*tool.Tool, error) {
	return tool.New(tool.Def{
		Name:  "bininspect_view_close",
		Title: "Close a binary view",
		Description: "Close one of your open binary views: its handle stops working everywhere and it no longer counts " +
			"against your open views. The file itself is untouched; open it again at any time.",
		Annotations: readOnly,
		Catalog:     binaryCatalog,
	}, func(ctx context.Context, call *tool.Call, in viewHandleArgs) (ViewCloseResult, error) {
		who, err := b.who(ctx)
		if err != nil {
			return ViewCloseResult{}, err
		}
		now := b.now()
		rec, err := b.byHandle(ctx, who, in.View, now)
		if err != nil {
			return ViewCloseResult{}, err
		}
		if _, err := b.store.CloseView(ctx, who.key(), rec.ID, now); err != nil {
			return ViewCloseResult{}, storeErr(err)
		}
		b.clearActive(who, rec.ID)
		return ViewCloseResult{View: in.View, Closed: true}, nil
	})
}

// ViewSetActiveResult is the result of bininspect_view_set_active.
type ViewSetActiveResult struct {
	View   string `json:"view" privacy:"plain"`
	Name   string `json:"name" privacy:"path"`
	Active bool   `json:"active" desc:"Always true."`
}

func (b *BinaryViews) viewSetActiveTool() (*tool.Tool, error) {
	return tool.New(tool.Def{
		Name:  "bininspect_view_set_active",
		Title: "Choose the active binary view",
		Description: "Make one of your open views the active view of this session, used by bininspect_ tools called " +
			"without view. Legacy sessions only: on the stateless protocol every call names its view (or you have " +
			"just one open).",
		Annotations: readOnly,
		Catalog:     binaryCatalog,
	}, func(ctx context.Context, call *tool.Call, in viewHandleArgs) (ViewSetActiveResult, error) {
		who, err := b.who(ctx)
		if err != nil {
			return ViewSetActiveResult{}, err
		}
		session := call.Session()
		if session == "" {
			return ViewSetActiveResult{}, errcode.New(CodeNoSession, "this protocol has no sessions, so no active view: pass the handle as view on each call instead")
		}
		rec, err := b.byHandle(ctx, who, in.View, b.now())
		if err != nil {
			return ViewSetActiveResult{}, err
		}
		b.setActive(session, who, rec.ID)
		return ViewSetActiveResult{View: in.View, Name: rec.Name, Active: true}, nil
	})
}
