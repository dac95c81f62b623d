package cfi

import (
	"encoding/binary"
	"errors"
	"fmt"
)

// Hdr is a parsed .eh_frame_hdr: where .eh_frame is, and the sorted
// search table of function starts and their FDEs.
type Hdr struct {
	EHFrame uint64 // address of .eh_frame
	Entries []HdrEntry
}

// HdrEntry is one row of the search table.
type HdrEntry struct {
	Start uint64 // function start
	FDE   uint64 // address of its FDE in .eh_frame
}

// ParseEHFrameHdr parses an .eh_frame_hdr section loaded at opts.Addr.
// Data-relative values in it are relative to the section itself, as the
// format says. The table is capped at opts.MaxEntries rows.
func ParseEHFrameHdr(data []byte, opts *Options) (h *Hdr, err error) {
	var o Options
	if opts != nil {
		o = *opts
	}
	if o.PtrSize != 4 {
		o.PtrSize = 8
	}
	if o.ByteOrder == nil {
		o.ByteOrder = binary.LittleEndian
	}
	max := o.MaxEntries
	if max <= 0 {
		max = defaultMaxEntries
	}
	h = &Hdr{}
	defer func() {
		if r := recover(); r != nil {
			h, err = nil, malformed(fmt.Errorf("cfi: panic: %v", r))
		}
	}()
	r := reader{b: data, order: o.ByteOrder}
	b := bases{section: o.Addr, text: o.TextAddr, data: o.Addr, ptrSize: o.PtrSize}
	version, err := r.u8()
	if err != nil {
		return nil, malformed(err)
	}
	if version != 1 {
		return nil, malformed(fmt.Errorf("cfi: eh_frame_hdr version %d", version))
	}
	var enc [3]uint8
	for i := range enc {
		if enc[i], err = r.u8(); err != nil {
			return nil, malformed(err)
		}
	}
	if h.EHFrame, _, err = r.pointer(enc[0], &b); err != nil {
		return nil, malformed(err)
	}
	if enc[1] == peOmit || enc[2] == peOmit {
		return h, nil
	}
	count, _, err := r.pointer(enc[1], &b)
	if err != nil {
		return nil, malformed(err)
	}
	size := fixedSize(enc[2], o.PtrSize)
	if size == 0 {
		return h, malformed(errors.New("cfi: eh_frame_hdr table encoding is not fixed-size"))
	}
	if count > uint64(r.left()/(2*size)) {
		return h, malformed(errShort)
	}
	if count > uint64(max) {
		return h, errTooMany()
	}
	h.Entries = make([]HdrEntry, 0, count)
	for i := uint64(0); i < count; i++ {
		s, _, err := r.pointer(enc[2], &b)
		if err != nil {
			return h, malformed(err)
		}
		f, _, err := r.pointer(enc[2], &b)
		if err != nil {
			return h, malformed(err)
		}
		h.Entries = append(h.Entries, HdrEntry{s, f})
	}
	return h, nil
}

func fixedSize(enc uint8, ptrSize int) int {
	switch enc & 0x0f {
	case peAbsptr:
		return ptrSize
	case peUdata2, peSdata2:
		return 2
	case peUdata4, peSdata4:
		return 4
	case peUdata8, peSdata8:
		return 8
	}
	return 0
}
