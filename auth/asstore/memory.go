package asstore

import (
	"context"
	"slices"
	"strings"
	"sync"
	"time"
)

// Memory is a Store held in memory: everything is lost when the process
// ends. The zero value is ready to use.
type Memory struct {
	mu      sync.Mutex
	clients map[string]Client
	tokens  map[tokenKey]Token
}

type tokenKey struct {
	kind Kind
	sig  string
}

var _ Store = (*Memory)(nil)

func (m *Memory) init() {
	if m.clients == nil {
		m.clients = map[string]Client{}
		m.tokens = map[tokenKey]Token{}
	}
}

// CreateClient implements Store.
func (m *Memory) CreateClient(_ context.Context, c Client, max int) error {
	if err := CheckClient(c); err != nil {
		return err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	m.init()
	if _, ok := m.clients[c.ID]; ok {
		return ErrExists
	}
	if over := len(m.clients) - max + 1; over > 0 {
		holding := map[string]bool{}
		for _, t := range m.tokens {
			holding[t.ClientID] = true
		}
		var unused []Client
		for _, o := range m.clients {
			if !holding[o.ID] {
				unused = append(unused, o)
			}
		}
		if len(unused) < over {
			return ErrTooManyClients
		}
		slices.SortFunc(unused, func(a, b Client) int {
			if c := a.CreatedAt.Compare(b.CreatedAt); c != 0 {
				return c
			}
			return strings.Compare(a.ID, b.ID)
		})
		for _, o := range unused[:over] {
			delete(m.clients, o.ID)
		}
	}
	c.RedirectURIs = slices.Clone(c.RedirectURIs)
	m.clients[c.ID] = c
	return nil
}

// Client implements Store.
func (m *Memory) Client(_ context.Context, id string) (Client, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	c, ok := m.clients[id]
	if !ok {
		return Client{}, ErrNotFound
	}
	c.RedirectURIs = slices.Clone(c.RedirectURIs)
	return c, nil
}

// PutToken implements Store.
func (m *Memory) PutToken(_ context.Context, t Token) error {
	if err := CheckToken(t); err != nil {
		return err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	m.init()
	k := tokenKey{t.Kind, t.Signature}
	if _, ok := m.tokens[k]; ok {
		return ErrExists
	}
	t.Data = slices.Clone(t.Data)
	m.tokens[k] = t
	return nil
}

// Token implements Store.
func (m *Memory) Token(_ context.Context, kind Kind, sig string) (Token, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	t, ok := m.tokens[tokenKey{kind, sig}]
	if !ok {
		return Token{}, ErrNotFound
	}
	t.Data = slices.Clone(t.Data)
	return t, nil
}

// DeactivateToken implements Store.
func (m *Memory) DeactivateToken(_ context.Context, kind Kind, sig string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	k := tokenKey{kind, sig}
	t, ok := m.tokens[k]
	if !ok {
		return ErrNotFound
	}
	t.Active = false
	m.tokens[k] = t
	return nil
}

// DeleteToken implements Store.
func (m *Memory) DeleteToken(_ context.Context, kind Kind, sig string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	delete(m.tokens, tokenKey{kind, sig})
	return nil
}

// DeactivateGrant implements Store.
func (m *Memory) DeactivateGrant(_ context.Context, kind Kind, grant string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	for k, t := range m.tokens {
		if k.kind == kind && t.GrantID == grant {
			t.Active = false
			m.tokens[k] = t
		}
	}
	return nil
}

// DeleteGrant implements Store.
func (m *Memory) DeleteGrant(_ context.Context, kind Kind, grant string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	for k, t := range m.tokens {
		if k.kind == kind && t.GrantID == grant {
			delete(m.tokens, k)
		}
	}
	return nil
}

// PruneGrants implements Store.
func (m *Memory) PruneGrants(_ context.Context, now time.Time, idle time.Duration) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	holding := map[string]bool{}
	for k, t := range m.tokens {
		if t.ExpiresAt.Before(now) {
			delete(m.tokens, k)
			continue
		}
		holding[t.ClientID] = true
	}
	for id, c := range m.clients {
		if !holding[id] && c.CreatedAt.Before(now.Add(-idle)) {
			delete(m.clients, id)
		}
	}
	return nil
}
