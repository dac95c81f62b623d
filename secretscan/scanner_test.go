package secretscan

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/warden-mcp/warden/errcode"
)

func scan(t *testing.T, s *Scanner, text string) Result {
	t.Helper()
	res, err := s.Scan(context.Background(), text)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

func seed(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "seeds", name))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// validGitHub is a ghp_ token whose CRC32 tail is right (testdata/seeds/env.txt).
const validGitHub = "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"

func TestDecoysStaySilent(t *testing.T) {
	s := New(nil)
	for _, text := range []string{
		"GITHUB_TOKEN=ghp_xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx",
		`api_key = "<TOKEN>"`,
		"api_key: your_api_key_here",
		`password = "changeme"`,
		"AWS_SECRET_ACCESS_KEY=wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
		"aws_access_key_id = AKIAIOSFODNN7EXAMPLE",
		"STRIPE_KEY=sk_live_000000000000000000000000",
		"stripe.api_key = 'sk_test_4eC39HqLyjWDarjtT1zdp7dc'",
		"sha256: e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
		"commit 4b825dc642cb6eb9a060e54bf8d69288fbee4904",
		"request_id: 550e8400-e29b-41d4-a716-446655440000",
		`version = "1.2.3"`,
		"token: ${GITHUB_TOKEN}",
		"password: {{ .Values.db.password }}",
		`secret = os.getenv("APP_SECRET")`,
		`"integrity": "sha512-v2kDEe57lecTulaDIuNTPy3Ry4gLGJ6Z1O3vE1krgXZNrsQ+LFTGHVxVjcXPs17LhbZVGedAJv8XZ1tvj5FvSg=="`,
		"password = getPassword()",
		"token = request.headers.get('X-Token')",
		"max_tokens = 4096",
		"public_key = 'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIG'",
		"DATABASE_URL=postgres://user:password@localhost:5432/app",
		"DATABASE_URL=postgres://app:${DB_PASSWORD}@db:5432/app",
		"Authorization: Bearer <token>",
		"xoxb-xxxxxxxxxxxx-xxxxxxxxxxxxx-xxxxxxxxxxxxxxxxxxxxxxxx",
		"-----BEGIN RSA PRIVATE KEY-----\n...\n-----END RSA PRIVATE KEY-----",
		"The key is in the vault; the token expires in 3600 seconds.",
	} {
		if res := scan(t, s, text); len(res.Detections) > 0 {
			t.Errorf("decoy %q: got %v", text, res.Detections)
		}
	}
}

func TestDetectionFields(t *testing.T) {
	s := New(&Options{FingerprintKey: []byte("k")})
	text := "x\n  é GITHUB_TOKEN=" + validGitHub + "\n"
	res := scan(t, s, text)
	if len(res.Detections) != 1 {
		t.Fatalf("got %v", res.Detections)
	}
	d := res.Detections[0]
	off := strings.Index(text, "ghp_")
	want := Detection{RuleID: "github-ghp", Type: "github_personal_access_token", Family: "vcs",
		Severity: SeverityHigh, Confidence: 0.95, ValueLength: 40, Line: 2, Column: 18,
		Offset: off, End: off + 40, Evidence: []string{"prefix", "checksum_valid"}}
	if diff := cmp.Diff(want, d, cmp.FilterPath(func(p cmp.Path) bool {
		return p.Last().String() == ".Fingerprint" || p.Last().String() == ".secret" || p.Last().String() == ".strong"
	}, cmp.Ignore())); diff != "" {
		t.Errorf("detection (-want +got):\n%s", diff)
	}
	if res.TextLength != len([]rune(text)) {
		t.Errorf("TextLength %d", res.TextLength)
	}
	if !regexp.MustCompile(`^ks1_[0-9a-f]{24}$`).MatchString(d.Fingerprint) {
		t.Errorf("fingerprint %q", d.Fingerprint)
	}
}

func TestChecksumMovesConfidence(t *testing.T) {
	s := New(nil)
	bad := validGitHub[:len(validGitHub)-1] + "Z"
	good := scan(t, s, "t="+validGitHub).Detections
	wrong := scan(t, s, "t="+bad).Detections
	if len(good) != 1 || len(wrong) != 1 {
		t.Fatalf("good %v wrong %v", good, wrong)
	}
	if !(good[0].Confidence > wrong[0].Confidence) {
		t.Errorf("valid checksum %.2f should beat invalid %.2f", good[0].Confidence, wrong[0].Confidence)
	}
	if wrong[0].Confidence < 0.5 {
		t.Errorf("invalid checksum should lower, not hide: %.2f", wrong[0].Confidence)
	}
}

func TestFingerprint(t *testing.T) {
	a := New(&Options{FingerprintKey: []byte("one")})
	b := New(&Options{FingerprintKey: []byte("two")})
	if first, again := a.Fingerprint("v"), a.Fingerprint("v"); first != again {
		t.Error("not stable")
	}
	if a.Fingerprint("v") == b.Fingerprint("v") || a.Fingerprint("v") == a.Fingerprint("w") {
		t.Error("not keyed or not value-dependent")
	}
	r1 := New(nil).Fingerprint("v")
	r2 := New(nil).Fingerprint("v")
	if r1 == r2 {
		t.Error("nil options should draw a random key per scanner")
	}
}

func TestEncodedLayers(t *testing.T) {
	s := New(nil)
	for _, tc := range []struct {
		file, enc, typ string
	}{
		{"base64.txt", "base64", "github_personal_access_token"},
		{"url.txt", "url", "postgresql_connection_url"},
		{"json.txt", "json", "password"},
		{"qp.txt", "quoted_printable", "password"},
	} {
		text := seed(t, tc.file)
		res := scan(t, s, text)
		var got *Detection
		for i, d := range res.Detections {
			if d.Type == tc.typ {
				got = &res.Detections[i]
			}
		}
		if got == nil {
			t.Errorf("%s: no %s detection in %v", tc.file, tc.typ, res.Detections)
			continue
		}
		if !strings.HasPrefix(got.Encoding, tc.enc) {
			t.Errorf("%s: encoding %q, want %q", tc.file, got.Encoding, tc.enc)
		}
		// The position points at the encoded span in the original text.
		if got.Offset < 0 || got.End > len(text) || got.Offset >= got.End {
			t.Errorf("%s: span %d..%d", tc.file, got.Offset, got.End)
		}
		line := strings.Count(text[:got.Offset], "\n") + 1
		if got.Line != line {
			t.Errorf("%s: line %d, want %d", tc.file, got.Line, line)
		}
	}
}

func TestDecodeDepthBound(t *testing.T) {
	text := seed(t, "base64.txt")
	if res := scan(t, New(&Options{MaxDecodeDepth: -1}), text); len(res.Detections) != 0 {
		t.Errorf("decoding disabled but found %v", res.Detections)
	}
}

func TestAllowCommentAndBaseline(t *testing.T) {
	key := []byte("k")
	s := New(&Options{FingerprintKey: key})
	text := "a=" + validGitHub + " # keysweep:allow\nb=" + validGitHub + "\n"
	res := scan(t, s, text)
	if len(res.Detections) != 1 || res.Suppressed != 1 || res.Detections[0].Line != 2 {
		t.Fatalf("allow comment: %+v", res)
	}
	bl := NewBaseline(res.Detections[0].Fingerprint)
	res2 := scan(t, New(&Options{FingerprintKey: key, Baseline: bl}), text)
	if len(res2.Detections) != 0 || res2.Suppressed != 2 {
		t.Errorf("baseline: %+v", res2)
	}
	res3 := scan(t, New(&Options{FingerprintKey: key, IgnoreAllowComments: true}), text)
	if len(res3.Detections) != 2 {
		t.Errorf("IgnoreAllowComments: %+v", res3)
	}
}

func TestBaselineRoundTrip(t *testing.T) {
	s := New(&Options{FingerprintKey: []byte("k")})
	res := scan(t, s, seed(t, "env.txt"))
	var buf strings.Builder
	if err := WriteBaseline(&buf, res.Detections); err != nil {
		t.Fatal(err)
	}
	bl, err := ReadBaseline(strings.NewReader(buf.String()))
	if err != nil {
		t.Fatal(err)
	}
	if bl.Len() != len(res.Detections) {
		t.Errorf("baseline holds %d, want %d", bl.Len(), len(res.Detections))
	}
	for _, bad := range []string{`{`, `{"version":"x","fingerprints":[]}`, `{"version":"keysweep-baseline/1","fingerprints":["nope"]}`} {
		_, err := ReadBaseline(strings.NewReader(bad))
		if errcode.CodeOf(err) != CodeInvalidBaseline {
			t.Errorf("%s: err %v", bad, err)
		}
	}
}

func TestDeterministicAndConcurrent(t *testing.T) {
	s := New(&Options{FingerprintKey: []byte("k")})
	var text strings.Builder
	for _, f := range []string{"env.txt", "base64.txt", "url.txt", "json.txt", "pem.txt", "decoys.txt"} {
		text.WriteString(seed(t, f))
	}
	want := scan(t, s, text.String())
	if len(want.Detections) < 5 {
		t.Fatalf("too few detections: %v", want.Detections)
	}
	for i := 1; i < len(want.Detections); i++ {
		if want.Detections[i].Offset < want.Detections[i-1].Offset {
			t.Fatal("not sorted by offset")
		}
	}
	var wg sync.WaitGroup
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			got, err := s.Scan(context.Background(), text.String())
			if err != nil {
				t.Error(err)
				return
			}
			if diff := cmp.Diff(want, got, cmp.AllowUnexported(Detection{}, secretValue{})); diff != "" {
				t.Errorf("concurrent scan differs:\n%s", diff)
			}
		}()
	}
	wg.Wait()
}

func TestCanceled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := New(nil).Scan(ctx, "x")
	if !errors.Is(err, ErrCanceled) {
		t.Errorf("err %v", err)
	}
}

func TestMaxDetections(t *testing.T) {
	var b strings.Builder
	for i := 0; i < 20; i++ {
		b.WriteString("t=" + validGitHub[:10] + strings.Repeat(string(rune('a'+i)), 1) + validGitHub[11:] + "\n")
	}
	res := scan(t, New(&Options{MaxDetections: 5}), b.String())
	if len(res.Detections) != 5 || !res.Truncated {
		t.Errorf("got %d truncated=%v", len(res.Detections), res.Truncated)
	}
}

func TestSummaryRiskConfidence(t *testing.T) {
	for _, tc := range []struct {
		name  string
		dets  []Detection
		risk  Severity
		score float64
	}{
		{"none", nil, SeverityNone, 0},
		{"low only", []Detection{{Type: "a", Severity: SeverityLow, Confidence: 0.8}}, SeverityLow, 0.8},
		{"low confidence still counts", []Detection{{Type: "a", Severity: SeverityCritical, Confidence: 0.3}}, SeverityCritical, 0.3},
		{"mixed", []Detection{{Type: "a", Severity: SeverityHigh, Confidence: 0.5}, {Type: "b", Severity: SeverityMedium, Confidence: 0.5}, {Type: "b", Severity: SeverityCritical, Confidence: 0.2}}, SeverityCritical, 0.8},
		{"identifiers set the risk but not the score", []Detection{{Type: "aws_arn", Family: FamilyIdentifier, Severity: SeverityLow, Confidence: 0.8}}, SeverityLow, 0},
		{"order does not matter", []Detection{{Type: "b", Severity: SeverityMedium, Confidence: 0.9}, {Type: "a", Severity: SeverityHigh, Confidence: 0.1}, {Type: "c", Severity: SeverityLow, Confidence: 0.9}}, SeverityHigh, 0.99},
	} {
		r := Result{Detections: tc.dets}
		if got := r.RiskLevel(); got != tc.risk {
			t.Errorf("%s: risk %v want %v", tc.name, got, tc.risk)
		}
		if got := r.ConfidenceScore(); got != tc.score {
			t.Errorf("%s: score %v want %v", tc.name, got, tc.score)
		}
	}
	sum := Result{Detections: []Detection{{Type: "a", Severity: SeverityHigh}, {Type: "a", Severity: SeverityLow}}}.Summarize()
	want := Summary{Total: 2, BySeverity: map[string]int{"low": 1, "medium": 0, "high": 1, "critical": 0}, ByType: map[string]int{"a": 2}}
	if diff := cmp.Diff(want, sum); diff != "" {
		t.Errorf("summary (-want +got):\n%s", diff)
	}
}

func TestRulesListing(t *testing.T) {
	rs := Rules()
	if len(rs) < 300 {
		t.Fatalf("%d rules", len(rs))
	}
	for i := 1; i < len(rs); i++ {
		if rs[i-1].ID >= rs[i].ID {
			t.Fatalf("not sorted at %s", rs[i].ID)
		}
	}
}

func TestHitCapSetsTruncated(t *testing.T) {
	if testing.Short() {
		t.Skip("3 MB input")
	}
	res := scan(t, New(nil), strings.Repeat("key", 1<<20+10))
	if !res.Truncated {
		t.Error("more than 1<<20 keyword hits should set Truncated")
	}
	if res := scan(t, New(nil), "t="+validGitHub); res.Truncated {
		t.Error("small input truncated")
	}
}

func TestLineTracker(t *testing.T) {
	text := "ab\nçd é\n\nxyz keysweep:allow\nlast"
	lt := newLineTracker(text)
	for _, tc := range []struct{ off, line, col int }{
		{0, 1, 1}, {1, 1, 2}, {3, 2, 1}, {5, 2, 2}, {strings.Index(text, "é"), 2, 4},
		{strings.Index(text, "xyz"), 4, 1}, {strings.Index(text, "last"), 5, 1}, {len(text), 5, 5},
	} {
		line, col := lt.at(tc.off)
		if line != tc.line || col != tc.col {
			t.Errorf("offset %d: %d:%d want %d:%d", tc.off, line, col, tc.line, tc.col)
		}
		if want := tc.line == 4; lt.allowed() != want {
			t.Errorf("offset %d: allowed %v", tc.off, !want)
		}
	}
}

// TestIdentifiersAreLowAndSkippable pins the split between password
// hashes (always reported: they can be cracked offline) and identifiers
// (reported as low unless Options.SkipIdentifiers).
func TestIdentifiersAreLowAndSkippable(t *testing.T) {
	const text = "hash: $2b$12$T4eBqWUmsEYefXa8/KwLI9VSElbWBTjDq7MajVh76poXgqZbndZBD\n" +
		`"Resource": "arn:aws:s3:::corp-sz09p1yf/*"` + "\n"
	for _, tc := range []struct {
		name string
		opts *Options
		want []string
	}{
		{"default", nil, []string{"bcrypt-hash", "aws-arn"}},
		{"skip identifiers", &Options{SkipIdentifiers: true}, []string{"bcrypt-hash"}},
	} {
		res := scan(t, New(tc.opts), text)
		var got []string
		for _, d := range res.Detections {
			got = append(got, d.RuleID)
		}
		if diff := cmp.Diff(tc.want, got); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tc.name, diff)
		}
		if r := res.RiskLevel(); r != SeverityLow {
			t.Errorf("%s: risk %v, want low", tc.name, r)
		}
	}
}
