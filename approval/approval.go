// Package approval remembers a person's approval of a tool, so that a tool
// whose trust tier is confirm asks once and not at every call.
//
// An approval is a key and an expiry. The key names who approved what: the
// caller (issuer, tenant, credential), the client, and the tool; Key hashes
// them, so the store holds no identity in the clear. The store is shared
// by every replica (SQLite embedded, PostgreSQL for several), so a person
// is asked once per deployment, not once per replica.
package approval

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"sync"
	"time"
)

// Store keeps approvals. Implementations must be safe for concurrent use.
type Store interface {
	// GrantApproval records that key is approved until the given time;
	// a later grant of the same key replaces an earlier one.
	GrantApproval(ctx context.Context, key string, until time.Time) error
	// ApprovalGranted reports whether key is approved at now.
	ApprovalGranted(ctx context.Context, key string, now time.Time) (bool, error)
}

// Key derives an approval key from its parts (length-prefixed, so that no
// two lists of parts share a key): 64 hex digits of SHA-256.
func Key(parts ...string) string {
	h := sha256.New()
	var n [8]byte
	for _, p := range parts {
		binary.BigEndian.PutUint64(n[:], uint64(len(p)))
		h.Write(n[:])
		h.Write([]byte(p))
	}
	return hex.EncodeToString(h.Sum(nil))
}

// Memory is a Store held in process memory, bounded: for legacy sessions
// (whose approvals die with them) and tests.
type Memory struct {
	mu     sync.Mutex
	grants map[string]time.Time
	max    int
}

// NewMemory returns a memory store that keeps at most max grants (0:
// 10,000); past it, expired grants are dropped first, then the oldest.
func NewMemory(max int) *Memory {
	if max <= 0 {
		max = 10000
	}
	return &Memory{grants: map[string]time.Time{}, max: max}
}

// GrantApproval implements Store.
func (m *Memory) GrantApproval(_ context.Context, key string, until time.Time) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if _, ok := m.grants[key]; !ok && len(m.grants) >= m.max {
		m.evict(time.Now())
	}
	m.grants[key] = until
	return nil
}

// ApprovalGranted implements Store.
func (m *Memory) ApprovalGranted(_ context.Context, key string, now time.Time) (bool, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	until, ok := m.grants[key]
	return ok && now.Before(until), nil
}

// evict drops expired grants, or the one expiring first when none has.
func (m *Memory) evict(now time.Time) {
	first, firstAt := "", time.Time{}
	for k, until := range m.grants {
		if !now.Before(until) {
			delete(m.grants, k)
			continue
		}
		if first == "" || until.Before(firstAt) {
			first, firstAt = k, until
		}
	}
	if len(m.grants) >= m.max && first != "" {
		delete(m.grants, first)
	}
}
