package funcs

import (
	"context"
	"encoding/binary"
	"sort"
	"unsafe"

	"github.com/warden-mcp/warden/binview/budget"
	"github.com/warden-mcp/warden/binview/cfi"
	"github.com/warden-mcp/warden/binview/disasm"
)

// metadataStage collects the starts the file states: symbols, exports,
// entry points, call-frame data and the caller's hints.
func (a *Analyzer) metadataStage(ctx context.Context) error {
	for i, s := range a.img.Symbols {
		if i&0xfff == 0 {
			if err := a.stop(ctx); err != nil {
				return err
			}
		}
		src := s.Source
		if src == "" {
			src = SourceSymbol
		}
		if a.isExcluded(s.Addr) || !a.mem.isExec(s.Addr) {
			if s.Name != "" {
				if a.bud.Take(budget.Bytes, 48) != nil {
					return a.bud.Err()
				}
				a.names[s.Addr] = s.Name
				if isNoReturnName(s.Name) {
					a.noreturn[s.Addr] = true
				}
			}
			continue
		}
		a.add(s.Addr, src, s.Name, s.Size)
		if src == SourceSymbol {
			a.metadata = true
		}
		if isNoReturnName(s.Name) {
			a.noreturn[s.Addr] = true
		}
	}
	for _, e := range a.img.Entries {
		a.add(e, SourceEntry, "", 0)
	}
	if err := a.stop(ctx); err != nil {
		return err
	}
	for i, h := range a.img.Hints {
		if i&0xfff == 0 {
			if err := a.stop(ctx); err != nil {
				return err
			}
		}
		src := h.Source
		if src == "" {
			src = "hint"
		}
		if (a.add(h.Addr, src, h.Name, h.Size) || a.fns[h.Addr] != nil) && src.comprehensive() {
			a.metadata = true
		}
	}
	a.callFrames()
	// Known extents, for telling a tail call from a jump inside a function.
	for _, f := range a.fns {
		if f.End > f.Addr {
			a.extents = append(a.extents, extent{Range{f.Addr, f.End}, f.Addr})
		}
	}
	if err := a.bud.Take(budget.Bytes, int64(len(a.extents))*int64(unsafe.Sizeof(extent{}))); err != nil {
		return err
	}
	sort.Slice(a.extents, func(i, j int) bool { return a.extents[i].Start < a.extents[j].Start })
	return a.stop(ctx)
}

func (a *Analyzer) cfiOptions(sec Section) *cfi.Options {
	var order binary.ByteOrder = binary.LittleEndian
	if a.img.BigEndian {
		order = binary.BigEndian
	}
	ps := a.arch.PtrSize()
	return &cfi.Options{
		Addr: sec.Addr, PtrSize: ps, ByteOrder: order, MaxEntries: a.opts.MaxFunctions * 2,
		ReadPointer: func(addr uint64) (uint64, bool) {
			i := a.mem.find(addr)
			if i < 0 {
				return 0, false
			}
			r := &a.mem.regions[i]
			off := addr - r.Addr
			if off+uint64(ps) > uint64(len(r.Data)) {
				return 0, false
			}
			if ps == 4 {
				return uint64(order.Uint32(r.Data[off:])), true
			}
			return order.Uint64(r.Data[off:]), true
		},
	}
}

// callFrames adds every FDE start of .eh_frame, .eh_frame_hdr and
// .debug_frame, with its end.
func (a *Analyzer) callFrames() {
	use := func(t *cfi.Table, err error, src Source) {
		if err != nil {
			a.warnings[WarnCFI] = true
		}
		if t == nil {
			return
		}
		for _, f := range t.FDEs {
			if f.End <= f.Start {
				continue
			}
			start := f.Start
			if f.CIE >= 0 && f.CIE < len(t.CIEs) && t.CIEs[f.CIE].Signal {
				// A signal trampoline's FDE starts one byte early, so
				// that an unwinder's pc-1 lookup lands in it.
				start++
			}
			start = a.skipPadding(start, f.End)
			if a.mem.isExec(start) {
				a.metadata = true
			}
			a.add(start, src, "", f.End-start)
		}
	}
	ehFDEs := 0
	if len(a.img.EHFrame.Data) > 0 {
		t, err := cfi.ParseEHFrame(a.img.EHFrame.Data, a.cfiOptions(a.img.EHFrame))
		use(t, err, SourceEHFrame)
		if t != nil {
			ehFDEs = len(t.FDEs)
		}
	}
	// The header's table repeats the FDE starts (without the signal-frame
	// and padding corrections): use it only when .eh_frame itself gave
	// nothing, as when a loader found the header through PT_GNU_EH_FRAME
	// but no section table.
	if len(a.img.EHFrameHdr.Data) > 0 && ehFDEs == 0 {
		h, err := cfi.ParseEHFrameHdr(a.img.EHFrameHdr.Data, a.cfiOptions(a.img.EHFrameHdr))
		if err != nil {
			a.warnings[WarnCFI] = true
		}
		if h != nil {
			for _, e := range h.Entries {
				if a.mem.isExec(e.Start) {
					a.metadata = true
				}
				a.add(e.Start, SourceEHFrame, "", 0)
			}
		}
	}
	if len(a.img.DebugFrame.Data) > 0 {
		t, err := cfi.ParseDebugFrame(a.img.DebugFrame.Data, a.cfiOptions(a.img.DebugFrame))
		use(t, err, SourceDebugFrame)
	}
}

// extentOf returns the known extent holding addr, if any.
func (a *Analyzer) extentOf(addr uint64) (extent, bool) {
	i := sort.Search(len(a.extents), func(i int) bool { return a.extents[i].Start > addr })
	// Extents may nest (a symbol's size and an FDE); look back a little.
	for j := i - 1; j >= 0 && j >= i-4; j-- {
		if a.extents[j].Contains(addr) {
			return a.extents[j], true
		}
	}
	return extent{}, false
}

func (a *Analyzer) byteOrder() binary.ByteOrder {
	if a.img.BigEndian {
		return binary.BigEndian
	}
	return binary.LittleEndian
}

// skipPadding moves an FDE start that sits on alignment padding (hand
// written assembly often opens its CFI before the .p2align) to the first
// real instruction, when one follows inside the range.
func (a *Analyzer) skipPadding(start, end uint64) uint64 {
	if a.arch != disasm.X86_64 && a.arch != disasm.X86 {
		return start
	}
	pc := start
	for i := 0; i < 8 && pc < end; i++ {
		code, _ := a.mem.code(pc)
		if code == nil {
			return start
		}
		fl := a.dec.Flow(code, pc)
		if !fl.Nop || fl.Len < 2 && pc == start {
			break
		}
		pc += uint64(fl.Len)
	}
	if pc >= end {
		return start
	}
	return pc
}
