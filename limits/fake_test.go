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
	mu     sync.Mutex
	logs   map[string][]int64
	err    error // returned by every call when set
	admit  Admission
	admits []Admit
	leases map[string]time.Time // lease -> expiry
	// lose makes AdmitScan commit and then fail, as an admission whose
	// answer was lost on the way back does.
	lose    bool
	charges map[string]string // call id -> lease id of the admission that charged it
	fenced  map[string]bool
	cancels int
	// cancelErr, when set, fails CancelAdmission alone.
	cancelErr error
	// delay, when set, is waited (under ctx) by every call before it
	// takes the lock: a slow store.
	delay    func(ctx context.Context) error
	renews   int
	releases int
	refunds  int
	audit    []AuditRecord
	lastFilt AuditFilter
}

func newFake() *fakeStore {
	return &fakeStore{logs: map[string][]int64{}, leases: map[string]time.Time{}, charges: map[string]string{}, fenced: map[string]bool{}}
}

func (f *fakeStore) setCancelErr(err error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.cancelErr = err
}

func (f *fakeStore) setErr(err error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.err = err
}

func (f *fakeStore) wait(ctx context.Context) error {
	f.mu.Lock()
	d := f.delay
	f.mu.Unlock()
	if d == nil {
		return nil
	}
	return d(ctx)
}

func (f *fakeStore) TakeRate(ctx context.Context, key string, now time.Time, p RatePolicy) (RateDecision, error) {
	if err := f.wait(ctx); err != nil {
		return RateDecision{}, err
	}
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
	if err := f.wait(ctx); err != nil {
		return Admission{}, err
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.err != nil {
		return Admission{}, f.err
	}
	if f.fenced[a.LeaseID] {
		return Admission{}, errors.New("lease id fenced")
	}
	f.admits = append(f.admits, a)
	adm := f.admit
	if adm.Refusal == "" {
		adm.LeaseExpires = a.Now.Add(a.LeaseTTL)
		f.leases[a.LeaseID] = adm.LeaseExpires
		if adm.Charged {
			f.charges[a.CallID] = a.LeaseID
		}
	}
	if f.lose {
		return Admission{}, errors.New("connection reset after commit")
	}
	return adm, nil
}

func (f *fakeStore) CancelAdmission(ctx context.Context, a Admit, now time.Time) (bool, error) {
	if err := f.wait(ctx); err != nil {
		return false, err
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.err != nil {
		return false, f.err
	}
	if f.cancelErr != nil {
		return false, f.cancelErr
	}
	f.cancels++
	f.fenced[a.LeaseID] = true
	delete(f.leases, a.LeaseID)
	if f.charges[a.CallID] == a.LeaseID {
		delete(f.charges, a.CallID)
		return true, nil
	}
	return false, nil
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
	if err := f.wait(ctx); err != nil {
		return err
	}
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
	if err := f.wait(ctx); err != nil {
		return UsageState{}, err
	}
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
