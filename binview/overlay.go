package binview

import (
	"slices"

	"github.com/warden-mcp/warden/tool/addrexpr"
)

// Overlay is what a person added to a view: names for addresses and
// function starts the analysis missed. It is immutable once built, so a
// View stays immutable too: an Overlay is laid over it per caller
// (OverlayView), and a new annotation makes a new Overlay.
type Overlay struct {
	byAddr map[uint64]string
	byName map[string]uint64
	funcs  []uint64 // sorted
}

// NewOverlay builds an overlay from names by address and user-defined
// function starts. Empty names are ignored; when two addresses share a
// name, the lower one keeps it for address expressions.
func NewOverlay(names map[uint64]string, functions []uint64) *Overlay {
	o := &Overlay{byAddr: make(map[uint64]string, len(names)), byName: make(map[string]uint64, len(names))}
	for a, n := range names {
		if n == "" {
			continue
		}
		o.byAddr[a] = n
		if old, ok := o.byName[n]; !ok || a < old {
			o.byName[n] = a
		}
	}
	o.funcs = slices.Clone(functions)
	slices.Sort(o.funcs)
	o.funcs = slices.Compact(o.funcs)
	return o
}

// Name returns the name a person gave addr.
func (o *Overlay) Name(addr uint64) (string, bool) {
	if o == nil {
		return "", false
	}
	n, ok := o.byAddr[addr]
	return n, ok
}

// Addr returns the address a person gave that name.
func (o *Overlay) Addr(name string) (uint64, bool) {
	if o == nil {
		return 0, false
	}
	a, ok := o.byName[name]
	return a, ok
}

// Functions returns the user-defined function starts, sorted. The slice
// is shared.
func (o *Overlay) Functions() []uint64 {
	if o == nil {
		return nil
	}
	return o.funcs
}

// Len counts the names and function starts.
func (o *Overlay) Len() int {
	if o == nil {
		return 0
	}
	return len(o.byAddr) + len(o.funcs)
}

// OverlayView is a View seen through an Overlay: the overlay's names
// resolve first in address expressions ("my_decoder + 0x10") and win
// in every listing the tools make. It embeds the View, so every View
// method is available; the View itself is unchanged and may be shared
// by callers with different overlays.
type OverlayView struct {
	*View
	Overlay *Overlay
}

var _ addrexpr.Target = (*OverlayView)(nil)

// WithOverlay lays o over the view. A nil o is an empty overlay.
func (v *View) WithOverlay(o *Overlay) *OverlayView { return &OverlayView{View: v, Overlay: o} }

// Symbol resolves a name a person set first, then as View.Symbol does.
func (ov *OverlayView) Symbol(name string) (uint64, bool) {
	if a, ok := ov.Overlay.Addr(name); ok {
		return a, true
	}
	return ov.View.Symbol(name)
}
