package storetest

import (
	"reflect"
	"testing"
	"time"

	"github.com/warden-mcp/warden/limits"
)

// testUsage: ReadUsage reports the logs, the month's count and the live
// leases, and changes none of them: reading twice gives the same answer,
// and a take after reads decides as it would have without them.
func testUsage(t *testing.T, b Backend) {
	s1, s2 := b.Instance(t), b.Instance(t)
	p := limits.RatePolicy{Limit: 3, Window: time.Minute}
	for i := range 2 {
		if _, err := s1.TakeRate(t.Context(), "transport:cred-u", t0.Add(time.Duration(i)*time.Second), p); err != nil {
			t.Fatal(err)
		}
	}
	a := admitReq("cred-u", "call-u", "key-u", t0)
	mustAdmit(t, s1, a)
	other := admitReq("cred-v", "call-v", "key-v", t0)
	mustAdmit(t, s1, other)
	q := limits.UsageQuery{Now: t0.Add(2 * time.Second), Credential: "cred-u", RateKeys: []string{"transport:cred-u", "scan:cred-u", "nothing:here"}, Period: a.Period}
	st, err := s2.ReadUsage(t.Context(), q)
	if err != nil {
		t.Fatal(err)
	}
	if len(st.Logs["transport:cred-u"]) != 2 || len(st.Logs["scan:cred-u"]) != 1 || st.MonthlyUsed != 1 || st.Leases != 1 || st.AllLeases != 2 {
		t.Fatalf("usage %+v", st)
	}
	if _, ok := st.Logs["nothing:here"]; ok {
		t.Error("an absent key has a log")
	}
	again, err := s1.ReadUsage(t.Context(), q)
	if err != nil || !reflect.DeepEqual(st, again) {
		t.Errorf("a second read differs: %+v %v", again, err)
	}
	// The third take is still admitted and the fourth refused: the reads
	// took nothing.
	for i, want := range []bool{true, false} {
		d, err := s1.TakeRate(t.Context(), "transport:cred-u", t0.Add(3*time.Second), p)
		if err != nil || d.Allowed != want {
			t.Errorf("take %d after reads: allowed=%v err=%v", i+3, d.Allowed, err)
		}
	}
	// A lease past its expiry is not counted.
	late := q
	late.Now = t0.Add(a.LeaseTTL + time.Second)
	if st, err := s2.ReadUsage(t.Context(), late); err != nil || st.Leases != 0 || st.AllLeases != 0 {
		t.Errorf("expired leases counted: %+v %v", st, err)
	}
}
