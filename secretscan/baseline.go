package secretscan

import (
	"encoding/json"
	"io"
	"maps"
	"slices"
	"strings"

	"github.com/warden-mcp/warden/errcode"
)

// BaselineVersion names the baseline file format.
const BaselineVersion = "keysweep-baseline/1"

// maxBaselineBytes bounds a baseline file.
const maxBaselineBytes = 16 << 20

// Baseline is a set of accepted fingerprints: detections whose fingerprint
// it holds are suppressed (counted in Result.Suppressed). Fingerprints are
// keyed, so a baseline is only meaningful with the FingerprintKey that
// produced it. A Baseline is immutable and safe for concurrent use; a nil
// *Baseline is empty.
type Baseline struct {
	fps map[string]struct{}
}

// baselineFile is the JSON form of a baseline.
type baselineFile struct {
	Version      string   `json:"version"`
	Fingerprints []string `json:"fingerprints"`
}

// NewBaseline returns a baseline holding fingerprints.
func NewBaseline(fingerprints ...string) *Baseline {
	b := &Baseline{fps: make(map[string]struct{}, len(fingerprints))}
	for _, f := range fingerprints {
		b.fps[f] = struct{}{}
	}
	return b
}

// Contains reports whether fp is in the baseline.
func (b *Baseline) Contains(fp string) bool {
	if b == nil {
		return false
	}
	_, ok := b.fps[fp]
	return ok
}

// Len returns the number of fingerprints.
func (b *Baseline) Len() int {
	if b == nil {
		return 0
	}
	return len(b.fps)
}

// Fingerprints returns the fingerprints, sorted.
func (b *Baseline) Fingerprints() []string {
	if b == nil {
		return nil
	}
	return slices.Sorted(maps.Keys(b.fps))
}

// ReadBaseline parses a baseline file (at most 16 MiB):
//
//	{"version": "keysweep-baseline/1", "fingerprints": ["ks1_...", ...]}
func ReadBaseline(r io.Reader) (*Baseline, error) {
	data, err := io.ReadAll(io.LimitReader(r, maxBaselineBytes+1))
	if err != nil {
		return nil, errcode.Wrap(CodeReadFailed, "cannot read baseline", err)
	}
	if len(data) > maxBaselineBytes {
		return nil, errcode.New(CodeInvalidBaseline, "baseline too large")
	}
	var f baselineFile
	if err := json.Unmarshal(data, &f); err != nil {
		return nil, errcode.Wrap(CodeInvalidBaseline, "baseline is not valid JSON", err)
	}
	if f.Version != BaselineVersion {
		return nil, errcode.New(CodeInvalidBaseline, "unsupported baseline version")
	}
	for _, fp := range f.Fingerprints {
		if !strings.HasPrefix(fp, fingerprintPrefix) || len(fp) != len(fingerprintPrefix)+24 {
			return nil, errcode.New(CodeInvalidBaseline, "malformed fingerprint in baseline")
		}
	}
	return NewBaseline(f.Fingerprints...), nil
}

// WriteBaseline writes a baseline file holding the fingerprints of the
// given detections, sorted and deduplicated.
func WriteBaseline(w io.Writer, detections []Detection) error {
	set := map[string]struct{}{}
	for _, d := range detections {
		set[d.Fingerprint] = struct{}{}
	}
	f := baselineFile{Version: BaselineVersion, Fingerprints: slices.Sorted(maps.Keys(set))}
	if f.Fingerprints == nil {
		f.Fingerprints = []string{} // "fingerprints": [], not null
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(f)
}
