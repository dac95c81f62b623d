package toolset

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/warden-mcp/warden/auth"
	"github.com/warden-mcp/warden/binview"
	"github.com/warden-mcp/warden/binview/budget"
	"github.com/warden-mcp/warden/errcode"
	"github.com/warden-mcp/warden/internal/httplimit"
	"github.com/warden-mcp/warden/redact"
	"github.com/warden-mcp/warden/tool"
	"github.com/warden-mcp/warden/tool/addrexpr"
	"github.com/warden-mcp/warden/viewstore"
)

// The view model. Every open view belongs to one caller (issuer, tenant
// and credential) and lives in the store, so any replica can serve it:
// a row names the file by SHA-256, the load options and the name, and
// where the bytes are (a blob, or a path under a root). A replica that
// has not built the view yet rebuilds it from the row, the bytes and the
// cached analysis. Built views are kept in process, bounded by bytes.
//
// Which view a call acts on (Resolve):
//   - the call's view argument, a sealed handle (see bininspect_handle.go);
//   - in a legacy session, the session's active view, set by
//     bininspect_open or bininspect_view_set_active;
//   - the caller's only open view, with the warning implicit_view;
//   - otherwise no_active_binary_view, with the open handles in details.

// Error codes of the bininspect_ tools, beyond the engine's.
const (
	CodePathNotAllowed   = "path_not_allowed"
	CodeFileNotFound     = "file_not_found"
	CodeViewNotFound     = "view_not_found"
	CodeBlobNotFound     = "blob_not_found"
	CodeTooManyViews     = "too_many_views"
	CodeUploadQuota      = "upload_quota_exceeded"
	CodeUploadTooSlow    = "upload_too_slow"
	CodeViewsUnavailable = "views_unavailable"
	CodeNoSession        = "no_session"
)

// Warning codes.
const (
	WarnImplicitView  = "implicit_view"
	WarnPartialRead   = "partial_read"
	WarnBytesWithheld = "bytes_withheld"
)

// Defaults of BinaryOptions.
const (
	DefaultMaxViews    = 16
	DefaultViewIdle    = time.Hour
	DefaultBlobTTL     = 24 * time.Hour
	DefaultCacheTTL    = 7 * 24 * time.Hour
	DefaultUploadQuota = 1 << 30
	DefaultDetachAbove = 8 << 20
	DefaultMaxUploads  = 4
	// DefaultUploadMinRate is 1 Mbit/s: a 64 MiB upload may take at
	// most about nine minutes.
	DefaultUploadMinRate = 128 << 10
	DefaultUploadGrace   = 10 * time.Second
	// maxCachedSnapshot bounds the analyses written to the store.
	maxCachedSnapshot = 64 << 20
	// maxActiveSessions bounds the legacy sessions' active views.
	maxActiveSessions = 10000
)

// BinaryOptions configure the binary views of a server. The zero value
// is the hosted default: no roots, 64 MiB files, 16 views per caller
// lapsing after an hour unused, analysis in process, a memory store.
type BinaryOptions struct {
	// Store keeps blobs, grants, analyses and open views for every
	// replica. Nil: a memory store for this process only.
	Store viewstore.Store
	// Key seals view handles (32 bytes); replicas must share it. Nil: a
	// random key, so handles last as long as the process.
	Key []byte
	// Roots are the directories bininspect_open may read files from by
	// path. None: no path is opened.
	Roots []string
	// MaxFileSize is the largest file opened, in bytes. Zero:
	// binview.DefaultMaxFileSize (64 MiB).
	MaxFileSize int64
	// MaxViews is how many views one caller may keep open. Zero: 16.
	MaxViews int
	// ViewIdle closes a view unused this long. Zero: one hour.
	ViewIdle time.Duration
	// AnalysisTimeout bounds one analysis. Zero: binview.DefaultTimeout.
	AnalysisTimeout time.Duration
	// Analyze analyses a file; the wiring gives hosted servers the
	// isolated runner's. Nil: binview.Analyze in this process.
	Analyze func(ctx context.Context, data []byte, opts *binview.Options) (*binview.Analysis, error)
	// CodeRunner runs each view's code analysis (functions, blocks,
	// cross-references); the wiring gives hosted servers the isolated
	// runner. Nil: in this process.
	CodeRunner binview.CodeRunner
	// AnalysisLimits is the budget of every view's code analysis and of
	// each graph or listing drawn from it (package budget), the same
	// wherever it runs. Zero fields: the budget's defaults.
	AnalysisLimits budget.Limits
	// UploadQuota is how many bytes one caller (issuer, tenant and
	// credential) may upload (PUT /uploads and data_base64) per UTC day.
	// Zero: 1 GiB; negative: no limit.
	UploadQuota int64
	// MaxUploads caps the uploads received at once, server-wide; each
	// is held in memory, up to MaxFileSize. Zero: 4.
	MaxUploads int
	// MaxUploadsPerCaller caps one caller's uploads at once, so that a
	// few callers cannot take every place. Zero: MaxUploads/4, at least 1.
	MaxUploadsPerCaller int
	// UploadMinRate is the slowest an upload's body may arrive, in bytes
	// per second, once UploadGrace has passed (httplimit.BodyPace): a slower
	// client is answered 408 upload_too_slow and gives its place back.
	// Zero: 128 KiB/s (1 Mbit/s).
	UploadMinRate int64
	// UploadGrace is the time an upload's body gets before UploadMinRate
	// counts. Zero: 10 s.
	UploadGrace time.Duration
	// BlobTTL is how long an upload, and a tenant's right to a file it
	// opened, last unused. Zero: 24 hours.
	BlobTTL time.Duration
	// CacheTTL is how long an analysis stays cached. Zero: 7 days.
	CacheTTL time.Duration
	// CacheBytes bounds the built views kept in this process, by their
	// footprint (binview.View.Footprint: the file's bytes and what code
	// analysis kept). Zero: twice MaxFileSize, at least 256 MiB.
	CacheBytes int64
	// DetachAbove makes an open that must analyse a file larger than
	// this run as a task, for clients that support tasks. Zero: 8 MiB.
	DetachAbove int64
	// Annotations lays the names each caller's tenant set over the views
	// Resolve returns, so that they resolve in address expressions. Nil:
	// no names.
	Annotations *AnnotationLayer
	// MemoryRead reports whether a call's caller may read a file's bytes
	// raw; the wiring answers whether bininspect_memory_read may run for
	// it. Where it may not, the other tools withhold the same bytes:
	// bininspect_address_info's preview and bininspect_search_bytes'
	// matched bytes are left empty (warning bytes_withheld), and memory
	// reads ([...]) in every address expression are refused
	// (read_refused). Nil: always.
	MemoryRead func(ctx context.Context) bool
	// Privacy returns a call's privacy redactor (its tenant's mode), for
	// memory reads in address expressions: in balanced and strict a read
	// whose bytes hold part of a credential is refused (read_refused),
	// as bininspect_memory_read would replace those bytes by a marker; a
	// number cannot carry one. The wiring reads the redactor the privacy
	// stage put in the call's context. Nil, or a nil redactor: balanced.
	Privacy func(ctx context.Context) *redact.Redactor
	// Principal returns a call's caller. Nil: auth.PrincipalFrom.
	Principal func(ctx context.Context) (auth.Principal, bool)
	// Logger receives causes that never reach a client. Nil discards.
	Logger *slog.Logger
	// Now is the clock. Nil: time.Now.
	Now func() time.Time
}

// BinaryViews serves the bininspect_ family: it opens files into views,
// resolves which view a call acts on, and accepts uploads. It is safe for
// concurrent use.
type BinaryViews struct {
	o       BinaryOptions
	store   viewstore.Store
	handles *handles
	roots   []root
	log     *slog.Logger
	built   *viewCache

	mu       sync.Mutex
	inflight map[string]*flight
	active   map[string]activeView // legacy session key → its active view

	uploads      chan struct{}          // uploads received now, server-wide
	uploadShares httplimit.CallerShares // and by each caller
}

type activeView struct{ caller, id string }

// NewBinaryViews checks o and returns the service.
func NewBinaryViews(o BinaryOptions) (*BinaryViews, error) {
	if o.MaxFileSize <= 0 {
		o.MaxFileSize = binview.DefaultMaxFileSize
	}
	if o.MaxFileSize > viewstore.MaxBlobSize {
		return nil, fmt.Errorf("bininspect: the file size limit is at most %s", sizeWords(viewstore.MaxBlobSize))
	}
	if o.MaxViews <= 0 {
		o.MaxViews = DefaultMaxViews
	}
	if o.ViewIdle <= 0 {
		o.ViewIdle = DefaultViewIdle
	}
	if o.AnalysisTimeout <= 0 {
		o.AnalysisTimeout = binview.DefaultTimeout
	}
	if o.UploadQuota == 0 {
		o.UploadQuota = DefaultUploadQuota
	}
	if o.BlobTTL <= 0 {
		o.BlobTTL = DefaultBlobTTL
	}
	if o.CacheTTL <= 0 {
		o.CacheTTL = DefaultCacheTTL
	}
	if o.CacheBytes <= 0 {
		o.CacheBytes = max(2*o.MaxFileSize, 256<<20)
	}
	if o.DetachAbove <= 0 {
		o.DetachAbove = DefaultDetachAbove
	}
	if o.MaxUploads <= 0 {
		o.MaxUploads = DefaultMaxUploads
	}
	if o.MaxUploadsPerCaller <= 0 {
		o.MaxUploadsPerCaller = max(1, o.MaxUploads/4)
	}
	if o.UploadMinRate <= 0 {
		o.UploadMinRate = DefaultUploadMinRate
	}
	if o.UploadGrace <= 0 {
		o.UploadGrace = DefaultUploadGrace
	}
	if o.Analyze == nil {
		o.Analyze = binview.Analyze
	}
	if o.Principal == nil {
		o.Principal = auth.PrincipalFrom
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	b := &BinaryViews{o: o, store: o.Store, log: o.Logger, inflight: map[string]*flight{},
		active: map[string]activeView{}, uploads: make(chan struct{}, o.MaxUploads)}
	if b.store == nil {
		b.store = viewstore.NewMemory(0)
	}
	if b.log == nil {
		b.log = slog.New(slog.DiscardHandler)
	}
	var err error
	if b.handles, err = newHandles(o.Key); err != nil {
		return nil, err
	}
	if b.roots, err = newRoots(o.Roots); err != nil {
		return nil, err
	}
	b.built = newViewCache(o.CacheBytes)
	return b, nil
}

// Roots returns the directories paths are opened from, symbolic links
// resolved, for the operator's log.
func (b *BinaryViews) Roots() []string {
	var out []string
	for _, r := range b.roots {
		out = append(out, r.resolved)
	}
	return out
}

// MaxFileSize is the largest file opened or uploaded.
func (b *BinaryViews) MaxFileSize() int64 { return b.o.MaxFileSize }

func (b *BinaryViews) now() time.Time { return b.o.Now() }

// who returns the call's caller, or an error the client reads.
func (b *BinaryViews) who(ctx context.Context) (caller, error) {
	p, ok := b.o.Principal(ctx)
	if !ok {
		return caller{}, errcode.New("unauthenticated", "the call carries no identity")
	}
	return callerOf(p), nil
}

// storeErr turns a store failure into the error the client reads; the
// cause goes to the log.
func storeErr(err error) error {
	return &errcode.Error{Code: CodeViewsUnavailable, Message: "the view store could not be reached; try again shortly",
		Details: map[string]any{"retryAfterSeconds": 2}, Cause: err}
}

// loadOptions are the per-view options a caller chooses.
type loadOptions struct {
	Format binview.Format `json:"format,omitempty"`
	Arch   binview.Arch   `json:"arch,omitempty"`
	Base   uint64         `json:"base,omitempty"`
	Slice  binview.Arch   `json:"slice,omitempty"`
}

// viewMeta is what a view row keeps as its options: the load options,
// and the format and architecture found, for listings.
type viewMeta struct {
	Load   loadOptions    `json:"load"`
	Format binview.Format `json:"format,omitempty"`
	Arch   binview.Arch   `json:"arch,omitempty"`
}

// engineOptions are the binview options of a load.
func (b *BinaryViews) engineOptions(lo loadOptions) *binview.Options {
	return &binview.Options{Format: lo.Format, Arch: lo.Arch, Base: lo.Base, Slice: lo.Slice,
		MaxFileSize: b.o.MaxFileSize, Timeout: b.o.AnalysisTimeout,
		Limits: b.o.AnalysisLimits, CodeRunner: b.o.CodeRunner}
}

// analysisKey is the cache key of an analysis: the file, the engine's
// version and every option that changes the result.
func analysisKey(sha string, opts *binview.Options) string {
	k := sha256.Sum256([]byte(opts.CacheKey()))
	return sha + ":" + strconv.Itoa(binview.EngineVersion) + ":" + hex.EncodeToString(k[:16])
}

// boundView is the view a call acts on: the built view and its row,
// and the names the caller's tenant set on the file.
type boundView struct {
	*binview.View
	rec     viewstore.View
	meta    viewMeta
	handle  string
	overlay *binview.Overlay
	// withheld: the caller may not read the file's bytes raw
	// (BinaryOptions.MemoryRead).
	withheld bool
	// priv is the caller's privacy redactor (BinaryOptions.Privacy).
	priv *redact.Redactor
}

// Read reads memory for [e] in address expressions, unless the caller
// may not read the file's bytes raw, or the bytes hold part of a
// credential the caller's privacy mode removes: the same check, with the
// same context either side (secretBytes), as bininspect_memory_read's,
// so a value is refused exactly where that tool would show a marker.
func (bv *boundView) Read(addr uint64, size int) (uint64, error) {
	if bv.withheld {
		return 0, addrexpr.ErrReadRefused
	}
	if bv.priv == nil || bv.priv.Mode() != redact.Off {
		if b, err := bv.View.Bytes(addr, size); err == nil && len(secretBytes(bv.redactor(), bv, addr, b)) > 0 {
			return 0, addrexpr.ErrReadSecret
		}
	}
	return bv.View.Read(addr, size)
}

// redactor is the caller's privacy redactor; balanced when none was set.
func (bv *boundView) redactor() *redact.Redactor {
	if bv.priv != nil {
		return bv.priv
	}
	return balanced()
}

// withholdBytes warns that bytes the result would show are withheld,
// and reports whether they are.
func (bv *boundView) withholdBytes(call *tool.Call) bool {
	if bv.withheld {
		call.Warn(WarnBytesWithheld, "the file's bytes are not shown: bininspect_memory_read is off for this caller")
	}
	return bv.withheld
}

// Symbol resolves a name the caller's tenant set first, then the file's
// (binview.View.Symbol), for address expressions.
func (bv *boundView) Symbol(name string) (uint64, bool) {
	if a, ok := bv.overlay.Addr(name); ok {
		return a, true
	}
	return bv.View.Symbol(name)
}

// SymbolHint says, for an expression's name that does not resolve, which
// names a stripped file still has and which tools list them. Only the
// names the analysis gives (start-up names, sub_<hex>) are quoted: the
// file's own names are read through the listing tools, whose results
// pass the privacy stage, never echoed in an error.
func (bv *boundView) SymbolHint(string) string {
	var names []string
	for _, f := range bv.View.CodeState().Functions {
		switch f.Name {
		case "_start", "main", "_init", "_fini":
			names = append(names, f.Name)
		}
	}
	hint := "bininspect_functions and bininspect_symbols list the names this file has; sub_<hex> names any address"
	if len(names) > 0 {
		hint = "this file has " + strings.Join(names, ", ") + " among its functions; " + hint
	}
	return hint
}

// flight is one analysis in progress, which concurrent opens of the same
// file share.
type flight struct {
	done chan struct{}
	a    *binview.Analysis
	err  error
}

// buildHooks let bininspect_open turn a long analysis into a task and
// admit it; a rebuild on another replica has neither.
type buildHooks struct {
	beforeAnalyze func(size int) (context.Context, error)
	progress      func(step float64, msg string)
}

// build returns the view of data under lo named name: from this
// process's cache, from a cached analysis in the store, or by analysing
// it. cached reports that no analysis ran.
func (b *BinaryViews) build(ctx context.Context, sha string, data []byte, lo loadOptions, name string, h buildHooks) (v *binview.View, cached bool, err error) {
	opts := b.engineOptions(lo)
	akey := analysisKey(sha, opts)
	vkey := akey + "\x00" + name
	if v := b.built.get(vkey); v != nil {
		return v, true, nil
	}
	a, cached, err := b.analysis(ctx, akey, sha, data, opts, h)
	if err != nil {
		return nil, false, err
	}
	if h.progress != nil {
		h.progress(2, "indexing")
	}
	v, err = binview.New(name, data, a, opts)
	if err != nil {
		return nil, false, err
	}
	b.built.put(vkey, v)
	return v, cached, nil
}

// analysis returns the analysis of data: from the store's cache or by
// analysing it once however many calls ask at the same time.
func (b *BinaryViews) analysis(ctx context.Context, akey, sha string, data []byte, opts *binview.Options, h buildHooks) (*binview.Analysis, bool, error) {
	if snap, err := b.store.Analysis(ctx, akey, b.now()); err == nil {
		a, err := binview.UnmarshalAnalysis(snap)
		if err == nil && a.FileSize == int64(len(data)) {
			return a, true, nil
		}
		b.log.LogAttrs(ctx, slog.LevelWarn, "cached analysis unusable; analysing again", slog.Any("cause", err))
	} else if !errors.Is(err, viewstore.ErrNotFound) {
		b.log.LogAttrs(ctx, slog.LevelWarn, "analysis cache unavailable", slog.String("cause", err.Error()))
	}
	for {
		b.mu.Lock()
		f, waiting := b.inflight[akey]
		if !waiting {
			f = &flight{done: make(chan struct{})}
			b.inflight[akey] = f
		}
		b.mu.Unlock()
		if waiting {
			select {
			case <-f.done:
			case <-ctx.Done():
				return nil, false, ctx.Err()
			}
			if f.err != nil && errors.Is(f.err, context.Canceled) && ctx.Err() == nil {
				continue // the caller that ran it left; run it for this one
			}
			return f.a, f.err == nil, f.err
		}
		func() {
			// Whatever happens, even a panic, the waiters are released.
			f.err = errcode.New(binview.CodeAnalysisFailed, "the file could not be analysed")
			defer func() {
				b.mu.Lock()
				delete(b.inflight, akey)
				b.mu.Unlock()
				close(f.done)
			}()
			f.a, f.err = b.analyze(ctx, akey, sha, data, opts, h)
		}()
		return f.a, false, f.err
	}
}

func (b *BinaryViews) analyze(ctx context.Context, akey, sha string, data []byte, opts *binview.Options, h buildHooks) (*binview.Analysis, error) {
	if h.beforeAnalyze != nil {
		var err error
		if ctx, err = h.beforeAnalyze(len(data)); err != nil {
			return nil, err
		}
	}
	if h.progress != nil {
		h.progress(1, "analysing")
	}
	a, err := b.o.Analyze(ctx, data, opts)
	if err != nil {
		if ctx.Err() != nil && errcode.CodeOf(err) == "" {
			return nil, ctx.Err()
		}
		return nil, err
	}
	if snap, err := a.MarshalBinary(); err == nil && len(snap) <= maxCachedSnapshot {
		if err := b.store.PutAnalysis(ctx, akey, sha, snap, b.now().Add(b.o.CacheTTL)); err != nil {
			b.log.LogAttrs(ctx, slog.LevelWarn, "analysis not cached", slog.String("cause", err.Error()))
		}
	}
	return a, nil
}

// bytesOf returns the bytes behind a stored view: re-read through the
// roots for a path-backed view, from the blob otherwise, and checked
// against the view's SHA-256.
func (b *BinaryViews) bytesOf(ctx context.Context, rec viewstore.View) ([]byte, error) {
	gone := errcode.New(CodeViewNotFound, "the file behind this view has changed or is no longer available; open it again with bininspect_open")
	var data []byte
	var err error
	if rec.Path != "" {
		data, err = b.readUnder(rec.Path)
	} else {
		data, err = b.store.Blob(ctx, rec.SHA256, b.now())
		if err != nil && !errors.Is(err, viewstore.ErrNotFound) {
			return nil, storeErr(err)
		}
	}
	if err != nil {
		b.log.LogAttrs(ctx, slog.LevelInfo, "view bytes unavailable", slog.String("cause", err.Error()))
		return nil, gone
	}
	if sum := sha256.Sum256(data); hex.EncodeToString(sum[:]) != rec.SHA256 {
		return nil, gone
	}
	return data, nil
}

// materialize builds the view a stored row names, on any replica.
func (b *BinaryViews) materialize(ctx context.Context, rec viewstore.View) (*boundView, error) {
	var meta viewMeta
	if err := json.Unmarshal(rec.Options, &meta); err != nil {
		return nil, errcode.Wrap(CodeViewNotFound, "the view cannot be rebuilt; open the file again", err)
	}
	handle, err := b.handles.seal(rec)
	if err != nil {
		return nil, err
	}
	opts := b.engineOptions(meta.Load)
	vkey := analysisKey(rec.SHA256, opts) + "\x00" + rec.Name
	if v := b.built.get(vkey); v != nil {
		return &boundView{View: v, rec: rec, meta: meta, handle: handle}, nil
	}
	data, err := b.bytesOf(ctx, rec)
	if err != nil {
		return nil, err
	}
	v, _, err := b.build(ctx, rec.SHA256, data, meta.Load, rec.Name, buildHooks{})
	if err != nil {
		return nil, err
	}
	return &boundView{View: v, rec: rec, meta: meta, handle: handle}, nil
}

// touch records a use of a view, at most once a minute (or a sixteenth
// of the idle time) so that reads do not each write.
func (b *BinaryViews) touch(ctx context.Context, rec viewstore.View, now time.Time) {
	every := min(time.Minute, b.o.ViewIdle/16)
	if now.Sub(rec.Used) < every {
		return
	}
	if err := b.store.TouchView(ctx, rec.Caller, rec.ID, now, now.Add(b.o.ViewIdle)); err != nil && !errors.Is(err, viewstore.ErrNotFound) {
		b.log.LogAttrs(ctx, slog.LevelWarn, "view use not recorded", slog.String("cause", err.Error()))
	}
}

// byHandle finds the caller's live view a handle names.
func (b *BinaryViews) byHandle(ctx context.Context, who caller, h string, now time.Time) (viewstore.View, error) {
	notFound := errcode.New(CodeViewNotFound, "no open view of yours has that handle; it may have been closed or have lapsed unused; list your views with bininspect_view_list or open the file again")
	hd, err := b.handles.open(h)
	if err != nil || hd.caller != who.digest {
		return viewstore.View{}, notFound
	}
	rec, err := b.store.View(ctx, who.key(), hex.EncodeToString(hd.id[:]), now)
	if errors.Is(err, viewstore.ErrNotFound) {
		return viewstore.View{}, notFound
	}
	if err != nil {
		return viewstore.View{}, storeErr(err)
	}
	if !hd.matches(rec) {
		return viewstore.View{}, notFound
	}
	return rec, nil
}

// Resolve finds the view a call to a view-scoped tool acts on (the
// bininspect_ family's view resolver, which Register gives the family):
// the handle the call names, else the legacy session's active view, else
// the caller's only open view.
func (b *BinaryViews) Resolve(ctx context.Context, call *tool.Call, handle string) (tool.View, []tool.Warning, error) {
	session := call.Session()
	who, err := b.who(ctx)
	if err != nil {
		return nil, nil, err
	}
	now := b.now()
	var rec viewstore.View
	var warnings []tool.Warning
	switch {
	case handle != "":
		if rec, err = b.byHandle(ctx, who, handle, now); err != nil {
			return nil, nil, err
		}
	default:
		found := false
		if session != "" {
			if id, ok := b.activeOf(session, who); ok {
				rec, err = b.store.View(ctx, who.key(), id, now)
				switch {
				case err == nil:
					found = true
				case errors.Is(err, viewstore.ErrNotFound):
					b.setActive(session, who, "") // closed or lapsed
				default:
					return nil, nil, storeErr(err)
				}
			}
		}
		if !found {
			views, err := b.store.Views(ctx, who.key(), now)
			if err != nil {
				return nil, nil, storeErr(err)
			}
			if len(views) != 1 {
				return nil, nil, b.noActiveView(views, session != "")
			}
			rec = views[0]
			warnings = append(warnings, tool.Warning{Code: WarnImplicitView,
				Message: "no view was named, so the only open view (" + rec.Name + ") was used; pass its handle as view to be explicit"})
		}
	}
	v, err := b.materialize(ctx, rec)
	if err != nil {
		return nil, nil, err
	}
	if b.o.Annotations != nil {
		o, _, err := b.o.Annotations.overlay(ctx, who.tenant, v.View)
		if err != nil {
			// The call goes on; the annotation tools say the store is
			// unavailable when they need it.
			b.log.LogAttrs(ctx, slog.LevelWarn, "annotations not laid over the view", slog.String("cause", err.Error()))
		}
		v.overlay = o
	}
	v.withheld = b.o.MemoryRead != nil && !b.o.MemoryRead(ctx)
	if b.o.Privacy != nil {
		v.priv = b.o.Privacy(ctx)
	}
	b.touch(ctx, rec, now)
	return v, warnings, nil
}

// viewRef is one open view in listings and error details.
type viewRef struct {
	View   string `json:"view"`
	Name   string `json:"name"`
	SHA256 string `json:"sha256"`
}

func (b *BinaryViews) refs(views []viewstore.View) []viewRef {
	out := make([]viewRef, 0, len(views))
	for _, v := range views {
		h, err := b.handles.seal(v)
		if err != nil {
			continue
		}
		out = append(out, viewRef{View: h, Name: v.Name, SHA256: v.SHA256})
	}
	return out
}

// noActiveView is the refusal of a view-scoped call that names no view
// when the caller has none or several open.
func (b *BinaryViews) noActiveView(views []viewstore.View, legacy bool) error {
	e := &errcode.Error{Code: tool.CodeNoActiveView, Details: map[string]any{"views": b.refs(views)}}
	switch {
	case len(views) == 0:
		e.Message = "no binary view is open: open a file with bininspect_open first"
	case legacy:
		e.Message = fmt.Sprintf("%d views are open and none is active: name one with the view parameter or make one active with bininspect_view_set_active (handles in details.views)", len(views))
	default:
		e.Message = fmt.Sprintf("%d views are open: name one with the view parameter (handles in details.views)", len(views))
	}
	return e
}

// activeOf returns the active view of a legacy session.
func (b *BinaryViews) activeOf(session string, who caller) (string, bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	a, ok := b.active[session]
	if !ok || a.caller != who.key() {
		return "", false
	}
	return a.id, true
}

// setActive makes id the active view of a legacy session ("" clears
// it). The map is bounded: past it, an arbitrary session forgets its
// active view (and falls back to its only open view, or names one).
func (b *BinaryViews) setActive(session string, who caller, id string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if id == "" {
		delete(b.active, session)
		return
	}
	if _, ok := b.active[session]; !ok && len(b.active) >= maxActiveSessions {
		for k := range b.active {
			delete(b.active, k)
			break
		}
	}
	b.active[session] = activeView{caller: who.key(), id: id}
}

// clearActive forgets id as the active view of every session.
func (b *BinaryViews) clearActive(who caller, id string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	for k, a := range b.active {
		if a.caller == who.key() && a.id == id {
			delete(b.active, k)
		}
	}
}
