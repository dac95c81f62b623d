package toolset

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/warden-mcp/warden/annotation"
	"github.com/warden-mcp/warden/auth"
	"github.com/warden-mcp/warden/binview"
	"github.com/warden-mcp/warden/binview/budget"
	"github.com/warden-mcp/warden/binview/disasm"
	"github.com/warden-mcp/warden/errcode"
	"github.com/warden-mcp/warden/redact"
	"github.com/warden-mcp/warden/tool"
)

// What the code-analysis and annotation tools of the bininspect_ family
// share: the view of a call, the wait for a stage of the view's code
// analysis, the list conventions, and the annotation layer.

// defaultCodeWait is how long a tool waits for an unfinished stage of a
// view's code analysis before it answers with what is ready.
const defaultCodeWait = 2 * time.Second

// binaryViewOf returns the engine view a view-scoped call acts on: the
// server's resolver (BinaryViews.Resolve) returns a *boundView; a
// *binview.View or *binview.OverlayView serves embedders and tests.
func binaryViewOf(call *tool.Call) (*binview.View, error) {
	v, _ := call.View()
	switch bv := v.(type) {
	case *boundView:
		return bv.View, nil
	case *binview.View:
		return bv, nil
	case *binview.OverlayView:
		return bv.View, nil
	}
	return nil, errcode.New(tool.CodeNoActiveView, "no binary view is open: open one with bininspect_open first")
}

// viewPrivacy is the privacy redactor of the call's view's caller
// (BinaryOptions.Privacy); balanced for a view bound without one.
func viewPrivacy(call *tool.Call) *redact.Redactor {
	if bv, ok := call.View(); ok {
		if b, ok := bv.(*boundView); ok {
			return b.redactor()
		}
	}
	return balanced()
}

// withholdSecretCode removes from a listing what instructions decoded
// from a credential's bytes show of them, in balanced and strict: the
// bytes become the credential's marker, as in bininspect_memory_read,
// and the mnemonic, operands, text and targets, which the decoder read
// off those bytes, the marker too. The check is secretBytes', over each
// run of contiguous instructions with the bytes either side, so a
// listing that starts or ends inside a token withholds its part.
func withholdSecretCode(r *redact.Redactor, v *binview.View, ins []disasm.Inst, items []InstructionItem) {
	if r.Mode() == redact.Off || len(ins) != len(items) {
		return
	}
	for a := 0; a < len(ins); {
		e := a + 1
		for e < len(ins) && ins[e].Addr == ins[e-1].Addr+uint64(ins[e-1].Len) {
			e++
		}
		var b []byte
		for _, in := range ins[a:e] {
			b = append(b, in.Bytes...)
		}
		spans := secretBytes(r, v, ins[a].Addr, b)
		off := 0
		for i := a; i < e && len(spans) > 0; i++ {
			n := len(ins[i].Bytes)
			var local []redact.Span
			for _, sp := range spans {
				if st, en := max(sp.Start-off, 0), min(sp.End-off, n); st < en {
					sp.Start, sp.End, sp.Length = st, en, en-st
					local = append(local, sp)
				}
			}
			if len(local) > 0 {
				m := "[REDACTED:" + local[0].Type + "]"
				it := &items[i]
				it.Bytes = redact.HexWithout(ins[i].Bytes, local)
				it.Mnemonic, it.Operands, it.Text, it.Targets = m, "", m, nil
			}
			off += n
		}
		a = e
	}
}

// codeTools holds what the tools of this half of the family need.
type codeTools struct {
	layer *AnnotationLayer // nil: no annotation store
	wait  time.Duration
}

func newCodeTools(deps Deps) *codeTools {
	c := &codeTools{layer: deps.Annotations, wait: deps.CodeWait}
	if c.wait <= 0 {
		c.wait = defaultCodeWait
	}
	return c
}

// codeState waits (at most c.wait, or until the client cancels) for
// stage of v's code analysis and returns what is ready. When the stage
// is not ready it warns analysis_incomplete, saying how far the analysis
// has got; a client that supports tasks gets the call turned into one,
// which waits for the stage while reporting progress. An analysis that
// cannot run at all (an architecture no decoder reads), and a stage
// stopped by its budget (analysis_limit) or by its worker's death
// (analysis_failed), are errors.
func (c *codeTools) codeState(ctx context.Context, call *tool.Call, v *binview.View, stage binview.CodeStage) (binview.CodeState, error) {
	wctx, cancel := context.WithTimeout(ctx, c.wait)
	st, _ := v.WaitCode(wctx, stage)
	cancel()
	if st.Stage < stage && st.Running && call.Detach() {
		st = c.waitWithProgress(ctx, call, v, stage)
	}
	if err := ctx.Err(); err != nil {
		return st, err
	}
	if st.Stage >= stage {
		return st, nil
	}
	if !st.Started {
		return st, errcode.New("view_closed", "the view was closed; open it again")
	}
	if st.Finished() && st.Err != nil && (st.Stage == binview.CodePending || failsTheCall(st.Err)) {
		return st, st.Err
	}
	why := "the code analysis is still running"
	if st.Finished() {
		why = "the code analysis stopped early"
		if e, ok := errcode.As(st.Err); ok {
			why += " (" + e.Code + ")"
		}
	}
	call.Warn(binview.CodeAnalysisIncomplete, fmt.Sprintf("%s: ready up to stage %s (%d functions so far, %d instructions decoded); "+
		"this answer needs stage %s and may be incomplete; call again for more", why, st.Stage, len(st.Functions),
		st.Progress.Instructions, stage))
	return st, nil
}

// failsTheCall reports whether a stage that stopped on err fails the
// calls that need it rather than answer with what was found: a limit of
// the analysis's budget (analysis_limit, saying which), or the isolated
// worker's death (analysis_failed). A stage whose time ran out answers
// with what it found, and the warning analysis_incomplete.
func failsTheCall(err error) bool {
	if _, ok := budget.IsLimit(err); ok {
		return true
	}
	return errcode.CodeOf(err) == binview.CodeAnalysisFailed
}

// waitWithProgress waits for stage in a detached call, reporting the
// analysis's progress every half second.
func (c *codeTools) waitWithProgress(ctx context.Context, call *tool.Call, v *binview.View, stage binview.CodeStage) binview.CodeState {
	tick := time.NewTicker(500 * time.Millisecond)
	defer tick.Stop()
	done := make(chan binview.CodeState, 1)
	wctx, cancel := context.WithCancel(ctx)
	defer cancel()
	go func() {
		st, _ := v.WaitCode(wctx, stage)
		done <- st
	}()
	for {
		select {
		case st := <-done:
			return st
		case <-tick.C:
			st := v.CodeState()
			p := st.Progress
			call.Progress(float64(p.Stage)*1e6+float64(p.Done), float64(stage)*1e6,
				fmt.Sprintf("%s: %d of %d functions", p.Stage, p.Done, p.Total))
		}
	}
}

// codeCaller returns the caller's tenant and credential; ok is false when
// the call carries no identity.
func codeCaller(ctx context.Context) (tenant, credential string, ok bool) {
	p, ok := auth.PrincipalFrom(ctx)
	if !ok {
		return "", "", false
	}
	cred := p.Credential
	switch {
	case cred != "":
	case p.TokenID != "":
		cred = p.TokenID
	default:
		cred = p.Subject
	}
	return p.Tenant, cred, p.Tenant != ""
}

// overlay returns the caller's annotations of v as an overlay, or nil
// when there is no store or no identity. A store failure is logged and
// the listing goes on without them, saying so.
func (c *codeTools) overlay(ctx context.Context, call *tool.Call, v *binview.View) (*binview.Overlay, *annotation.State) {
	if c.layer == nil {
		return nil, nil
	}
	tenant, _, ok := codeCaller(ctx)
	if !ok {
		return nil, nil
	}
	o, st, err := c.layer.overlay(ctx, tenant, v)
	if err != nil {
		call.Logger().Error("annotations not loaded", "tool", call.ToolName(), "cause", err.Error())
		call.Warn(annotation.CodeUnavailable, "the annotation store is unavailable: names and comments people set are missing from this answer")
		return nil, nil
	}
	return o, st
}

// codeRange turns the list conventions' optional range (address, or
// start with end or length) into a query.
func codeRange(q *binview.Query, address, start, end *tool.Address, length *tool.IntExpr) error {
	switch {
	case address != nil && (start != nil || end != nil || length != nil):
		return errcode.New("invalid_params", "give address, or start with end or length, not both")
	case address != nil:
		q.Ranged, q.Start, q.End = true, uint64(*address), uint64(*address)+1
	case start != nil && end != nil && length != nil:
		return errcode.New("invalid_params", "give end or length, not both")
	case start != nil:
		q.Ranged, q.Start, q.End = true, uint64(*start), ^uint64(0)
		if end != nil {
			q.End = uint64(*end)
		} else if length != nil {
			q.End = uint64(*start) + uint64(*length)
			if q.End < q.Start {
				q.End = ^uint64(0)
			}
		}
		if q.End < q.Start {
			return errcode.New("invalid_params", "end is below start")
		}
	case end != nil || length != nil:
		return errcode.New("invalid_params", "end and length need start")
	}
	return nil
}

// codeHex formats an address.
func codeHex(a uint64) string { return binview.Hex(a) }

// codeHexOrEmpty formats an address, or "" for 0 (unknown).
func codeHexOrEmpty(a uint64) string {
	if a == 0 {
		return ""
	}
	return binview.Hex(a)
}

// AnnotationLayer is the annotation store and, per file, the current
// state computed from its log, refreshed incrementally on each use (one
// indexed query for what other calls and replicas appended since). The
// bininspect tools use it, and the view resolver lays its overlay over
// the views it returns, so that names a person set resolve in address
// expressions. Safe for concurrent use.
type AnnotationLayer struct {
	store annotation.Store
	mu    sync.Mutex
	files map[annotation.File]*layerFile
	tick  uint64
}

type layerFile struct {
	state *annotation.State
	used  uint64
	// The overlay made from state at seq, for a view at base.
	overlay     *binview.Overlay
	overlaySeq  int64
	overlayBase uint64
}

// maxLayerFiles bounds the files whose state the layer keeps; the least
// recently used are dropped (and reloaded from the store when needed).
const maxLayerFiles = 256

// NewAnnotationLayer returns a layer over st.
func NewAnnotationLayer(st annotation.Store) *AnnotationLayer {
	return &AnnotationLayer{store: st, files: map[annotation.File]*layerFile{}}
}

// Store returns the layer's store.
func (l *AnnotationLayer) Store() annotation.Store { return l.store }

func (l *AnnotationLayer) file(f annotation.File) *layerFile {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.tick++
	lf, ok := l.files[f]
	if !ok {
		if len(l.files) >= maxLayerFiles {
			var oldest annotation.File
			first := true
			for k, v := range l.files {
				if first || v.used < l.files[oldest].used {
					oldest, first = k, false
				}
			}
			delete(l.files, oldest)
		}
		lf = &layerFile{state: annotation.NewState()}
		l.files[f] = lf
	}
	lf.used = l.tick
	return lf
}

// State returns the current annotations of the tenant's file, refreshed
// from the store.
func (l *AnnotationLayer) State(ctx context.Context, f annotation.File) (*annotation.State, error) {
	lf := l.file(f)
	if err := lf.state.Refresh(ctx, l.store, f); err != nil {
		return nil, err
	}
	return lf.state, nil
}

func annotationFile(tenant string, v *binview.View) annotation.File {
	return annotation.File{Tenant: tenant, SHA256: v.Hashes().SHA256}
}

// overlay returns the tenant's names and function starts for v, at v's
// image base.
func (l *AnnotationLayer) overlay(ctx context.Context, tenant string, v *binview.View) (*binview.Overlay, *annotation.State, error) {
	f := annotationFile(tenant, v)
	if annotation.CheckFile(f) != nil {
		return nil, nil, errors.New("toolset: the view has no SHA-256 or the tenant is invalid")
	}
	lf := l.file(f)
	if err := lf.state.Refresh(ctx, l.store, f); err != nil {
		return nil, nil, err
	}
	base := v.Analysis().ImageBase
	seq := lf.state.Seq()
	l.mu.Lock()
	o := lf.overlay
	fresh := o != nil && lf.overlaySeq == seq && lf.overlayBase == base
	l.mu.Unlock()
	if fresh {
		return o, lf.state, nil
	}
	names := map[uint64]string{}
	for off, n := range lf.state.Names() {
		names[base+off] = n
	}
	var fns []uint64
	for _, off := range lf.state.Functions() {
		fns = append(fns, base+off)
	}
	o = binview.NewOverlay(names, fns)
	l.mu.Lock()
	lf.overlay, lf.overlaySeq, lf.overlayBase = o, seq, base
	l.mu.Unlock()
	return o, lf.state, nil
}

// View lays the tenant's annotations over v, for a view resolver: the
// returned view resolves names a person set in address expressions. On a
// store failure it returns v without them and the error, which the
// resolver logs.
func (l *AnnotationLayer) View(ctx context.Context, tenant string, v *binview.View) (*binview.OverlayView, error) {
	if l == nil {
		return v.WithOverlay(nil), nil
	}
	o, _, err := l.overlay(ctx, tenant, v)
	if err != nil {
		return v.WithOverlay(nil), err
	}
	return v.WithOverlay(o), nil
}

// bininspectCodeTools builds the code-analysis and annotation tools.
func bininspectCodeTools(deps Deps) ([]*tool.Tool, error) {
	a, err := bininspectAnalysisTools(deps)
	if err != nil {
		return nil, err
	}
	b, err := bininspectAnnotationTools(deps)
	if err != nil {
		return nil, err
	}
	return append(a, b...), nil
}
