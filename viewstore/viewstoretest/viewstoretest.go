// Package viewstoretest is the behaviour suite every viewstore.Store must
// pass. An adapter's test calls Run with a function that sets up a fresh,
// empty database and returns a Backend for it. The suite passes every
// time to the store itself; its concurrency tests run goroutines across
// two instances on one database, standing in for two replicas.
package viewstoretest

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/warden-mcp/warden/viewstore"
)

// Backend is one fresh database under test.
type Backend interface {
	// Instance opens a new handle on the backend's database and
	// registers its cleanup with t; each plays one replica.
	Instance(t *testing.T) viewstore.Store
	// Prune runs the adapter's pruning at now.
	Prune(t *testing.T, now time.Time)
}

var t0 = time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)

// Run runs the whole suite; newBackend is called once per subtest.
func Run(t *testing.T, newBackend func(t *testing.T) Backend) {
	tests := []struct {
		name string
		fn   func(t *testing.T, b Backend)
	}{
		{"Blobs", testBlobs},
		{"Grants", testGrants},
		{"Analyses", testAnalyses},
		{"Views", testViews},
		{"ViewLimitExactUnderConcurrency", testViewLimitConcurrent},
		{"ViewFieldCaps", testViewCaps},
		{"UploadQuota", testUploadQuota},
		{"UploadQuotaExactUnderConcurrency", testUploadQuotaConcurrent},
		{"Prune", testPrune},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) { tt.fn(t, newBackend(t)) })
	}
}

// SHA returns the lower-case hex SHA-256 of b.
func SHA(b []byte) string {
	h := sha256.Sum256(b)
	return hex.EncodeToString(h[:])
}

func testBlobs(t *testing.T, b Backend) {
	ctx := context.Background()
	a, other := b.Instance(t), b.Instance(t)
	data := []byte("\x7fELF and then some bytes\x00\xff")
	sum := SHA(data)
	if _, err := a.Blob(ctx, sum, t0); !errors.Is(err, viewstore.ErrNotFound) {
		t.Fatalf("absent blob: %v", err)
	}
	if err := a.PutBlob(ctx, sum, data, t0.Add(time.Hour)); err != nil {
		t.Fatal(err)
	}
	got, err := other.Blob(ctx, sum, t0.Add(time.Minute)) // another replica sees it
	if err != nil || !bytes.Equal(got, data) {
		t.Fatalf("blob: %q %v", got, err)
	}
	got[0] = 'X'
	if again, _ := a.Blob(ctx, sum, t0); again[0] != 0x7f {
		t.Error("the returned bytes alias the stored ones")
	}
	if _, err := a.Blob(ctx, sum, t0.Add(time.Hour)); !errors.Is(err, viewstore.ErrNotFound) {
		t.Errorf("expired blob: %v", err)
	}
	// Storing it again extends the expiry, never shortens it.
	if err := other.PutBlob(ctx, sum, data, t0.Add(3*time.Hour)); err != nil {
		t.Fatal(err)
	}
	if err := a.PutBlob(ctx, sum, data, t0.Add(2*time.Hour)); err != nil {
		t.Fatal(err)
	}
	if _, err := a.Blob(ctx, sum, t0.Add(150*time.Minute)); err != nil {
		t.Errorf("re-put blob: %v", err)
	}
	empty := SHA(nil)
	if err := a.PutBlob(ctx, empty, nil, t0.Add(time.Hour)); err != nil {
		t.Fatal(err)
	}
	if got, err := a.Blob(ctx, empty, t0); err != nil || len(got) != 0 {
		t.Errorf("empty blob: %q %v", got, err)
	}
}

func testGrants(t *testing.T, b Backend) {
	ctx := context.Background()
	a, other := b.Instance(t), b.Instance(t)
	sum := SHA([]byte("x"))
	if ok, err := a.Granted(ctx, "acme", sum, t0); err != nil || ok {
		t.Fatalf("fresh: %v %v", ok, err)
	}
	if err := a.Grant(ctx, "acme", sum, t0.Add(time.Hour)); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		tenant string
		at     time.Time
		want   bool
	}{
		{"acme", t0, true},
		{"acme", t0.Add(time.Hour - time.Microsecond), true},
		{"acme", t0.Add(time.Hour), false},
		{"globex", t0, false},
		{"", t0, false},
	} {
		if ok, err := other.Granted(ctx, c.tenant, sum, c.at); err != nil || ok != c.want {
			t.Errorf("%q at %v: %v %v, want %v", c.tenant, c.at, ok, err, c.want)
		}
	}
	if ok, _ := a.Granted(ctx, "acme", SHA([]byte("y")), t0); ok {
		t.Error("a grant of one file granted another")
	}
	_ = a.Grant(ctx, "acme", sum, t0.Add(30*time.Minute)) // shorter: no effect
	if ok, _ := a.Granted(ctx, "acme", sum, t0.Add(45*time.Minute)); !ok {
		t.Error("a shorter grant cut a longer one")
	}
}

func testAnalyses(t *testing.T, b Backend) {
	ctx := context.Background()
	a, other := b.Instance(t), b.Instance(t)
	sum := SHA([]byte("file"))
	key := sum + ":1:opts"
	if _, err := a.Analysis(ctx, key, t0); !errors.Is(err, viewstore.ErrNotFound) {
		t.Fatalf("absent: %v", err)
	}
	snap := []byte("binview-snapshot/1\n{}")
	if err := a.PutAnalysis(ctx, key, sum, snap, t0.Add(time.Hour)); err != nil {
		t.Fatal(err)
	}
	if got, err := other.Analysis(ctx, key, t0); err != nil || !bytes.Equal(got, snap) {
		t.Errorf("analysis: %q %v", got, err)
	}
	if _, err := a.Analysis(ctx, sum+":1:other", t0); !errors.Is(err, viewstore.ErrNotFound) {
		t.Errorf("other key: %v", err)
	}
	if _, err := a.Analysis(ctx, key, t0.Add(time.Hour)); !errors.Is(err, viewstore.ErrNotFound) {
		t.Errorf("expired: %v", err)
	}
	if err := other.PutAnalysis(ctx, key, sum, snap, t0.Add(2*time.Hour)); err != nil {
		t.Fatal(err)
	}
	if _, err := a.Analysis(ctx, key, t0.Add(time.Hour)); err != nil {
		t.Errorf("re-put: %v", err)
	}
}

func view(caller, id string, at time.Time) viewstore.View {
	return viewstore.View{Caller: caller, ID: id, Tenant: "acme", SHA256: SHA([]byte(id)), Name: "hello-" + id,
		Options: []byte(`{"format":"elf"}`), Path: "/srv/samples/" + id, Size: 42,
		Opened: at, Used: at, Expires: at.Add(time.Hour)}
}

// norm drops the monotonic clock and location so rows compare by instant.
var norm = cmp.Transformer("utc", func(t time.Time) string { return t.UTC().Format(time.RFC3339Nano) })

func testViews(t *testing.T, b Backend) {
	ctx := context.Background()
	a, other := b.Instance(t), b.Instance(t)
	v1 := view("alice", "v1", t0)
	got, err := a.OpenView(ctx, v1, 2)
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(v1, got, norm); d != "" {
		t.Errorf("open returned (-want +got):\n%s", d)
	}
	if got, err := other.View(ctx, "alice", "v1", t0.Add(time.Minute)); err != nil || cmp.Diff(v1, got, norm) != "" {
		t.Errorf("view from another replica: %+v %v", got, err)
	}
	for _, c := range [][2]string{{"bob", "v1"}, {"alice", "v2"}} {
		if _, err := a.View(ctx, c[0], c[1], t0); !errors.Is(err, viewstore.ErrNotFound) {
			t.Errorf("%v: %v", c, err)
		}
	}
	// Reopening refreshes and keeps the first open time.
	re := view("alice", "v1", t0.Add(10*time.Minute))
	re.Path = ""
	got, err = other.OpenView(ctx, re, 2)
	if err != nil {
		t.Fatal(err)
	}
	if !got.Opened.Equal(t0) || !got.Expires.Equal(t0.Add(70*time.Minute)) || got.Path != "" {
		t.Errorf("reopened: %+v", got)
	}
	v2 := view("alice", "v2", t0.Add(20*time.Minute))
	if _, err := a.OpenView(ctx, v2, 2); err != nil {
		t.Fatal(err)
	}
	if _, err := a.OpenView(ctx, view("alice", "v3", t0.Add(21*time.Minute)), 2); !errors.Is(err, viewstore.ErrTooManyViews) {
		t.Errorf("third view of two: %v", err)
	}
	// A reopening is not a new view.
	if _, err := a.OpenView(ctx, view("alice", "v2", t0.Add(22*time.Minute)), 2); err != nil {
		t.Errorf("reopen at the limit: %v", err)
	}
	// Another caller has its own limit.
	if _, err := a.OpenView(ctx, view("bob", "v1", t0.Add(21*time.Minute)), 2); err != nil {
		t.Errorf("bob: %v", err)
	}
	list, err := other.Views(ctx, "alice", t0.Add(30*time.Minute))
	if err != nil || len(list) != 2 || list[0].ID != "v1" || list[1].ID != "v2" {
		t.Fatalf("views: %+v %v", list, err)
	}
	// Touch moves the expiry; an expired view cannot be touched back.
	if err := a.TouchView(ctx, "alice", "v1", t0.Add(65*time.Minute), t0.Add(125*time.Minute)); err != nil {
		t.Fatal(err)
	}
	if got, err := other.View(ctx, "alice", "v1", t0.Add(100*time.Minute)); err != nil || !got.Used.Equal(t0.Add(65*time.Minute)) {
		t.Errorf("touched: %+v %v", got, err)
	}
	if err := a.TouchView(ctx, "alice", "v2", t0.Add(90*time.Minute), t0.Add(150*time.Minute)); !errors.Is(err, viewstore.ErrNotFound) {
		t.Errorf("touching an expired view: %v", err)
	}
	// The expired v2 no longer counts: a new view fits.
	if _, err := a.OpenView(ctx, view("alice", "v3", t0.Add(90*time.Minute)), 2); err != nil {
		t.Errorf("after expiry: %v", err)
	}
	// An expired view reopened is a new view with a new open time.
	got, err = a.OpenView(ctx, view("alice", "v2", t0.Add(95*time.Minute)), 3)
	if err != nil || !got.Opened.Equal(t0.Add(95*time.Minute)) {
		t.Errorf("reopened after expiry: %+v %v", got, err)
	}
	if ok, err := other.CloseView(ctx, "alice", "v3", t0.Add(96*time.Minute)); err != nil || !ok {
		t.Errorf("close: %v %v", ok, err)
	}
	if ok, err := a.CloseView(ctx, "alice", "v3", t0.Add(96*time.Minute)); err != nil || ok {
		t.Errorf("close twice: %v %v", ok, err)
	}
	if ok, _ := a.CloseView(ctx, "bob", "v2", t0); ok {
		t.Error("closed another caller's view")
	}
	if _, err := a.View(ctx, "alice", "v3", t0.Add(96*time.Minute)); !errors.Is(err, viewstore.ErrNotFound) {
		t.Errorf("closed view: %v", err)
	}
	if list, _ := a.Views(ctx, "carol", t0); list == nil || len(list) != 0 {
		t.Errorf("no views: %#v", list)
	}
}

func testViewLimitConcurrent(t *testing.T, b Backend) {
	ctx := context.Background()
	inst := []viewstore.Store{b.Instance(t), b.Instance(t)}
	const max, tries = 5, 24
	var ok, refused atomic.Int32
	var wg sync.WaitGroup
	for i := range tries {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, err := inst[i%2].OpenView(ctx, view("alice", fmt.Sprintf("v%02d", i), t0), max)
			switch {
			case err == nil:
				ok.Add(1)
			case errors.Is(err, viewstore.ErrTooManyViews):
				refused.Add(1)
			default:
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	if ok.Load() != max || refused.Load() != tries-max {
		t.Errorf("opened %d, refused %d; want %d and %d", ok.Load(), refused.Load(), max, tries-max)
	}
	if list, _ := inst[0].Views(ctx, "alice", t0); len(list) != max {
		t.Errorf("%d views stored", len(list))
	}
}

func testViewCaps(t *testing.T, b Backend) {
	ctx := context.Background()
	a := b.Instance(t)
	for name, mut := range map[string]func(*viewstore.View){
		"options": func(v *viewstore.View) { v.Options = bytes.Repeat([]byte("a"), viewstore.MaxOptionsSize+1) },
		"name":    func(v *viewstore.View) { v.Name = string(bytes.Repeat([]byte("n"), viewstore.MaxNameSize+1)) },
		"path":    func(v *viewstore.View) { v.Path = string(bytes.Repeat([]byte("p"), viewstore.MaxPathSize+1)) },
	} {
		v := view("alice", name, t0)
		mut(&v)
		if _, err := a.OpenView(ctx, v, 16); !errors.Is(err, viewstore.ErrTooLarge) {
			t.Errorf("%s over its cap: %v", name, err)
		}
	}
}

func testUploadQuota(t *testing.T, b Backend) {
	ctx := context.Background()
	a, other := b.Instance(t), b.Instance(t)
	day := viewstore.Day(t0)
	if n, err := a.ChargeUpload(ctx, "cred", day, 600, 1000); err != nil || n != 600 {
		t.Fatalf("first: %d %v", n, err)
	}
	if _, err := other.ChargeUpload(ctx, "cred", day, 401, 1000); !errors.Is(err, viewstore.ErrQuotaExceeded) {
		t.Errorf("over: %v", err)
	}
	if n, err := other.ChargeUpload(ctx, "cred", day, 400, 1000); err != nil || n != 1000 {
		t.Errorf("exactly to the limit: %d %v", n, err)
	}
	if _, err := a.ChargeUpload(ctx, "cred", day, 1, 1000); !errors.Is(err, viewstore.ErrQuotaExceeded) {
		t.Errorf("full: %v", err)
	}
	if n, err := a.ChargeUpload(ctx, "other", day, 1000, 1000); err != nil || n != 1000 {
		t.Errorf("another credential: %d %v", n, err)
	}
	if _, err := a.ChargeUpload(ctx, "new", day, 1001, 1000); !errors.Is(err, viewstore.ErrQuotaExceeded) {
		t.Errorf("a first upload over the limit: %v", err)
	}
	next := viewstore.Day(t0.Add(24 * time.Hour))
	if n, err := a.ChargeUpload(ctx, "cred", next, 10, 1000); err != nil || n != 10 {
		t.Errorf("next day: %d %v", n, err)
	}
}

func testUploadQuotaConcurrent(t *testing.T, b Backend) {
	ctx := context.Background()
	inst := []viewstore.Store{b.Instance(t), b.Instance(t)}
	day := viewstore.Day(t0)
	var ok atomic.Int32
	var wg sync.WaitGroup
	for i := range 20 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, err := inst[i%2].ChargeUpload(ctx, "cred", day, 100, 1050)
			if err == nil {
				ok.Add(1)
			} else if !errors.Is(err, viewstore.ErrQuotaExceeded) {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	if ok.Load() != 10 {
		t.Errorf("%d uploads of 100 fit in 1050", ok.Load())
	}
}

func testPrune(t *testing.T, b Backend) {
	ctx := context.Background()
	a := b.Instance(t)
	liveData, deadData := []byte("live file"), []byte("dead file")
	live, dead := SHA(liveData), SHA(deadData)
	for _, d := range [][]byte{liveData, deadData} {
		if err := a.PutBlob(ctx, SHA(d), d, t0.Add(time.Hour)); err != nil {
			t.Fatal(err)
		}
		if err := a.PutAnalysis(ctx, SHA(d)+":1:o", SHA(d), []byte("snap"), t0.Add(time.Hour)); err != nil {
			t.Fatal(err)
		}
	}
	if err := a.Grant(ctx, "acme", dead, t0.Add(time.Hour)); err != nil {
		t.Fatal(err)
	}
	if err := a.Grant(ctx, "acme", live, t0.Add(3*time.Hour)); err != nil {
		t.Fatal(err)
	}
	v := view("alice", "v1", t0)
	v.SHA256, v.Expires = live, t0.Add(3*time.Hour)
	if _, err := a.OpenView(ctx, v, 16); err != nil {
		t.Fatal(err)
	}
	gone := view("alice", "v2", t0)
	if _, err := a.OpenView(ctx, gone, 16); err != nil {
		t.Fatal(err)
	}
	if _, err := a.ChargeUpload(ctx, "cred", viewstore.Day(t0), 5, 10); err != nil {
		t.Fatal(err)
	}
	now := t0.Add(2 * time.Hour)
	b.Prune(t, now)
	// Rows are read at t0, when they had not expired: what reads as
	// absent was deleted. The live view keeps its blob and analysis past
	// their own expiry, so a replica can still rebuild it.
	for _, c := range []struct {
		what string
		err  error
		want error
	}{
		{"dead blob", blobErr(a, dead), viewstore.ErrNotFound},
		{"dead analysis", analysisErr(a, dead), viewstore.ErrNotFound},
		{"live blob", blobErr(a, live), nil},
		{"live analysis", analysisErr(a, live), nil},
	} {
		if !errors.Is(c.err, c.want) {
			t.Errorf("%s: %v, want %v", c.what, c.err, c.want)
		}
	}
	if ok, _ := a.Granted(ctx, "acme", dead, t0); ok {
		t.Error("an expired grant survived pruning")
	}
	if ok, _ := a.Granted(ctx, "acme", live, t0); !ok {
		t.Error("a grant was pruned before its expiry")
	}
	if _, err := a.View(ctx, "alice", "v1", now); err != nil {
		t.Errorf("live view pruned: %v", err)
	}
	// Read now, past their own expiry, the live view's blob and analysis
	// still serve it; the dead ones do not.
	if got, err := a.Blob(ctx, live, now); err != nil || !bytes.Equal(got, liveData) {
		t.Errorf("live view's blob after its expiry: %v", err)
	}
	if _, err := a.Analysis(ctx, live+":1:o", now); err != nil {
		t.Errorf("live view's analysis after its expiry: %v", err)
	}
	if list, _ := a.Views(ctx, "alice", now); len(list) != 1 {
		t.Errorf("views after prune: %+v", list)
	}
	// The earlier day's upload count is gone: a new day starts at zero
	// anyway, and pruning must not break today's count.
	if n, err := a.ChargeUpload(ctx, "cred", viewstore.Day(now), 5, 10); err != nil || n != 10 {
		t.Errorf("same day after prune: %d %v", n, err)
	}
	b.Prune(t, t0.Add(48*time.Hour))
	if err := blobErr(a, live); !errors.Is(err, viewstore.ErrNotFound) {
		t.Errorf("the blob of an expired view survived pruning: %v", err)
	}
}

func blobErr(s viewstore.Store, sha string) error {
	_, err := s.Blob(context.Background(), sha, t0)
	return err
}

func analysisErr(s viewstore.Store, sha string) error {
	_, err := s.Analysis(context.Background(), sha+":1:o", t0)
	return err
}
