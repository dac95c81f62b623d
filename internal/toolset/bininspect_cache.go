package toolset

import (
	"container/list"
	"sync"

	"github.com/warden-mcp/warden/binview"
)

// viewCache keeps built views in this process, least recently used
// first out, bounded by their footprints: the file's bytes and what the
// code analysis kept, which grows after a view is put, so each use
// measures the view again and makes room. A view is immutable, so every
// caller whose row names it shares one; access is decided by the rows,
// never by the cache.
type viewCache struct {
	mu    sync.Mutex
	max   int64
	bytes int64
	order *list.List // of *cached, most recent first
	byKey map[string]*list.Element
}

type cached struct {
	key  string
	view *binview.View
	size int64
}

func newViewCache(max int64) *viewCache {
	return &viewCache{max: max, order: list.New(), byKey: map[string]*list.Element{}}
}

func (c *viewCache) get(key string) *binview.View {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.byKey[key]
	if !ok {
		return nil
	}
	c.order.MoveToFront(e)
	ent := e.Value.(*cached)
	if size := ent.view.Footprint() + 1; size != ent.size {
		c.bytes += size - ent.size
		ent.size = size
		if size > c.max {
			// Grown past the whole bound: the caller keeps it, the
			// cache lets it go (its analysis stops at its own budgets).
			c.order.Remove(e)
			delete(c.byKey, key)
			c.bytes -= size
		}
		c.evictLocked()
	}
	return ent.view
}

// put keeps v, dropping the least recently used views past the bound. A
// view larger than the bound is not kept.
func (c *viewCache) put(key string, v *binview.View) {
	size := v.Footprint() + 1
	c.mu.Lock()
	defer c.mu.Unlock()
	if e, ok := c.byKey[key]; ok {
		c.order.MoveToFront(e)
		return
	}
	if size > c.max {
		return
	}
	c.byKey[key] = c.order.PushFront(&cached{key: key, view: v, size: size})
	c.bytes += size
	c.evictLocked()
}

// evictLocked drops the least recently used views until the rest fit,
// never the most recent one; c.mu is held.
func (c *viewCache) evictLocked() {
	for c.bytes > c.max && c.order.Len() > 1 {
		last := c.order.Back()
		old := last.Value.(*cached)
		c.order.Remove(last)
		delete(c.byKey, old.key)
		c.bytes -= old.size
		// Stop its code analysis; a call still holding it keeps what
		// was found.
		old.view.Close()
	}
}
