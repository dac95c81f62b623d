package limits

import (
	"context"
	"time"
)

// UsageStore reads what the limits hold for a credential without taking,
// renewing or deleting anything: a status query must never cost the
// caller a rate token or a slot.
type UsageStore interface {
	// ReadUsage returns the sliding logs under q.RateKeys (absent keys
	// are missing from the map), the monthly counter of q.Credential for
	// q.Period, and the leases live at q.Now, the credential's and all.
	ReadUsage(ctx context.Context, q UsageQuery) (UsageState, error)
}

// UsageQuery is one read of a credential's state.
type UsageQuery struct {
	Now        time.Time
	Credential string
	RateKeys   []string
	Period     string
}

// UsageState is what a store holds, raw.
type UsageState struct {
	Logs        map[string][]int64
	MonthlyUsed int64
	Leases      int
	AllLeases   int
}

// RateUsage is one sliding window as it stands.
type RateUsage struct {
	Limit  int
	Window time.Duration
	// Remaining admissions in the window that ends now.
	Remaining int
	// Reset is when the window next holds fewer admissions (zero when it
	// holds none).
	Reset time.Duration
}

// Usage is a credential's standing against every limit, read without
// taking anything.
type Usage struct {
	// Transport is the per-request limit (it applies only where the
	// server passes requests through it).
	Transport RateUsage
	// ScanRate is the short window of charged scans.
	ScanRate RateUsage
	// MonthlyLimit is the month's allowance (negative: no cap);
	// MonthlyUsed what is spent; MonthlyResets when the next month starts.
	MonthlyLimit, MonthlyUsed int64
	MonthlyResets             time.Time
	// Slots the credential holds of MaxSlots; ServerSlots of
	// ServerCapacity across the server.
	Slots, MaxSlots             int
	ServerSlots, ServerCapacity int
}

// MonthlyRemaining is the allowance left this month; -1 without a cap.
func (u Usage) MonthlyRemaining() int64 {
	if u.MonthlyLimit < 0 {
		return -1
	}
	return max(u.MonthlyLimit-u.MonthlyUsed, 0)
}

// PeekLog is TakeLog without the take: the decision a request at nowUS
// would get, with Remaining counting the admissions left before it.
func PeekLog(log []int64, nowUS int64, p RatePolicy) RateUsage {
	cutoff := nowUS - p.Window.Microseconds()
	n, oldest := 0, int64(0)
	for _, e := range log {
		if e >= cutoff {
			if n == 0 || e < oldest {
				oldest = e
			}
			n++
		}
	}
	u := RateUsage{Limit: p.Limit, Window: p.Window, Remaining: max(p.Limit-n, 0)}
	if n > 0 {
		u.Reset = usToDuration(oldest + p.Window.Microseconds() + 1 - nowUS)
	}
	return u
}

// Usage reads credential's standing against every limit. It takes
// nothing: not a rate token, not a slot. A store failure is
// CodeRateLimitUnavailable.
func (l *Limiter) Usage(ctx context.Context, credential string) (Usage, error) {
	if err := checkID("credential", credential); err != nil {
		return Usage{}, err
	}
	now := l.cfg.Now()
	period, toNext := monthPeriod(now)
	tk, sk := "transport:"+credential, "scan:"+credential
	var st UsageState
	err := l.run(ctx, opReadUsage, CodeRateLimitUnavailable, l.readDeadline(), func(ctx context.Context) error {
		var err error
		st, err = l.store.ReadUsage(ctx, UsageQuery{Now: now, Credential: credential, RateKeys: []string{tk, sk}, Period: period})
		return err
	})
	if err != nil {
		return Usage{}, newError(CodeRateLimitUnavailable, l.cfg.UnavailableRetryAfter, err)
	}
	nowUS := now.UnixMicro()
	return Usage{
		Transport:      PeekLog(st.Logs[tk], nowUS, l.cfg.Transport),
		ScanRate:       PeekLog(st.Logs[sk], nowUS, l.cfg.ScanRate),
		MonthlyLimit:   l.cfg.MonthlyScans,
		MonthlyUsed:    st.MonthlyUsed,
		MonthlyResets:  now.Add(toNext),
		Slots:          st.Leases,
		MaxSlots:       l.cfg.MaxConcurrentScans,
		ServerSlots:    st.AllLeases,
		ServerCapacity: l.cfg.ScannerCapacity,
	}, nil
}
