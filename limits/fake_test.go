package limits

import (
	"context"
	"errors"
	"sync"
	"time"
)

// fakeStore is a hand-written in-memory Store for the Limiter's own tests.
// The real adapters are tested by store/storetest.
type fakeStore struct {
	mu       sync.Mutex
	logs     map[string][]int64
	err      error // returned by every call when set
	admit    Admission
	admits   []Admit
	leases   map[string]time.Time // lease -> expiry
	renews   int
	releases int
	refunds  int
	audit    []AuditRecord
	lastFilt AuditFilter
}

func newFake() *fakeStore {
	return &fakeStore{logs: map[string][]int64{}, leases: map[string]time.Time{}}
}

func (f *fakeStore) setErr(err error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.err = err
}

func (f *fakeStore) TakeRate(ctx context.Context, key string, now time.Time, p RatePolicy) (RateDecision, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.err != nil {
		return RateDecision{}, f.err
	}
	var d RateDecision
	f.logs[key], d, _ = TakeLog(f.logs[key], now.UnixMicro(), p)
	return d, nil
}

func (f *fakeStore) AdmitScan(ctx context.Context, a Admit) (Admission, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.err != nil {
		return Admission{}, f.err
	}
	f.admits = append(f.admits, a)
	adm := f.admit
	if adm.Refusal == "" {
		adm.LeaseExpires = a.Now.Add(a.LeaseTTL)
		f.leases[a.LeaseID] = adm.LeaseExpires
	}
	return adm, nil
}

func (f *fakeStore) RenewLease(ctx context.Context, id string, now time.Time, ttl time.Duration) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.err != nil {
		return f.err
	}
	exp, ok := f.leases[id]
	if !ok || !exp.After(now) {
		return ErrStoreLeaseLost
	}
	f.leases[id] = now.Add(ttl)
	f.renews++
	return nil
}

func (f *fakeStore) ReleaseLease(ctx context.Context, id string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.err != nil {
		return f.err
	}
	delete(f.leases, id)
	f.releases++
	return nil
}

func (f *fakeStore) RefundScan(ctx context.Context, cred, call string) (bool, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.err != nil {
		return false, f.err
	}
	f.refunds++
	return true, nil
}

func (f *fakeStore) AppendAudit(ctx context.Context, rs ...AuditRecord) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.err != nil {
		return f.err
	}
	f.audit = append(f.audit, rs...)
	return nil
}

func (f *fakeStore) QueryAudit(ctx context.Context, flt AuditFilter) ([]AuditRecord, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.err != nil {
		return nil, f.err
	}
	f.lastFilt = flt
	return f.audit, nil
}

func (f *fakeStore) Ping(ctx context.Context) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.err
}

var errDown = errors.New("connection refused")

// clock is a controlled clock safe for concurrent use.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *clock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}

func (c *clock) Set(t time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = t
}

func (f *fakeStore) ReadUsage(ctx context.Context, q UsageQuery) (UsageState, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.err != nil {
		return UsageState{}, f.err
	}
	st := UsageState{Logs: map[string][]int64{}}
	for _, k := range q.RateKeys {
		if l, ok := f.logs[k]; ok {
			st.Logs[k] = append([]int64(nil), l...)
		}
	}
	for _, exp := range f.leases {
		if exp.After(q.Now) {
			st.Leases++
			st.AllLeases++
		}
	}
	return st, nil
}
