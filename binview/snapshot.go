package binview

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"strconv"

	"github.com/warden-mcp/warden/errcode"
)

// snapshotMagic starts every encoded Analysis; the number after the
// slash is EngineVersion.
const snapshotMagic = "binview-snapshot/"

// MaxSnapshotSize is the largest encoded Analysis UnmarshalAnalysis and
// ReadAnalysis accept.
const MaxSnapshotSize = 1 << 30

// Hard caps on a decoded snapshot's lists, whatever options made it.
const (
	maxSnapItems    = 1 << 22
	maxSnapSections = 1 << 16
)

// MarshalBinary encodes the Analysis: a one-line header naming the
// engine version, then JSON. The encoding is stable for an
// EngineVersion; fields only ever grow.
func (a *Analysis) MarshalBinary() ([]byte, error) {
	var buf bytes.Buffer
	buf.WriteString(snapshotMagic + strconv.Itoa(a.Version) + "\n")
	if err := json.NewEncoder(&buf).Encode(a); err != nil {
		return nil, errcode.Wrap(CodeInvalidSnapshot, "the analysis cannot be encoded", err)
	}
	return buf.Bytes(), nil
}

// UnmarshalAnalysis decodes and checks an encoded Analysis. It refuses
// (invalid_snapshot) another engine version, unknown fields, lists over
// the engine's caps and any range that lies outside the file it
// describes, so a View built from it cannot read out of bounds.
func UnmarshalAnalysis(b []byte) (*Analysis, error) {
	if len(b) > MaxSnapshotSize {
		return nil, errcode.New(CodeInvalidSnapshot, "the snapshot is too large")
	}
	nl := bytes.IndexByte(b, '\n')
	if nl < 0 || nl > 64 || !bytes.HasPrefix(b, []byte(snapshotMagic)) {
		return nil, errcode.New(CodeInvalidSnapshot, "not a binview snapshot")
	}
	if v, err := strconv.Atoi(string(b[len(snapshotMagic):nl])); err != nil || v != EngineVersion {
		return nil, errcode.New(CodeInvalidSnapshot, "the snapshot is from another engine version")
	}
	dec := json.NewDecoder(bytes.NewReader(b[nl+1:]))
	dec.DisallowUnknownFields()
	var a Analysis
	if err := dec.Decode(&a); err != nil {
		return nil, errcode.Wrap(CodeInvalidSnapshot, "the snapshot is malformed", err)
	}
	if dec.More() {
		return nil, errcode.New(CodeInvalidSnapshot, "the snapshot has trailing data")
	}
	if err := a.validate(); err != nil {
		return nil, err
	}
	return &a, nil
}

// ReadAnalysis reads at most max bytes (0: MaxSnapshotSize) from r and
// decodes them with UnmarshalAnalysis.
func ReadAnalysis(r io.Reader, max int64) (*Analysis, error) {
	if max <= 0 || max > MaxSnapshotSize {
		max = MaxSnapshotSize
	}
	b, err := io.ReadAll(io.LimitReader(r, max+1))
	if err != nil {
		return nil, errcode.Wrap(CodeInvalidSnapshot, "the snapshot cannot be read", err)
	}
	if int64(len(b)) > max {
		return nil, errcode.New(CodeInvalidSnapshot, "the snapshot is too large")
	}
	return UnmarshalAnalysis(b)
}

// validate checks what a View relies on for memory safety and bounded
// work.
func (a *Analysis) validate() error {
	bad := func(what string) error {
		return errcode.Wrap(CodeInvalidSnapshot, "the snapshot is inconsistent", fmt.Errorf("%s", what))
	}
	if a.Version != EngineVersion {
		return bad("version")
	}
	if a.FileSize < 0 {
		return bad("file size")
	}
	if a.Bits != 0 && a.Bits != 32 && a.Bits != 64 {
		return bad("bits")
	}
	if len(a.Segments) > maxSnapSections || len(a.Sections) > maxSnapSections || len(a.Slices) > 64 {
		return bad("section count")
	}
	for _, n := range []int{len(a.Symbols), len(a.Imports), len(a.Exports), len(a.Relocations), len(a.GoFunctions),
		len(a.Hints), len(a.Entries), len(a.Libraries), len(a.Hardening), len(a.Warnings)} {
		if n > maxSnapItems {
			return bad("list length")
		}
	}
	// A range of no bytes may name any offset (NOBITS sections do).
	inFile := func(off, n int64) bool {
		return n == 0 || off >= 0 && n > 0 && off <= a.FileSize && n <= a.FileSize-off
	}
	for _, s := range a.Segments {
		if !inFile(s.Offset, s.FileSize) || s.Size > 0 && s.Addr+s.Size < s.Addr {
			return bad("segment range")
		}
	}
	for _, s := range a.Sections {
		if !inFile(s.Offset, s.FileSize) || s.Mapped && s.Size > 0 && s.Addr+s.Size < s.Addr {
			return bad("section range")
		}
		if math.IsNaN(s.Entropy) || s.Entropy < 0 || s.Entropy > 8 {
			return bad("entropy")
		}
	}
	for _, s := range a.Slices {
		if !inFile(s.Offset, s.Size) {
			return bad("slice range")
		}
	}
	if !inFile(a.SliceOffset, 0) {
		return bad("slice offset")
	}
	return nil
}
