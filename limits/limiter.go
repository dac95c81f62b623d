package limits

import (
	"context"
	"errors"
	"fmt"
	"time"
	"unicode/utf8"
)

// Limiter applies the configured limits against a Store. It is safe for
// concurrent use; create one per process and share it.
type Limiter struct {
	store     Store
	cfg       Config
	denied    denyCache
	watch     storeWatch
	unsettled unsettled
	audits    auditGroup
}

// New returns a Limiter over store. A nil cfg means all defaults; see
// Config for each field's zero value. It returns an error only for an
// invalid configuration.
func New(store Store, cfg *Config) (*Limiter, error) {
	if store == nil {
		return nil, errors.New("limits: nil store")
	}
	c := cfg.withDefaults()
	if err := c.validate(); err != nil {
		return nil, err
	}
	return &Limiter{store: store, cfg: c}, nil
}

// Config returns the effective configuration, defaults applied.
func (l *Limiter) Config() Config { return l.cfg }

// AllowRequest takes one unit of the transport rate limit for credential
// (a stable credential id, never the token itself). On admission it returns
// the decision and a nil error. On denial it returns the decision (for the
// RateLimit headers) and an *errcode.Error with CodeRateLimited. When the store
// cannot be evaluated it returns an *errcode.Error with CodeRateLimitUnavailable and
// a zero decision (Allowed false, no policy, so SetHeaders writes nothing).
// Callers must deny on any non-nil error.
//
// After a denial the Limiter remembers, in memory, until when the store is
// certain to deny that credential, and refuses it without a store round
// trip until then (see denycache.go for why this keeps the limit exact).
func (l *Limiter) AllowRequest(ctx context.Context, credential string) (RateDecision, error) {
	if err := checkID("credential", credential); err != nil {
		return RateDecision{}, err
	}
	key := "transport:" + credential
	now := l.cfg.Now()
	if wait, ok := l.denied.deniedUntil(key, now); ok {
		d := RateDecision{Policy: l.cfg.Transport, RetryAfter: wait, Reset: wait}
		return d, newError(CodeRateLimited, wait, nil)
	}
	var d RateDecision
	err := l.run(ctx, opTakeRate, CodeRateLimitUnavailable, l.transportDeadline(), func(ctx context.Context) error {
		var err error
		d, err = l.store.TakeRate(ctx, key, now, l.cfg.Transport)
		return err
	})
	if err != nil {
		// A zero decision: SetHeaders writes no RateLimit fields, since
		// nothing is known about the window. Retry-After comes from the error.
		return RateDecision{}, newError(CodeRateLimitUnavailable, l.cfg.UnavailableRetryAfter, err)
	}
	if !d.Allowed {
		l.denied.deny(key, now.Add(d.RetryAfter), now)
		return d, newError(CodeRateLimited, d.RetryAfter, nil)
	}
	return d, nil
}

// Audit appends one record and returns once the store has committed it. A
// zero Time is set to now and an empty Outcome to "ok". Records of calls
// made at the same time share one store transaction (group commit, see
// auditgroup.go). It returns an *errcode.Error with CodeAuditUnavailable
// when the store fails, goes quiet for ScanTimeout (see deadline.go), or
// does not commit within ScanMaxWait, or
// CodeInvalidRequest for missing or oversized ids.
func (l *Limiter) Audit(ctx context.Context, r AuditRecord) error {
	if r.Time.IsZero() {
		r.Time = l.cfg.Now()
	}
	if r.Outcome == "" {
		r.Outcome = "ok"
	}
	for _, f := range []struct{ name, v string }{
		{"credential", r.Credential}, {"tool", r.Tool}, {"outcome", r.Outcome},
	} {
		if err := checkID(f.name, f.v); err != nil {
			return err
		}
	}
	for _, f := range []struct{ name, v string }{
		{"correlation id", r.CorrelationID}, {"tenant", r.Tenant},
	} {
		if err := checkOptionalID(f.name, f.v); err != nil {
			return err
		}
	}
	if r.Duration < 0 || r.QuotaCharged < -1 {
		return newError(CodeInvalidRequest, 0, errors.New("negative duration, or a charge below -1"))
	}
	write := func(ctx context.Context, opened time.Time, recs []AuditRecord) error {
		return l.runSince(ctx, opened, opAppendAudit, CodeAuditUnavailable, l.scanDeadline(), func(ctx context.Context) error {
			return l.store.AppendAudit(ctx, recs...)
		})
	}
	if err := l.audits.append(ctx, write, r, l.cfg.ScanMaxWait); err != nil {
		return newError(CodeAuditUnavailable, l.cfg.UnavailableRetryAfter, err)
	}
	return nil
}

// QueryAudit returns audit records matching f, newest first. A zero
// f.Limit returns at most DefaultAuditQueryLimit rows; larger limits are
// capped at MaxAuditQueryLimit.
func (l *Limiter) QueryAudit(ctx context.Context, f AuditFilter) ([]AuditRecord, error) {
	switch {
	case f.Limit <= 0:
		f.Limit = DefaultAuditQueryLimit
	case f.Limit > MaxAuditQueryLimit:
		f.Limit = MaxAuditQueryLimit
	}
	for _, v := range []string{f.Credential, f.Tenant, f.Tool, f.Outcome} {
		if err := checkOptionalID("filter", v); err != nil {
			return nil, err
		}
	}
	recs, err := l.store.QueryAudit(ctx, f)
	if err != nil {
		return nil, newError(CodeAuditUnavailable, l.cfg.UnavailableRetryAfter, err)
	}
	return recs, nil
}

// Ready reports whether the store can be evaluated; it maps failure to
// CodeRateLimitUnavailable so a readiness probe can fail with a code.
func (l *Limiter) Ready(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, l.cfg.ScanTimeout)
	defer cancel()
	if err := l.store.Ping(ctx); err != nil {
		return newError(CodeRateLimitUnavailable, l.cfg.UnavailableRetryAfter, err)
	}
	return nil
}

func checkID(name, v string) error {
	if v == "" {
		return newError(CodeInvalidRequest, 0, fmt.Errorf("empty %s", name))
	}
	return checkOptionalID(name, v)
}

func checkOptionalID(name, v string) error {
	if len(v) > MaxIDLength || !utf8.ValidString(v) {
		return newError(CodeInvalidRequest, 0, fmt.Errorf("%s longer than %d bytes or not UTF-8", name, MaxIDLength))
	}
	return nil
}

// monthPeriod returns the UTC calendar month of t as "YYYY-MM" and the time
// from t until the next month starts.
func monthPeriod(t time.Time) (string, time.Duration) {
	u := t.UTC()
	next := time.Date(u.Year(), u.Month()+1, 1, 0, 0, 0, 0, time.UTC)
	return u.Format("2006-01"), next.Sub(u)
}
