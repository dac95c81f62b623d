// Package policy turns Warden's request-path controls into the stages of
// the call path (tool.Middleware) the server runs around every call, and
// into the HTTP middleware in front of it: the credential's entitlements
// (from package auth), the transport rate limit, scan admission with
// quotas and concurrency slots (package limits), and the audit trail.
//
// Every control fails closed: a call is refused with the control's
// *_unavailable code when its state cannot be evaluated, and a call that
// carries no identity is refused unless the server names a local principal
// (warden stdio's local user).
package policy

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"log/slog"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/warden-mcp/warden/auth"
	"github.com/warden-mcp/warden/credential"
	"github.com/warden-mcp/warden/errcode"
	"github.com/warden-mcp/warden/limits"
	"github.com/warden-mcp/warden/tool"
)

// Controls holds what the stages consult. Build one at start-up.
type Controls struct {
	// Limiter enforces rates, quotas and slots and keeps the audit trail.
	// Required.
	Limiter *limits.Limiter
	// Logger receives refusal causes and audit failures. Nil discards.
	Logger *slog.Logger
	// Local is the principal of requests that carry none: warden stdio's
	// local user. Nil refuses such requests.
	Local *auth.Principal
	// Gates enforces the tool catalog: enablement, the unsafe switch,
	// target scope and human approval, in Middleware and Visible. Nil
	// enforces only entitlements. A server whose gates come after its
	// controls leaves it nil and builds Stages instead.
	Gates *Gates
	// Questions hides any credential in a string; the approval question
	// passes each argument through it (a *redact.Redactor does). Nil
	// leaves strings as they are (the question still cuts them short).
	Questions Hider
	// Queue makes calls that find the scan slots taken wait in line for
	// one (the local profile). Nil refuses them at once (hosted).
	Queue *Queue
	// MaxPendingAudit bounds the audit records kept in memory while the
	// store cannot take them; past it, calls are refused before any work
	// (audit_unavailable). Zero: DefaultMaxPendingAudit.
	MaxPendingAudit int
	// Observer, if set, is told of every tool call's outcome, every
	// refusal and every store failure (metrics). Nil: nothing.
	Observer Observer

	line    line
	repairs repairs
}

// Hider replaces every credential in a string with its marker.
type Hider interface {
	Hide(s string) string
}

// Observer receives what the controls decide, for metrics. It is called
// on the request's goroutine and must be fast and safe for concurrent use.
type Observer interface {
	// ToolCall reports a call's outcome ("ok", "input_required" or its
	// error code) and duration.
	ToolCall(ctx context.Context, tool, outcome string, d time.Duration)
	// Refused reports a refusal by a control ("rate_limit",
	// "scan_admission", "audit") with its code.
	Refused(ctx context.Context, control, code string)
	// StoreError reports a store call that failed ("rate_limit",
	// "scan_admission", "slots", "audit").
	StoreError(ctx context.Context, control string)
	// Decided reports how long a control took to decide ("rate_limit",
	// "scan_admission": one BeginScan, waiting in line excluded),
	// refusals included.
	Decided(ctx context.Context, control string, d time.Duration)
}

// observe returns the observer, or one that drops everything.
func (c *Controls) observe() Observer {
	if c.Observer == nil {
		return nopObserver{}
	}
	return c.Observer
}

type nopObserver struct{}

func (nopObserver) ToolCall(context.Context, string, string, time.Duration) {}
func (nopObserver) Refused(context.Context, string, string)                 {}
func (nopObserver) StoreError(context.Context, string)                      {}
func (nopObserver) Decided(context.Context, string, time.Duration)          {}

// LocalPrincipal is the identity warden stdio serves its local user under:
// every tool, limits and audit still applied.
func LocalPrincipal() *auth.Principal {
	return &auth.Principal{Subject: "local", Credential: "local", Tenant: "local", Entitlements: []string{"*"}}
}

func (c *Controls) logger() *slog.Logger {
	if c.Logger == nil {
		return slog.New(slog.DiscardHandler)
	}
	return c.Logger
}

// principal returns the caller's identity: the verified one from the
// request context, else the local one.
func (c *Controls) principal(ctx context.Context) (auth.Principal, bool) {
	if p, ok := auth.PrincipalFrom(ctx); ok {
		return p, true
	}
	if c.Local != nil {
		return *c.Local, true
	}
	return auth.Principal{}, false
}

// Caller returns the call's identity as the stages see it: the verified
// principal, else the local one.
func (c *Controls) Caller(ctx context.Context) (auth.Principal, bool) { return c.principal(ctx) }

// CredentialOf is the stable credential id of a principal, the one the
// limits and the audit trail key on.
func CredentialOf(p auth.Principal) string { return credentialOf(p) }

func credentialOf(p auth.Principal) string {
	switch {
	case p.Credential != "":
		return p.Credential
	case p.TokenID != "":
		return p.TokenID
	}
	return p.Subject
}

// callRecord collects what the audit record needs from inner layers, and
// keeps the record once written, for a refund that comes after it.
type callRecord struct {
	mu      sync.Mutex
	charged int64
	written *limits.AuditRecord
}

type recordKey struct{}

func recordFrom(ctx context.Context) *callRecord {
	r, _ := ctx.Value(recordKey{}).(*callRecord)
	return r
}

// Middleware returns the controls' stages of the call path over c.Gates
// and c.Questions: those of c.Stages(c.Gates, c.Questions).
func (c *Controls) Middleware() []tool.Middleware { return c.Stages(c.Gates, c.Questions).Middleware() }

// Stages are the controls' stages of the call path over one catalog's
// gates. A server whose gates are built after its controls (the gates
// check the configuration against the registry) builds its Stages then,
// and changes nothing in the Controls.
type Stages struct {
	c         *Controls
	gates     *Gates
	questions Hider
}

// Stages returns the stages of c over gates (nil: entitlements only) and
// questions, which hides credentials in approval questions (nil: the
// question still cuts each value short).
func (c *Controls) Stages(gates *Gates, questions Hider) *Stages {
	return &Stages{c: c, gates: gates, questions: questions}
}

// Middleware returns the stages, outermost first: the audit record around
// everything, then the gates in their documented order (enablement and
// the unsafe switch, entitlement, scope, approval), then admission, which
// arms Call.Begin (quota and slots are taken when the handler begins its
// work, after its own checks) and releases the slot when the call is
// settled. Tracing goes outside them and the privacy stage (package
// redact) inside, next to the handler.
func (s *Stages) Middleware() []tool.Middleware {
	c, g := s.c, s.gates
	stages := []stage{c.audit}
	if g != nil {
		stages = append(stages, g.enabled)
	}
	stages = append(stages, c.entitle)
	if g != nil {
		stages = append(stages, g.inScope, g.approve(c, s.questions))
	}
	stages = append(stages, c.admission)
	mw := make([]tool.Middleware, len(stages))
	for i, st := range stages {
		mw[i] = st.middleware()
	}
	return mw
}

// Visible is the server's listing filter (mcp.Options.Visible): a caller
// sees exactly the tools it may call.
func (s *Stages) Visible(ctx context.Context, t *tool.Tool) bool { return s.c.visible(ctx, s.gates, t) }

// stage is one control on the call path: it calls next to let the call go
// on, or returns its refusal.
type stage func(ctx context.Context, call *tool.Call, next tool.Handler) tool.Outcome

func (s stage) middleware() tool.Middleware {
	return func(next tool.Handler) tool.Handler {
		return func(ctx context.Context, call *tool.Call) tool.Outcome { return s(ctx, call, next) }
	}
}

// Visible is the listing filter over c.Gates: that of c.Stages(c.Gates,
// c.Questions).
func (c *Controls) Visible(ctx context.Context, t *tool.Tool) bool { return c.visible(ctx, c.Gates, t) }

func (c *Controls) visible(ctx context.Context, gates *Gates, t *tool.Tool) bool {
	if gates != nil && gates.Status(t) != nil {
		return false
	}
	p, ok := c.principal(ctx)
	return ok && p.Entitled(t.Name) && credential.Allows(ctx, t.Name)
}

// entitle refuses a call whose credential lacks the tool's entitlement, as
// a tool-level error the model can read.
func (c *Controls) entitle(ctx context.Context, call *tool.Call, next tool.Handler) tool.Outcome {
	t := call.Tool()
	p, ok := c.principal(ctx)
	if !ok {
		return refuse(t, &tool.Error{Code: "unauthenticated", Message: "the call carries no identity"})
	}
	if !p.Entitled(t.Name) {
		return refuse(t, &tool.Error{Code: CodeForbidden, Message: "this credential is not entitled to " + t.Name + "; the token's entitlements must include it"})
	}
	if !credential.Allows(ctx, t.Name) {
		return refuse(t, &tool.Error{Code: CodeForbidden, Message: "this credential is not entitled to " + t.Name + "; its registry entry's entitlements must include it"})
	}
	// The later stages read the caller from the call; the handler (and
	// the view resolver) with auth.PrincipalFrom, the local one on stdio
	// included.
	call.SetCaller(tool.Caller{Credential: credentialOf(p), Tenant: p.Tenant, Key: CallerKey(p)})
	return next(auth.WithPrincipal(ctx, p), call)
}

// refuse ends a call with a tool error in the tool's own format.
func refuse(t *tool.Tool, e *tool.Error) tool.Outcome {
	return tool.Outcome{Result: tool.ErrorResult(t, e)}
}

// audit records every call: when, which request, who, which tool, how it
// ended, how long it took and what it was charged. Never the arguments or
// the result.
func (c *Controls) audit(ctx context.Context, call *tool.Call, next tool.Handler) tool.Outcome {
	t := call.Tool()
	if !c.reserveAudit() {
		c.logger().LogAttrs(ctx, slog.LevelError, "call refused: the audit records waiting for the store fill the queue", slog.String("tool", t.Name))
		c.observe().Refused(ctx, "audit", CodeAuditUnavailable)
		return auditRefusal(t)
	}
	rec := &callRecord{}
	start := time.Now()
	res := next(context.WithValue(ctx, recordKey{}, rec), call)
	outcome := "ok"
	switch {
	case res.Interrupt != nil:
		outcome = "input_required"
	case res.Result.IsError && res.Result.ErrorCode != "":
		outcome = res.Result.ErrorCode
	case res.Result.IsError:
		outcome = "tool_error"
	}
	p, _ := c.principal(ctx)
	rec.mu.Lock()
	charged := rec.charged
	if call.Fault() != nil {
		// The release gives a call that failed through the server its
		// charge back (admission), so the record says it cost nothing.
		charged = 0
	}
	rec.mu.Unlock()
	r := limits.AuditRecord{
		Time:          start.UTC(),
		CorrelationID: call.CorrelationID(),
		Credential:    credentialOf(p),
		Tenant:        p.Tenant,
		Tool:          t.Name,
		Outcome:       outcome,
		Duration:      time.Since(start),
		QuotaCharged:  charged,
	}
	if r.CorrelationID == "" {
		r.CorrelationID = rand.Text()
	}
	if r.Credential == "" {
		r.Credential = "anonymous"
	}
	c.observe().ToolCall(ctx, t.Name, outcome, r.Duration)
	rec.mu.Lock()
	rec.written = &r
	rec.mu.Unlock()
	// The audit write must not be cut short by the client leaving; a
	// record the store refuses waits for it (see repair.go).
	c.settleAudit(ctx, r)
	return res
}

// CodeQuotaRefunded is the outcome of the audit record that gives back a
// charge its call's own record already counted: a call whose failure
// through the server became known only after it was recorded (a legacy
// result too large to keep for the client). Its QuotaCharged is -1, so
// the trail's sum agrees with the ledger.
const CodeQuotaRefunded = "quota_refunded"

// recordRefund appends the record of a refund given after the call's own
// record counted the charge; nothing when that record already said 0.
func (c *Controls) recordRefund(ctx context.Context, rec *callRecord) {
	if rec == nil {
		return
	}
	rec.mu.Lock()
	w := rec.written
	rec.mu.Unlock()
	if w == nil || w.QuotaCharged <= 0 {
		return
	}
	r := *w
	r.Time, r.Outcome, r.Duration, r.QuotaCharged = time.Now().UTC(), CodeQuotaRefunded, 0, -1
	if !c.reserveAudit() {
		c.logger().LogAttrs(ctx, slog.LevelError, "a refund could not be recorded in the audit trail: the records waiting for the store fill the queue",
			slog.String("tool", r.Tool), slog.String("correlation_id", r.CorrelationID))
		return
	}
	c.settleAudit(ctx, r)
}

// admission arms the call's Call.Begin with admit and, once the call is
// over, releases what admit took: at once, or when the transport has
// settled the call's delivery (Call.Settle), so that a call whose outcome
// the transport could not keep gets its charge back.
func (c *Controls) admission(ctx context.Context, call *tool.Call, next tool.Handler) tool.Outcome {
	var mu sync.Mutex
	var release func()
	call.SetAdmission(func(ctx context.Context) (context.Context, error) {
		wctx, rel, err := c.admit(ctx, call)
		if err != nil {
			return ctx, err
		}
		mu.Lock()
		release = rel
		mu.Unlock()
		return wctx, nil
	})
	out := next(ctx, call)
	mu.Lock()
	rel := release
	mu.Unlock()
	if rel != nil && !call.Settle(rel) {
		rel()
	}
	return out
}

// admit runs when a tool calls Call.Begin, after the tool's own checks.
// Tools that consume quota are charged; every call through it holds a
// concurrency slot, renewed while it runs and released when it ends.
func (c *Controls) admit(ctx context.Context, call *tool.Call) (context.Context, func(), error) {
	t, args := call.Tool(), call.Arguments()
	p, ok := c.principal(ctx)
	if !ok {
		return ctx, nil, &tool.Error{Code: "unauthenticated", Message: "the call carries no identity"}
	}
	key, err := limits.ScanKey(t.Name, args)
	if err != nil {
		return ctx, nil, limitError(err)
	}
	req := limits.ScanRequest{
		Credential: CallerKey(p),
		Tenant:     p.Tenant,
		Tool:       t.Name,
		ScanKey:    key,
		Charge:     t.Catalog.ConsumesQuota,
		CallID:     rand.Text(), // server-made: a client cannot replay a call for a free scan
	}
	var scan *limits.Scan
	if c.Queue != nil && c.line.waiting(req.Credential) > 0 {
		scan, err = c.admitInLine(ctx, req, nil) // others wait already: behind them
	} else {
		scan, err = c.beginScan(ctx, &req)
		if err != nil && c.Queue != nil && queues(err) {
			scan, err = c.admitInLine(ctx, req, err)
		}
	}
	if err != nil {
		if ctx.Err() != nil {
			// The caller left while waiting or while the store answered:
			// its call ends as cancelled, whatever the store said.
			return ctx, nil, ctx.Err()
		}
		c.logger().LogAttrs(ctx, slog.LevelInfo, "scan refused", slog.String("tool", t.Name), slog.String("code", string(limits.CodeOf(err))))
		if limits.Unavailable(err) {
			c.observe().StoreError(ctx, "scan_admission")
		}
		c.observe().Refused(ctx, "scan_admission", string(limits.CodeOf(err)))
		return ctx, nil, limitError(err)
	}
	if rec := recordFrom(ctx); rec != nil && scan.Charged() {
		rec.mu.Lock()
		rec.charged++
		rec.mu.Unlock()
	}
	work := scan.KeepAlive(context.WithoutCancel(ctx))
	// The work runs under the request's cancellation and the lease's.
	wctx, cancel := context.WithCancelCause(ctx)
	stop := context.AfterFunc(work, func() { cancel(context.Cause(work)) })
	release := func() {
		stop()
		cancel(context.Canceled)
		rctx, rcancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer rcancel()
		// A call that failed through the server, not its caller (its
		// session ended by the server, its outcome lost by the
		// transport), gives its charge back.
		c.releaseScan(ctx, rctx, scan, call.Fault() != nil && scan.Charged(), recordFrom(ctx))
		if c.Queue != nil {
			c.line.wake() // the first call in line may take the slot
		}
	}
	return wctx, release, nil
}

// releaseScan gives back a call's charge (refund: it failed through the
// server) and its slot; what the store does not take now is retried by
// Repair. A refund the call's audit record did not foresee is recorded.
func (c *Controls) releaseScan(ctx, rctx context.Context, scan *limits.Scan, refund bool, rec *callRecord) {
	if refund {
		if _, err := scan.Refund(rctx); err != nil {
			c.observe().StoreError(ctx, "scan_admission")
			c.logger().LogAttrs(ctx, slog.LevelWarn, "charge of a failed call not refunded yet; retried", slog.String("cause", err.Error()))
			c.retryRelease(scan, true, rec)
			return
		}
		c.recordRefund(ctx, rec)
	}
	if err := scan.Release(rctx); err != nil {
		c.observe().StoreError(ctx, "slots")
		c.logger().LogAttrs(ctx, slog.LevelWarn, "scan slot not released yet; retried until the store is back", slog.String("cause", err.Error()))
		c.retryRelease(scan, false, nil)
	}
}

// limitError turns a limits refusal into the tool error the model reads.
// Every refusal that a retry can cure carries retryAfterSeconds in its
// details.
func limitError(err error) *tool.Error {
	le, ok := limits.AsError(err)
	if !ok {
		return &tool.Error{Code: string(limits.CodeScanSlotsUnavailable), Message: "scan admission could not be evaluated",
			Details: map[string]any{"retryAfterSeconds": limits.RetryAfterSeconds(limits.DefaultUnavailableRetry)}, Cause: err}
	}
	te := &tool.Error{Code: le.Code, Message: le.Message}
	if n := noteOf(err); n != "" {
		te.Message += "; " + n
	}
	if s := retryAfterSeconds(le); s > 0 {
		te.Details = map[string]any{"retryAfterSeconds": s}
	}
	return te
}

// DuplicateScanRetry is the retry hint of duplicate_scan, which the
// limiter leaves open: the identical scan that holds the call back takes
// seconds.
const DuplicateScanRetry = 10 * time.Second

// retryAfterSeconds is the limiter's hint in whole seconds; a refusal a
// retry can cure that came without one gets a floor, and the refusals a
// retry cannot cure get none.
func retryAfterSeconds(le *errcode.Error) int64 {
	switch limits.Code(le.Code) {
	case limits.CodeIdempotencyConflict, limits.CodeInvalidRequest:
		return 0
	}
	if s := limits.RetryAfterSeconds(le.RetryAfter); s > 0 {
		return s
	}
	if limits.Code(le.Code) == limits.CodeDuplicateScan {
		return limits.RetryAfterSeconds(DuplicateScanRetry)
	}
	return 1
}

// BindCaller records the authenticated caller (CallerKey: issuer, tenant
// and credential) as the caller of the request with bind (the protocol
// engine's mcp.WithCaller), so that legacy sessions, input rounds
// (requestState), tasks and streams started by one caller cannot be
// continued or read by another.
func (c *Controls) BindCaller(bind func(ctx context.Context, key string) context.Context, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if p, ok := c.principal(r.Context()); ok {
			r = r.WithContext(bind(r.Context(), CallerKey(p)))
		}
		next.ServeHTTP(w, r)
	})
}

// RateLimit is the transport rate limit, per credential, in front of the
// protocol endpoint and behind authentication: 429 with Retry-After and
// RateLimit headers when over the limit, 503 with Retry-After when the
// limit cannot be evaluated.
func (c *Controls) RateLimit(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p, ok := c.principal(r.Context())
		if !ok {
			writeRefusal(w, http.StatusUnauthorized, "unauthenticated", "the request carries no identity", 0)
			return
		}
		start := time.Now()
		d, err := c.Limiter.AllowRequest(r.Context(), CallerKey(p))
		c.observe().Decided(r.Context(), "rate_limit", time.Since(start))
		d.SetHeaders(w.Header())
		if err != nil {
			if limits.Unavailable(err) {
				c.observe().StoreError(r.Context(), "rate_limit")
			}
			c.observe().Refused(r.Context(), "rate_limit", string(limits.CodeOf(err)))
			le, ok := limits.AsError(err)
			if !ok {
				le = &errcode.Error{Code: string(limits.CodeRateLimitUnavailable), Message: "rate limit could not be evaluated", RetryAfter: 2 * time.Second}
			}
			limits.SetRetryAfter(w.Header(), err)
			writeRefusal(w, limits.HTTPStatus(le), le.Code, le.Message, le.RetryAfter)
			return
		}
		next.ServeHTTP(w, r)
	})
}

func writeRefusal(w http.ResponseWriter, status int, code, msg string, retry time.Duration) {
	w.Header().Set("Content-Type", "application/json")
	if retry > 0 && w.Header().Get("Retry-After") == "" {
		w.Header().Set("Retry-After", strconv.FormatInt(limits.RetryAfterSeconds(retry), 10))
	}
	w.WriteHeader(status)
	body := map[string]any{"code": code, "message": msg}
	if retry > 0 {
		body["retryAfterSeconds"] = limits.RetryAfterSeconds(retry)
	}
	b, _ := json.Marshal(map[string]any{"error": body})
	_, _ = w.Write(b)
}
