// Package annotationtest is the behaviour suite every annotation.Store
// must pass.
package annotationtest

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/warden-mcp/warden/annotation"
	"github.com/warden-mcp/warden/errcode"
)

// Backend is one store's storage. Instance opens a new handle on it each
// time it is called, as a restarted process or another replica would
// (a store held in memory may return itself).
type Backend interface {
	Instance(t *testing.T) annotation.Store
}

// Run checks the store. newBackend returns fresh, empty storage for each
// subtest.
func Run(t *testing.T, newBackend func(t *testing.T) Backend) {
	ctx := context.Background()
	t0 := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
	fileA := annotation.File{Tenant: "tenant-a", SHA256: strings.Repeat("ab", 32)}
	fileB := annotation.File{Tenant: "tenant-a", SHA256: strings.Repeat("cd", 32)}
	otherTenant := annotation.File{Tenant: "tenant-b", SHA256: fileA.SHA256}
	entry := func(f annotation.File, kind annotation.Kind, off uint64, text string, at time.Duration) annotation.Entry {
		return annotation.Entry{File: f, Kind: kind, Offset: off, Text: text, Author: "cred-1", Time: t0.Add(at)}
	}

	t.Run("AppendNumbersEachFile", func(t *testing.T) {
		st := newBackend(t).Instance(t)
		for i, e := range []annotation.Entry{
			entry(fileA, annotation.KindComment, 0x10, "first", 0),
			entry(fileA, annotation.KindName, 0x10, "decoder", time.Second),
			entry(fileB, annotation.KindComment, 0x10, "other file", 2*time.Second),
			entry(otherTenant, annotation.KindComment, 0x10, "other tenant", 3*time.Second),
			entry(fileA, annotation.KindFunction, 0x20, "", 4*time.Second),
		} {
			got, err := st.AppendAnnotation(ctx, e, annotation.MaxEntries)
			if err != nil {
				t.Fatalf("append %d: %v", i, err)
			}
			want := map[int]int64{0: 1, 1: 2, 2: 1, 3: 1, 4: 3}[i]
			if got.Seq != want {
				t.Errorf("append %d: seq %d, want %d", i, got.Seq, want)
			}
		}
		log, err := st.AnnotationLog(ctx, fileA, 0, 100)
		if err != nil {
			t.Fatal(err)
		}
		want := []annotation.Entry{
			entry(fileA, annotation.KindComment, 0x10, "first", 0),
			entry(fileA, annotation.KindName, 0x10, "decoder", time.Second),
			entry(fileA, annotation.KindFunction, 0x20, "", 4*time.Second),
		}
		for i := range want {
			want[i].Seq = int64(i + 1)
		}
		if diff := cmp.Diff(want, log); diff != "" {
			t.Errorf("log of file A (-want +got):\n%s", diff)
		}
		page, _ := st.AnnotationLog(ctx, fileA, 1, 1)
		if len(page) != 1 || page[0].Seq != 2 {
			t.Errorf("page after 1, limit 1: %+v", page)
		}
		if rest, _ := st.AnnotationLog(ctx, fileA, 3, 10); len(rest) != 0 {
			t.Errorf("after the last entry: %+v", rest)
		}
	})

	t.Run("TenantsNeverSeeEachOther", func(t *testing.T) {
		st := newBackend(t).Instance(t)
		if _, err := annotation.Set(ctx, st, entry(fileA, annotation.KindName, 0x40, "secret_name", 0)); err != nil {
			t.Fatal(err)
		}
		for _, f := range []annotation.File{otherTenant, fileB} {
			if log, _ := st.AnnotationLog(ctx, f, 0, 100); len(log) != 0 {
				t.Errorf("%v sees %+v", f, log)
			}
			if _, ok, _ := st.LatestAnnotation(ctx, f, annotation.KindName, 0x40); ok {
				t.Errorf("%v: latest found another tenant's or file's entry", f)
			}
		}
	})

	t.Run("FieldsRoundTrip", func(t *testing.T) {
		st := newBackend(t).Instance(t)
		e := entry(fileA, annotation.KindComment, ^uint64(0)-7, "décodeur: XOR with 0x5a\n\tthen ROL 3 ✓", 0)
		e.Time = t0.Add(1234567 * time.Microsecond)
		if _, err := st.AppendAnnotation(ctx, e, annotation.MaxEntries); err != nil {
			t.Fatal(err)
		}
		got, ok, err := st.LatestAnnotation(ctx, fileA, annotation.KindComment, ^uint64(0)-7)
		e.Seq = 1
		if err != nil || !ok {
			t.Fatalf("latest: %v %v", ok, err)
		}
		if diff := cmp.Diff(e, got); diff != "" {
			t.Errorf("round trip (-want +got):\n%s", diff)
		}
	})

	t.Run("SetAndDeleteAreIdempotent", func(t *testing.T) {
		st := newBackend(t).Instance(t)
		c, err := annotation.Set(ctx, st, entry(fileA, annotation.KindComment, 0x100, "checks the licence", 0))
		if err != nil || !c.Changed || c.Before != nil || c.After == nil || c.After.Text != "checks the licence" {
			t.Fatalf("first set: %+v %v", c, err)
		}
		c, err = annotation.Set(ctx, st, entry(fileA, annotation.KindComment, 0x100, "checks the licence", time.Second))
		if err != nil || c.Changed || c.Before == nil || c.After == nil || c.After.Seq != 1 {
			t.Fatalf("same set again: %+v %v", c, err)
		}
		c, err = annotation.Set(ctx, st, entry(fileA, annotation.KindComment, 0x100, "checks the licence key", 2*time.Second))
		if err != nil || !c.Changed || c.Before.Text != "checks the licence" || c.After.Text != "checks the licence key" {
			t.Fatalf("change: %+v %v", c, err)
		}
		del := entry(fileA, annotation.KindComment, 0x100, "", 3*time.Second)
		c, err = annotation.Delete(ctx, st, del)
		if err != nil || !c.Changed || c.Before.Text != "checks the licence key" || c.After != nil {
			t.Fatalf("delete: %+v %v", c, err)
		}
		c, err = annotation.Delete(ctx, st, del)
		if err != nil || c.Changed || c.Before != nil {
			t.Fatalf("delete again: %+v %v", c, err)
		}
		last, ok, _ := st.LatestAnnotation(ctx, fileA, annotation.KindComment, 0x100)
		if !ok || !last.Deleted || last.Seq != 3 {
			t.Errorf("latest after delete: %+v", last)
		}
		// The log keeps every value.
		log, _ := st.AnnotationLog(ctx, fileA, 0, 100)
		if len(log) != 3 || log[0].Text != "checks the licence" || log[1].Text != "checks the licence key" || !log[2].Deleted {
			t.Errorf("log: %+v", log)
		}
		s, err := annotation.Load(ctx, st, fileA)
		if err != nil {
			t.Fatal(err)
		}
		if n := len(s.Entries()); n != 0 {
			t.Errorf("state after delete holds %d entries", n)
		}
	})

	t.Run("LimitAppendsNothing", func(t *testing.T) {
		st := newBackend(t).Instance(t)
		for i := range 3 {
			if _, err := st.AppendAnnotation(ctx, entry(fileA, annotation.KindComment, uint64(i), "c", 0), 3); err != nil {
				t.Fatal(err)
			}
		}
		_, err := st.AppendAnnotation(ctx, entry(fileA, annotation.KindComment, 9, "c", 0), 3)
		if errcode.CodeOf(err) != annotation.CodeLimit {
			t.Fatalf("over the limit: %v", err)
		}
		if log, _ := st.AnnotationLog(ctx, fileA, 0, 10); len(log) != 3 {
			t.Errorf("%d entries after a refused append", len(log))
		}
		if _, err := st.AppendAnnotation(ctx, entry(fileB, annotation.KindComment, 9, "c", 0), 3); err != nil {
			t.Errorf("the limit is per file: %v", err)
		}
	})

	t.Run("SurvivesANewHandle", func(t *testing.T) {
		b := newBackend(t)
		first := b.Instance(t)
		if _, err := annotation.Set(ctx, first, entry(fileA, annotation.KindName, 0x1000, "unpack", 0)); err != nil {
			t.Fatal(err)
		}
		second := b.Instance(t)
		s, err := annotation.Load(ctx, second, fileA)
		if err != nil {
			t.Fatal(err)
		}
		if got := s.Names(); got[0x1000] != "unpack" {
			t.Errorf("names through a new handle: %v", got)
		}
	})

	t.Run("ConcurrentWritersFromTwoHandles", func(t *testing.T) {
		b := newBackend(t)
		handles := []annotation.Store{b.Instance(t), b.Instance(t)}
		reader := annotation.NewState()
		const per = 20
		var wg sync.WaitGroup
		errs := make(chan error, 2*per)
		for h := range handles {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for i := range per {
					e := entry(fileA, annotation.KindComment, uint64(h*1000+i), fmt.Sprintf("c%d-%d", h, i), 0)
					if _, err := handles[h].AppendAnnotation(ctx, e, annotation.MaxEntries); err != nil {
						errs <- err
						return
					}
					if i%5 == 0 {
						if err := reader.Refresh(ctx, handles[1-h], fileA); err != nil {
							errs <- err
							return
						}
					}
				}
			}()
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			t.Fatal(err)
		}
		log, err := handles[0].AnnotationLog(ctx, fileA, 0, 1000)
		if err != nil {
			t.Fatal(err)
		}
		if len(log) != 2*per {
			t.Fatalf("%d entries, want %d", len(log), 2*per)
		}
		for i, e := range log {
			if e.Seq != int64(i+1) {
				t.Fatalf("entry %d has seq %d: sequence numbers must be dense and ordered", i, e.Seq)
			}
		}
		// A reader that refreshed while writers ran misses nothing.
		if err := reader.Refresh(ctx, handles[0], fileA); err != nil {
			t.Fatal(err)
		}
		if n := len(reader.Entries()); n != 2*per {
			t.Errorf("incremental reader holds %d entries, want %d", n, 2*per)
		}
	})

	t.Run("CancelledContextFails", func(t *testing.T) {
		st := newBackend(t).Instance(t)
		cctx, cancel := context.WithCancel(ctx)
		cancel()
		if _, err := st.AppendAnnotation(cctx, entry(fileA, annotation.KindComment, 1, "c", 0), annotation.MaxEntries); err == nil {
			t.Error("append under a cancelled context succeeded")
		}
	})
}
