package annotation

import (
	"context"
	"sync"
)

// Memory is a Store held in process memory, for tests and for servers
// without a store: its logs die with the process.
type Memory struct {
	mu   sync.Mutex
	logs map[File][]Entry
}

// NewMemory returns an empty memory store.
func NewMemory() *Memory { return &Memory{logs: map[File][]Entry{}} }

// AppendAnnotation implements Store.
func (m *Memory) AppendAnnotation(ctx context.Context, e Entry, max int) (Entry, error) {
	if err := ctx.Err(); err != nil {
		return Entry{}, err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	log := m.logs[e.File]
	if len(log) >= max {
		return Entry{}, ErrLimit()
	}
	e.Seq = int64(len(log)) + 1
	m.logs[e.File] = append(log, e)
	return e, nil
}

// AnnotationLog implements Store.
func (m *Memory) AnnotationLog(ctx context.Context, f File, after int64, limit int) ([]Entry, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	log := m.logs[f]
	if after < 0 {
		after = 0
	}
	if after >= int64(len(log)) || limit <= 0 {
		return nil, nil
	}
	end := min(int64(len(log)), after+int64(limit))
	return append([]Entry(nil), log[after:end]...), nil
}

// LatestAnnotation implements Store.
func (m *Memory) LatestAnnotation(ctx context.Context, f File, kind Kind, offset uint64) (Entry, bool, error) {
	if err := ctx.Err(); err != nil {
		return Entry{}, false, err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	log := m.logs[f]
	for i := len(log) - 1; i >= 0; i-- {
		if log[i].Kind == kind && log[i].Offset == offset {
			return log[i], true, nil
		}
	}
	return Entry{}, false, nil
}
