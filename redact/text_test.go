package redact

import (
	"encoding/base64"
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/warden-mcp/warden/secretscan"
)

// Credentials the tests plant. Each is a known KeySweep positive.
const (
	ghToken  = "ghp_XIxB7KMNdAr3zqWtQqhE94qglHqOzn1D1stg"
	awsKeyID = "AKIAZ3MSJV4WWNKWW5FG"
	jwt      = "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U"
	slackBot = "xoxb-893582989554-899326518131-JRHeVv1o9Cf99fwDpuortR2D"
	bcrypt   = "$2a$10$N9qo8uLOickgx2ZMRZoMyeIjZAgcfl7p92ldGxad68LJZdL17lhWy"
	awsARN   = "arn:aws:iam::123456789012:role/Admin"
)

func TestTextRedactsCredentials(t *testing.T) {
	for _, mode := range []Mode{Balanced, Strict} {
		r := newTest(t, mode)
		for _, c := range []struct{ in, want string }{
			{"token " + ghToken + " for user_id=12345",
				"token [REDACTED:github_personal_access_token] for user_id=12345"},
			{"Authorization: Bearer " + jwt,
				"Authorization: Bearer [REDACTED:json_web_token]"},
			{"aws_access_key_id = " + awsKeyID + "\nregion = us-east-1",
				"aws_access_key_id = [REDACTED:aws_access_key_id]\nregion = us-east-1"},
			{`{"password": "Sup3rS3cret!", "user": "alice"}`,
				`{"password": "[REDACTED:password]", "user": "alice"}`},
			{"SLACK=" + slackBot + " ok", "SLACK=[REDACTED:slack_bot_token] ok"},
			{"hash " + bcrypt, "hash [REDACTED:password_hash]"},
			{"postgres://app:Xk29vLq0pwz@db.internal:5432/app", ""}, // the password goes, checked below
			{"ünïcödé " + ghToken + " ✓", "ünïcödé [REDACTED:github_personal_access_token] ✓"},
		} {
			got, spans := r.Text(c.in)
			if c.want == "" {
				if strings.Contains(got, "Xk29vLq0pwz") || len(spans) == 0 {
					t.Errorf("%s Text(%q) = %q, %v", mode, c.in, got, spans)
				}
				continue
			}
			if got != c.want {
				t.Errorf("%s Text(%q)\n got %q\nwant %q", mode, c.in, got, c.want)
			}
			for _, s := range spans {
				if s.Start < 0 || s.End > len(c.in) || s.Start >= s.End || s.Length <= 0 || !strings.HasPrefix(s.Fingerprint, "ks1_") {
					t.Errorf("%s Text(%q): bad span %+v", mode, c.in, s)
				}
			}
		}
	}
}

// The spans say where the input held each credential and never what.
func TestTextSpans(t *testing.T) {
	r := newTest(t, Balanced)
	in := "a " + ghToken + " b " + awsKeyID
	_, spans := r.Text(in)
	want := []Span{
		{Type: "github_personal_access_token", Family: "vcs", Start: 2, End: 2 + len(ghToken), Length: len(ghToken)},
		{Type: "aws_access_key_id", Family: "cloud", Start: len(in) - len(awsKeyID), End: len(in), Length: len(awsKeyID)},
	}
	if diff := cmp.Diff(want, spans, cmpIgnoreFingerprint); diff != "" {
		t.Errorf("spans (-want +got):\n%s", diff)
	}
	b, _ := json.Marshal(spans)
	if strings.Contains(string(b), ghToken) || strings.Contains(string(b), awsKeyID) {
		t.Errorf("a span carries its value: %s", b)
	}
}

var cmpIgnoreFingerprint = cmp.FilterPath(func(p cmp.Path) bool {
	return p.Last().String() == ".Fingerprint"
}, cmp.Ignore())

// Over-redaction is a bug too: what is not a credential survives, beside
// a credential or alone.
func TestTextKeepsWhatIsNotACredential(t *testing.T) {
	keep := []string{
		"request 550e8400-e29b-41d4-a716-446655440000 failed",
		`"request_id":"550e8400-e29b-41d4-a716-446655440000"`,
		"sha256 e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
		`"sha256":"e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"`,
		`"commit":"a3f1c2d4e5b6a7c8d9e0f1a2b3c4d5e6f7a8b9c0"`,
		"md5 d41d8cd98f00b204e9800998ecf8427e",
		"https://example.com/path/to/page?x=1&y=2#top",
		"https://user@example.com/",
		"Content-Type: application/json; charset=utf-8",
		"Server: nginx/1.25.3",
		"SGVsbG8sIFdvcmxkISBUaGlzIGlzIGp1c3QgdGV4dC4=",
		"password: ",
		`"password": ""`,
		"the password field is required",
		"token_type=bearer expires_in=3600",
		"user_id=12345 session_count=3",
		"ETag: W/\"33a64df551425fcc55e4d42a148795d9f25f89d4\"",
		"-----BEGIN PUBLIC KEY-----",
		"[REDACTED:github_personal_access_token] [REDACTED:password] REDACTED",
		"host-3f9a1c2b7d00.invalid user-3f9a1c2b7d00@host-3f9a1c2b7d00.invalid",
	}
	for _, mode := range []Mode{Balanced, Strict} {
		r := newTest(t, mode)
		keep := keep
		if mode == Strict { // identities go in Strict (TestStrictFreeText)
			keep = slices.DeleteFunc(slices.Clone(keep), func(s string) bool { return strings.Contains(s, "example.com") })
		}
		for _, s := range keep {
			if got, spans := r.Text(s); got != s || spans != nil {
				t.Errorf("%s Text(%q) = %q, %v; want it kept", mode, s, got, spans)
			}
		}
		// Beside a credential, the neighbours survive whole.
		for _, s := range keep {
			in := s + " " + ghToken + " " + s
			want := s + " [REDACTED:github_personal_access_token] " + s
			if got, _ := r.Text(in); got != want {
				t.Errorf("%s Text(%q)\n got %q\nwant %q", mode, in, got, want)
			}
		}
	}
}

// Identifiers name things without opening them: Balanced keeps them,
// Strict does not.
func TestTextIdentifiers(t *testing.T) {
	in := "role " + awsARN
	if got, _ := newTest(t, Balanced).Text(in); got != in {
		t.Errorf("Balanced Text(%q) = %q", in, got)
	}
	if got, _ := newTest(t, Strict).Text(in); got != "role [REDACTED:aws_arn]" {
		t.Errorf("Strict Text(%q) = %q", in, got)
	}
}

func TestTextOffAndIdempotent(t *testing.T) {
	in := "k=" + ghToken + "\n" + jwt + "\n" + `{"password":"Sup3rS3cret!"}`
	if got, spans := newTest(t, Off).Text(in); got != in || spans != nil {
		t.Errorf("Off Text = %q, %v", got, spans)
	}
	for _, mode := range []Mode{Balanced, Strict} {
		r := newTest(t, mode)
		once, _ := r.Text(in)
		if twice, spans := r.Text(once); twice != once || spans != nil {
			t.Errorf("%s Text not idempotent: %q -> %q %v", mode, once, twice, spans)
		}
	}
}

// A credential found under an encoding (base64, percent-encoding) goes
// with its whole encoded span.
func TestTextEncoded(t *testing.T) {
	r := newTest(t, Balanced)
	enc := base64.StdEncoding.EncodeToString([]byte("export GITHUB_TOKEN=" + ghToken + "\n"))
	got, spans := r.Text("config: " + enc + " end")
	if got != "config: [REDACTED:github_personal_access_token] end" || len(spans) != 1 {
		t.Errorf("Text(base64) = %q, %v", got, spans)
	}
}

// "keysweep:allow" is for source code; a tool's output cannot opt out.
func TestTextIgnoresAllowComments(t *testing.T) {
	r := newTest(t, Balanced)
	in := ghToken + " # keysweep:allow"
	if got, _ := r.Text(in); got != "[REDACTED:github_personal_access_token] # keysweep:allow" {
		t.Errorf("Text(%q) = %q", in, got)
	}
}

// A caller's scanner decides what the pass redacts: its baseline
// suppresses accepted findings.
func TestTextCustomScanner(t *testing.T) {
	key := []byte("fp-key")
	probe := secretscan.New(&secretscan.Options{FingerprintKey: key})
	base := secretscan.NewBaseline(probe.Fingerprint(ghToken))
	r, err := New(&Options{Scanner: secretscan.New(&secretscan.Options{FingerprintKey: key, Baseline: base})})
	if err != nil {
		t.Fatal(err)
	}
	in := ghToken + " " + awsKeyID
	if got, _ := r.Text(in); got != ghToken+" [REDACTED:aws_access_key_id]" {
		t.Errorf("Text(%q) = %q", in, got)
	}
}

func TestApplyCutsKeepsWholeCharacters(t *testing.T) {
	s := "aé€b"
	// A cut that starts and ends inside multi-byte characters takes them whole.
	got := applyCuts(s, []cut{{start: 2, end: 4, typ: "x"}})
	if got != "a[REDACTED:x]b" {
		t.Errorf("applyCuts = %q", got)
	}
	// Overlapping cuts merge.
	got = applyCuts("0123456789", []cut{{start: 5, end: 8, typ: "b"}, {start: 1, end: 6, typ: "a"}})
	if got != "0[REDACTED:a]89" {
		t.Errorf("applyCuts = %q", got)
	}
}
