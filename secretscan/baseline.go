package secretscan

import (
	"crypto/hmac"
	"crypto/pbkdf2"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"io"
	"maps"
	"slices"
	"strings"
	"sync"

	"github.com/warden-mcp/warden/errcode"
)

// Baseline file formats. Version 2 is portable: it carries its own random
// key, so a baseline written on one machine suppresses the same findings
// on any other. Version 1 lists the fingerprints of one machine's key and
// is still read.
const (
	BaselineVersion   = "keysweep-baseline/2"
	BaselineVersionV1 = "keysweep-baseline/1"
)

// baselineIterations is PBKDF2's count for the values a person may have
// chosen: 10 to 20 ms each on a 2-core machine, so a baseline of a
// thousand such findings is written or checked in seconds, and each guess
// at one of them costs as much.
const baselineIterations = 100_000

// maxBaselineBytes bounds a baseline file.
const maxBaselineBytes = 16 << 20

// Baseline is a set of accepted findings: detections it holds are
// suppressed (counted in Result.Suppressed). It is safe for concurrent
// use; a nil *Baseline is empty.
//
// A version 2 entry is a rule id and a digest of the value under the
// baseline's own random key: HMAC-SHA-256 for a rule whose matches carry
// a distinctive prefix or structure (generated tokens, whose entropy
// makes a guess hopeless), PBKDF2-HMAC-SHA-256 (baselineIterations) for the rest
// (passwords and other assignments a person may have chosen). The key is
// in the file, so whoever reads the baseline can test a guess of a value
// offline; the digest makes that a guess per value and per baseline (no
// table serves two baselines), slow for human-chosen values, and
// hopeless for generated tokens. The file never holds a value, and no
// digest of one under a key the file does not carry.
type Baseline struct {
	fps map[string]struct{} // version 1: the scanner's own fingerprints

	key     []byte              // version 2
	entries map[string]struct{} // rule id + "\x00" + digest

	mu      sync.Mutex
	matched map[string]struct{}
}

type baselineFile struct {
	Version      string          `json:"version"`
	Key          string          `json:"key,omitempty"`
	Entries      []baselineEntry `json:"entries,omitempty"`
	Fingerprints []string        `json:"fingerprints,omitempty"`
}

type baselineEntry struct {
	RuleID string `json:"rule_id"`
	Digest string `json:"digest"`
}

// NewBaseline returns a version 1 baseline holding a scanner's own
// fingerprints.
func NewBaseline(fingerprints ...string) *Baseline {
	b := &Baseline{fps: make(map[string]struct{}, len(fingerprints)), matched: map[string]struct{}{}}
	for _, f := range fingerprints {
		b.fps[f] = struct{}{}
	}
	return b
}

// match reports whether the detection of rule r with this value and the
// scanner's fingerprint fp is in the baseline, and records the entry as
// matched.
func (b *Baseline) match(r *rule, value, fp string) bool {
	if b == nil {
		return false
	}
	k := fp
	if b.key != nil {
		k = r.ID + "\x00" + baselineDigest(b.key, r.ID, r.Evidence >= evPrefix, value)
		if _, ok := b.entries[k]; !ok {
			return false
		}
	} else if _, ok := b.fps[k]; !ok {
		return false
	}
	b.mu.Lock()
	b.matched[k] = struct{}{}
	b.mu.Unlock()
	return true
}

// Len returns the number of entries.
func (b *Baseline) Len() int {
	if b == nil {
		return 0
	}
	return len(b.fps) + len(b.entries)
}

// Matched returns how many entries suppressed a detection so far.
func (b *Baseline) Matched() int {
	if b == nil {
		return 0
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	return len(b.matched)
}

// Portable reports whether the baseline is version 2.
func (b *Baseline) Portable() bool { return b != nil && b.key != nil }

// baselineDigest is a version 2 entry's digest of value, found by the
// rule ruleID; strong is set for a rule whose matches carry a distinctive
// prefix or structure.
func baselineDigest(key []byte, ruleID string, strong bool, value string) string {
	if strong {
		m := hmac.New(sha256.New, key)
		m.Write([]byte(BaselineVersion + "\x00" + ruleID + "\x00"))
		m.Write([]byte(value))
		return "h" + hex.EncodeToString(m.Sum(nil)[:16])
	}
	salt := append(append([]byte(nil), key...), ruleID...)
	dk, err := pbkdf2.Key(sha256.New, value, salt, baselineIterations, 16)
	if err != nil { // only for parameters FIPS mode refuses; never these
		panic("secretscan: pbkdf2: " + err.Error())
	}
	return "a" + hex.EncodeToString(dk)
}

// ReadBaseline parses a baseline file (at most 16 MiB), version 2:
//
//	{"version": "keysweep-baseline/2", "key": "<base64>",
//	 "entries": [{"rule_id": "github-pat", "digest": "h..."}, ...]}
//
// or version 1: {"version": "keysweep-baseline/1", "fingerprints": ["ks1_...", ...]}.
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
	switch f.Version {
	case BaselineVersionV1:
		for _, fp := range f.Fingerprints {
			if !strings.HasPrefix(fp, fingerprintPrefix) || len(fp) != len(fingerprintPrefix)+24 {
				return nil, errcode.New(CodeInvalidBaseline, "malformed fingerprint in baseline")
			}
		}
		return NewBaseline(f.Fingerprints...), nil
	case BaselineVersion:
		key, err := base64.RawURLEncoding.DecodeString(f.Key)
		if err != nil || len(key) != 32 {
			return nil, errcode.New(CodeInvalidBaseline, "baseline key must be 32 bytes, base64url")
		}
		b := &Baseline{key: key, entries: make(map[string]struct{}, len(f.Entries)), matched: map[string]struct{}{}}
		for _, e := range f.Entries {
			if e.RuleID == "" || len(e.Digest) != 33 || (e.Digest[0] != 'h' && e.Digest[0] != 'a') {
				return nil, errcode.New(CodeInvalidBaseline, "malformed entry in baseline")
			}
			if _, err := hex.DecodeString(e.Digest[1:]); err != nil {
				return nil, errcode.New(CodeInvalidBaseline, "malformed entry in baseline")
			}
			b.entries[e.RuleID+"\x00"+e.Digest] = struct{}{}
		}
		return b, nil
	}
	return nil, errcode.New(CodeInvalidBaseline, "unsupported baseline version")
}

// WriteBaseline writes a portable (version 2) baseline of the given
// detections under a new random key, sorted and deduplicated. Detections
// must come from this process's scans (they hold their values until
// then); one without its value is refused.
func WriteBaseline(w io.Writer, detections []Detection) error {
	key := make([]byte, 32)
	if _, err := rand.Read(key); err != nil {
		return err
	}
	set := map[baselineEntry]struct{}{}
	for _, d := range detections {
		if d.secret == nil {
			return errcode.New(CodeInvalidBaseline, "a detection without its value cannot be baselined")
		}
		set[baselineEntry{RuleID: d.RuleID, Digest: baselineDigest(key, d.RuleID, d.strong, d.secret.v)}] = struct{}{}
	}
	entries := slices.SortedFunc(maps.Keys(set), func(a, b baselineEntry) int {
		return strings.Compare(a.RuleID+"\x00"+a.Digest, b.RuleID+"\x00"+b.Digest)
	})
	if entries == nil {
		entries = []baselineEntry{} // "entries": [], not null
	}
	f := struct {
		Version string          `json:"version"`
		Key     string          `json:"key"`
		Entries []baselineEntry `json:"entries"`
	}{BaselineVersion, base64.RawURLEncoding.EncodeToString(key), entries}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(f)
}
