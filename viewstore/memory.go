package viewstore

import (
	"context"
	"sort"
	"sync"
	"time"
)

// Memory is a Store held in process memory: for tests and for a server
// without a database (warden tools). Its blobs and snapshots are bounded
// by MaxBytes together; past it, expired entries go first, then the ones
// expiring soonest. Nothing survives the process.
type Memory struct {
	mu       sync.Mutex
	maxBytes int64
	bytes    int64
	blobs    map[string]memEntry
	analyses map[string]memEntry
	grants   map[[2]string]time.Time
	views    map[[2]string]View
	uploads  map[[2]string]int64
}

type memEntry struct {
	sha     string
	data    []byte
	expires time.Time
}

// NewMemory returns a memory store that keeps at most maxBytes of blobs
// and snapshots (0: 1 GiB).
func NewMemory(maxBytes int64) *Memory {
	if maxBytes <= 0 {
		maxBytes = 1 << 30
	}
	return &Memory{
		maxBytes: maxBytes,
		blobs:    map[string]memEntry{},
		analyses: map[string]memEntry{},
		grants:   map[[2]string]time.Time{},
		views:    map[[2]string]View{},
		uploads:  map[[2]string]int64{},
	}
}

var _ Store = (*Memory)(nil)

func later(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}

// put stores an entry in m (blobs or analyses), making room first.
func (s *Memory) put(m map[string]memEntry, key, sha string, data []byte, until time.Time) error {
	if old, ok := m[key]; ok {
		old.expires = later(old.expires, until)
		m[key] = old
		return nil
	}
	n := int64(len(data))
	if n > s.maxBytes {
		return ErrTooLarge
	}
	s.evict(n)
	m[key] = memEntry{sha: sha, data: append([]byte(nil), data...), expires: until}
	s.bytes += n
	return nil
}

// evict frees room for n bytes, dropping the entries that expire
// soonest (expired ones first).
func (s *Memory) evict(n int64) {
	if s.bytes+n <= s.maxBytes {
		return
	}
	type ref struct {
		m   map[string]memEntry
		key string
		exp time.Time
	}
	var all []ref
	for k, e := range s.blobs {
		all = append(all, ref{s.blobs, k, e.expires})
	}
	for k, e := range s.analyses {
		all = append(all, ref{s.analyses, k, e.expires})
	}
	sort.Slice(all, func(i, j int) bool { return all[i].exp.Before(all[j].exp) })
	for _, r := range all {
		if s.bytes+n <= s.maxBytes {
			return
		}
		s.bytes -= int64(len(r.m[r.key].data))
		delete(r.m, r.key)
	}
}

func (s *Memory) get(m map[string]memEntry, key string, now time.Time) ([]byte, error) {
	e, ok := m[key]
	if !ok || !now.Before(e.expires) && !s.viewed(e.sha, now) {
		return nil, ErrNotFound
	}
	return append([]byte(nil), e.data...), nil
}

// viewed reports whether a live view has the file sha.
func (s *Memory) viewed(sha string, now time.Time) bool {
	for _, v := range s.views {
		if v.SHA256 == sha && now.Before(v.Expires) {
			return true
		}
	}
	return false
}

// PutBlob implements Store.
func (s *Memory) PutBlob(_ context.Context, sha256 string, data []byte, until time.Time) error {
	if len(data) > MaxBlobSize {
		return ErrTooLarge
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.put(s.blobs, sha256, sha256, data, until)
}

// Blob implements Store.
func (s *Memory) Blob(_ context.Context, sha256 string, now time.Time) ([]byte, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.get(s.blobs, sha256, now)
}

// Grant implements Store.
func (s *Memory) Grant(_ context.Context, tenant, sha256 string, until time.Time) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	k := [2]string{tenant, sha256}
	s.grants[k] = later(s.grants[k], until)
	return nil
}

// Granted implements Store.
func (s *Memory) Granted(_ context.Context, tenant, sha256 string, now time.Time) (bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	until, ok := s.grants[[2]string{tenant, sha256}]
	return ok && now.Before(until), nil
}

// PutAnalysis implements Store.
func (s *Memory) PutAnalysis(_ context.Context, key, sha256 string, snapshot []byte, until time.Time) error {
	if len(snapshot) > MaxSnapshotSize {
		return ErrTooLarge
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.put(s.analyses, key, sha256, snapshot, until)
}

// Analysis implements Store.
func (s *Memory) Analysis(_ context.Context, key string, now time.Time) ([]byte, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.get(s.analyses, key, now)
}

func checkView(v View) error {
	if len(v.Options) > MaxOptionsSize || len(v.Name) > MaxNameSize || len(v.Path) > MaxPathSize {
		return ErrTooLarge
	}
	return nil
}

// OpenView implements Store.
func (s *Memory) OpenView(_ context.Context, v View, max int) (View, error) {
	if err := checkView(v); err != nil {
		return View{}, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	k := [2]string{v.Caller, v.ID}
	if old, ok := s.views[k]; ok && v.Used.Before(old.Expires) {
		v.Opened = old.Opened
	} else {
		live := 0
		for kk, o := range s.views {
			if kk[0] != v.Caller {
				continue
			}
			if !v.Used.Before(o.Expires) {
				delete(s.views, kk)
				continue
			}
			live++
		}
		if live >= max {
			return View{}, ErrTooManyViews
		}
	}
	v.Options = append([]byte(nil), v.Options...)
	s.views[k] = v
	return v, nil
}

// View implements Store.
func (s *Memory) View(_ context.Context, caller, id string, now time.Time) (View, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	v, ok := s.views[[2]string{caller, id}]
	if !ok || !now.Before(v.Expires) {
		return View{}, ErrNotFound
	}
	return v, nil
}

// Views implements Store.
func (s *Memory) Views(_ context.Context, caller string, now time.Time) ([]View, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := []View{}
	for k, v := range s.views {
		if k[0] == caller && now.Before(v.Expires) {
			out = append(out, v)
		}
	}
	sort.Slice(out, func(i, j int) bool {
		if !out[i].Opened.Equal(out[j].Opened) {
			return out[i].Opened.Before(out[j].Opened)
		}
		return out[i].ID < out[j].ID
	})
	return out, nil
}

// TouchView implements Store.
func (s *Memory) TouchView(_ context.Context, caller, id string, used, until time.Time) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	k := [2]string{caller, id}
	v, ok := s.views[k]
	if !ok || !used.Before(v.Expires) {
		return ErrNotFound
	}
	v.Used, v.Expires = used, until
	s.views[k] = v
	return nil
}

// CloseView implements Store.
func (s *Memory) CloseView(_ context.Context, caller, id string, now time.Time) (bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	k := [2]string{caller, id}
	v, ok := s.views[k]
	delete(s.views, k)
	return ok && now.Before(v.Expires), nil
}

// ChargeUpload implements Store.
func (s *Memory) ChargeUpload(_ context.Context, credential, day string, n, limit int64) (int64, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for k := range s.uploads {
		if k[1] < day {
			delete(s.uploads, k) // an earlier day no longer counts
		}
	}
	k := [2]string{credential, day}
	if s.uploads[k]+n > limit {
		return s.uploads[k], ErrQuotaExceeded
	}
	s.uploads[k] += n
	return s.uploads[k], nil
}

// Prune deletes expired rows, keeping blobs and analyses of live views,
// as the database adapters' Prune does.
func (s *Memory) Prune(_ context.Context, now time.Time) {
	s.mu.Lock()
	defer s.mu.Unlock()
	live := map[string]bool{}
	for k, v := range s.views {
		if !now.Before(v.Expires) {
			delete(s.views, k)
			continue
		}
		live[v.SHA256] = true
	}
	for _, m := range []map[string]memEntry{s.blobs, s.analyses} {
		for k, e := range m {
			if !now.Before(e.expires) && !live[e.sha] {
				s.bytes -= int64(len(e.data))
				delete(m, k)
			}
		}
	}
	for k, until := range s.grants {
		if !now.Before(until) {
			delete(s.grants, k)
		}
	}
	day := Day(now)
	for k := range s.uploads {
		if k[1] < day {
			delete(s.uploads, k)
		}
	}
}
