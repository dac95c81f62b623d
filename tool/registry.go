package tool

import (
	"fmt"
	"sort"
	"strings"
	"sync"
)

// Registry holds the tools a server offers. It is safe for concurrent use;
// tools may be added and removed while serving, and subscribers hear of
// every change.
type Registry struct {
	mu       sync.RWMutex
	tools    map[string]*Tool
	sorted   []*Tool
	reserved map[string]bool // lower-cased prefix -> claimed
	version  uint64
	subs     map[int]func()
	nextSub  int
}

// NewRegistry returns an empty registry. It reserves no names: a server
// that serves families of its own claims their prefixes with Family before
// it registers anyone else's tools.
func NewRegistry() *Registry {
	return &Registry{tools: map[string]*Tool{}, reserved: map[string]bool{}, subs: map[int]func(){}}
}

// Family is the right to register tools under one reserved prefix. Once a
// prefix is claimed, Register refuses every name under it (compared
// without regard to case), so no other tool can pass itself off as one of
// the family's.
type Family struct {
	r      *Registry
	prefix string
	views  *familyViews
}

// familyViews is a family's view resolver, shared with its tools.
type familyViews struct {
	mu      sync.RWMutex
	resolve ViewResolver
}

func (v *familyViews) resolver() ViewResolver {
	if v == nil {
		return nil
	}
	v.mu.RLock()
	defer v.mu.RUnlock()
	return v.resolve
}

// ResolveViews makes r the view resolver of the family's view-scoped
// tools: the family that opens views finds them, and no other package
// sees how. A resolver a server's stage sets on a call
// (Call.SetViewResolver, ResolveViews) comes first.
func (f *Family) ResolveViews(r ViewResolver) {
	f.views.mu.Lock()
	f.views.resolve = r
	f.views.mu.Unlock()
}

// Family claims a name prefix (ending in "_") for one family of tools.
// Each prefix can be claimed once per registry, and claimed prefixes may
// not overlap.
func (r *Registry) Family(prefix string) (*Family, error) {
	if !strings.HasSuffix(prefix, "_") || !nameRE.MatchString(prefix) {
		return nil, fmt.Errorf("family prefix %q: want a valid name ending in _", prefix)
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	key := strings.ToLower(prefix)
	if claimed := r.reserved[key]; claimed {
		return nil, fmt.Errorf("family prefix %q is already claimed", prefix)
	}
	for p := range r.reserved {
		if p != key && (strings.HasPrefix(p, key) || strings.HasPrefix(key, p)) {
			return nil, fmt.Errorf("family prefix %q overlaps reserved prefix %q", prefix, p)
		}
	}
	r.reserved[key] = true
	return &Family{r: r, prefix: prefix, views: &familyViews{}}, nil
}

// Families returns the claimed family prefixes, sorted.
func (r *Registry) Families() []string {
	r.mu.RLock()
	defer r.mu.RUnlock()
	var out []string
	for p, claimed := range r.reserved {
		if claimed {
			out = append(out, p)
		}
	}
	sort.Strings(out)
	return out
}

// MustFamily is Family that panics on error, for start-up wiring.
func (r *Registry) MustFamily(prefix string) *Family {
	f, err := r.Family(prefix)
	if err != nil {
		panic(err)
	}
	return f
}

// Register adds a tool of the family.
func (f *Family) Register(t *Tool) error {
	if !strings.HasPrefix(t.Name, f.prefix) {
		return fmt.Errorf("tool %s is not in family %s", t.Name, f.prefix)
	}
	return f.r.add(t, f.views)
}

// Registry returns the family's registry.
func (f *Family) Registry() *Registry { return f.r }

// Register adds a tool. Names are unique, and names under a claimed family
// prefix are refused (compared without regard to case).
func (r *Registry) Register(t *Tool) error { return r.add(t, nil) }

// MustRegister is Register that panics on error.
func (r *Registry) MustRegister(t *Tool) {
	if err := r.Register(t); err != nil {
		panic(err)
	}
}

// add registers t; family is the family's view resolver when a family
// registers it, nil otherwise. It is set on t under the lock, before t is
// published, so that a call that finds t sees it.
func (r *Registry) add(t *Tool, family *familyViews) error {
	if t == nil || t.handler == nil {
		return fmt.Errorf("tool is not built: use New, NewRaw, Add or AddRaw")
	}
	r.mu.Lock()
	if family == nil {
		lower := strings.ToLower(t.Name)
		for p := range r.reserved {
			if strings.HasPrefix(lower, p) {
				r.mu.Unlock()
				return fmt.Errorf("tool %s: prefix %q is reserved for a tool family", t.Name, p)
			}
		}
	}
	if _, dup := r.tools[t.Name]; dup {
		r.mu.Unlock()
		return fmt.Errorf("tool %s is already registered", t.Name)
	}
	if family != nil {
		t.family = family
	}
	r.tools[t.Name] = t
	r.rebuild()
	subs := r.subscribers()
	r.mu.Unlock()
	notify(subs)
	return nil
}

// Remove unregisters a tool; it reports whether the tool was there.
func (r *Registry) Remove(name string) bool {
	r.mu.Lock()
	if _, ok := r.tools[name]; !ok {
		r.mu.Unlock()
		return false
	}
	delete(r.tools, name)
	r.rebuild()
	subs := r.subscribers()
	r.mu.Unlock()
	notify(subs)
	return true
}

func (r *Registry) rebuild() {
	r.sorted = r.sorted[:0:0]
	for _, t := range r.tools {
		r.sorted = append(r.sorted, t)
	}
	sort.Slice(r.sorted, func(i, j int) bool { return r.sorted[i].Name < r.sorted[j].Name })
	r.version++
}

func (r *Registry) subscribers() []func() {
	fs := make([]func(), 0, len(r.subs))
	for _, f := range r.subs {
		fs = append(fs, f)
	}
	return fs
}

func notify(fs []func()) {
	for _, f := range fs {
		f()
	}
}

// Lookup finds a tool by name.
func (r *Registry) Lookup(name string) (*Tool, bool) {
	r.mu.RLock()
	t, ok := r.tools[name]
	r.mu.RUnlock()
	return t, ok
}

// Tools returns the tools in name order and the registry version, which
// changes with every addition or removal.
func (r *Registry) Tools() ([]*Tool, uint64) {
	r.mu.RLock()
	defer r.mu.RUnlock()
	return r.sorted, r.version
}

// Len returns the number of tools.
func (r *Registry) Len() int {
	r.mu.RLock()
	defer r.mu.RUnlock()
	return len(r.tools)
}

// Subscribe calls fn after every change to the registry, until the
// returned cancel function is called. fn must not block.
func (r *Registry) Subscribe(fn func()) (cancel func()) {
	r.mu.Lock()
	id := r.nextSub
	r.nextSub++
	r.subs[id] = fn
	r.mu.Unlock()
	return func() {
		r.mu.Lock()
		delete(r.subs, id)
		r.mu.Unlock()
	}
}
