package redact

import (
	"encoding/hex"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/warden-mcp/warden/internal/repotest"
	"github.com/warden-mcp/warden/privacy"
	"github.com/warden-mcp/warden/tool"
)

// Prefixed tokens, each a KeySweep positive on its own.
var gluedTokens = []string{
	ghToken,
	ghChecked,
	awsKeyID,
	slackBot,
	"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",
	"glpat-cpeviakntbffE1JPhZKQ",
	"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",
	"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",
}

// ghChecked is a GitHub token whose checksum holds (ghToken's does not).
const ghChecked = "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"

// checkedTokens are the gluedTokens whose rule checks a checksum or a
// structure: they are found with letters or digits glued to their end
// too, as in a binary's packed strings.
var checkedTokens = map[string]bool{ghChecked: true, awsKeyID: true, slackBot: true,
	"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": true}

// glueings put a token inside a longer word: after letters, digits,
// '_', stray characters, and inside an identifier on both sides.
var glueings = []struct{ before, after string }{
	{"abc", ""}, {"%zz", ""}, {"tok_", ""}, {"x", "_key"}, {"9", " rest"}, {"get_", "_value"},
}

// hidden reports whether no 8 consecutive characters of tok remain in s.
func hidden(s, tok string) bool {
	for i := 0; i+8 <= len(tok); i++ {
		if strings.Contains(s, tok[i:i+8]) {
			return false
		}
	}
	return true
}

// A token glued to the word before it is removed by the text pass, in
// free text, in a structured result's member names and values (a name
// such as tok_ghp_..., a strings listing) and in its text block, and in
// bytes (a string in a binary, read through hex); off keeps it.
func TestGluedTokensAreRemoved(t *testing.T) {
	for _, mode := range []Mode{Balanced, Strict} {
		r := newTest(t, mode)
		for _, tok := range gluedTokens {
			gs := glueings
			if checkedTokens[tok] {
				gs = append(gs[:len(gs):len(gs)], struct{ before, after string }{"", "UH"}, struct{ before, after string }{"%zz", "9abc"})
			}
			for _, g := range gs {
				word := g.before + tok + g.after
				in := "the name " + word + " is set"
				got, spans := r.Text(in)
				if !hidden(got, tok) || len(spans) == 0 {
					t.Errorf("%s: Text(%q) = %q", mode, in, got)
				}
				// What is glued after may read as more of the token
				// (glpat- tokens take '_'); what is glued before stays.
				if !strings.HasPrefix(got, "the name "+g.before+"[REDACTED:") || !strings.HasSuffix(got, " is set") {
					t.Errorf("%s: Text(%q) = %q: more than the token went", mode, in, got)
				}
				if r.Credential(word) == "" {
					t.Errorf("%s: Credential(%q) found nothing", mode, word)
				}
				doc := `{"items":[{"name":"` + word + `","address":"0x1000"},{"text":"` + in + `","encoding":"ascii"}],"` + word + `":1}`
				res := &tool.Result{Structured: []byte(doc), Content: []tool.Content{{Type: "text", Text: doc}, {Type: "text", Text: "annotation " + word}}}
				out, err := r.Result(res)
				if err != nil {
					t.Fatal(err)
				}
				if !hidden(string(out.Structured), tok) || !hidden(out.Content[0].Text, tok) || !hidden(out.Content[1].Text, tok) {
					t.Errorf("%s: Result kept %q: %s | %s", mode, word, out.Structured, out.Content[1].Text)
				}
				b := []byte("\x00\x01\x02" + word + "\x00\xff")
				if v := r.Field(privacy.Bytes, "bytes", hex.EncodeToString(b)); !hidden(string(decodedPieces(t, v)), tok) {
					t.Errorf("%s: bytes of %q: %s", mode, word, v)
				}
				if len(r.Bytes(b)) == 0 {
					t.Errorf("%s: Bytes(%q) found nothing", mode, word)
				}
			}
		}
	}
	off := newTest(t, Off)
	in := "tok_" + ghToken
	if got, _ := off.Text(in); got != in {
		t.Errorf("off: Text(%q) = %q", in, got)
	}
}

// decodedPieces decodes a hex rendering with markers: the hex between
// them, concatenated.
func decodedPieces(t *testing.T, s string) []byte {
	t.Helper()
	var out []byte
	for _, piece := range strings.Split(s, "[REDACTED:") {
		if i := strings.IndexByte(piece, ']'); i >= 0 && strings.Contains(s, "[REDACTED:") {
			piece = piece[i+1:]
		}
		b, err := hex.DecodeString(piece)
		if err != nil {
			t.Fatalf("%q does not decode: %v", piece, err)
		}
		out = append(out, b...)
	}
	return out
}

// Ordinary words and identifiers that hold a prefix-like piece glued to
// a word are not credentials, and the glued pass finds none (KeySweep's
// own rules read some of them, "cachekey-<hex>" as a generic key, as they
// do without it): a short prefix ("key-", "api-", "sk-")
// before a hash or a word, a distinctive prefix before something too
// short or of the wrong shape, upper-case constants.
func TestGluedPassKeepsOrdinaryIdentifiers(t *testing.T) {
	r := newTest(t, Strict)
	for _, in := range []string{
		"cachekey-0123456789abcdef0123456789abcdef",
		"myapi-d41d8cd98f00b204e9800998ecf8427e",
		"risk-management-framework-v2",
		"disk-proj-settings-for-the-build-farm-2024",
		"get_secret_value_for_the_current_principal_1234567890",
		"golive_20240101_release_candidate_build_artifacts",
		"trackghp_short",
		"fetchghp_tokens_from_the_environment_variable_list",
		"MAX_AKIA_LENGTH_CONSTANT",
		"sub_401000",
		"runtime.gcBgMarkWorker",
		"github.com/user/repo/internal/pkg.(*Type).Method",
		"pipeline_glpat-rotation_job",
		"dockerhub_pat_expiry_days",
		"_ZN4core3fmt9Formatter9write_str17h7f1e9c4b0a2d3e5fE",
	} {
		if cuts := r.gluedCuts(nil, nil, in, 0); len(cuts) != 0 {
			t.Errorf("the glued pass cuts %q: %+v", in, cuts)
		}
	}
}

// A string of nothing but glued prefixes does not cost a kilobyte's
// scan for every few bytes: past its budget the rest is removed
// unscanned, and the pass still ends.
func TestGluedPassIsBounded(t *testing.T) {
	r := newTest(t, Balanced)
	in := strings.Repeat("aghp_", 40000)
	got, _ := r.Text(in)
	if len(got) >= len(in) || !strings.Contains(got, UnscannedMarker) {
		t.Errorf("Text of %d glued prefixes: %d bytes, unscanned marker %v", 40000, len(got), strings.Contains(got, UnscannedMarker))
	}
}

// The glued pass on real text finds nothing where nothing is: the
// negatives of the shared example sets (beyond what KeySweep's main pass
// finds there), and the text of a large real
// binary full of identifiers and packed string literals (the go command
// this test runs under).
func TestGluedPassOnRealText(t *testing.T) {
	r := newTest(t, Balanced)
	neg := 0
	for _, s := range corpusExamples(t, "negative") {
		neg++
		// What the main pass finds (KeySweep's few noisy negatives) the
		// glued pass leaves to it.
		res, err := r.scanner.Scan(t.Context(), s)
		if err != nil {
			t.Fatal(err)
		}
		var main []cut
		for i := range res.Detections {
			d := &res.Detections[i]
			main = append(main, cut{start: int32(d.Offset), end: int32(d.End), typ: d.Type})
		}
		if cuts := r.gluedCuts(main, nil, s, 0); len(cuts) != len(main) {
			t.Errorf("a negative example: the glued pass cuts %+v in %.200q", cuts[len(main):], s)
		}
	}
	if neg < 100 {
		t.Errorf("only %d negatives read", neg)
	}
	bin, err := exec.LookPath("go")
	if err != nil {
		t.Skipf("no go binary to read: %v", err)
	}
	b, err := os.ReadFile(bin)
	if err != nil {
		t.Skipf("no go binary to read: %v", err)
	}
	v := textView(b)
	for _, c := range r.gluedCuts(nil, nil, v, 0) {
		t.Errorf("the go binary: the glued pass cuts %s at %q", c.typ, v[max(0, int(c.start)-16):c.end])
	}
}

// corpusExamples returns the texts of the shared example sets of one
// kind (positive or negative).
func corpusExamples(t testing.TB, kind string) []string {
	t.Helper()
	files, _ := filepath.Glob(filepath.Join(repotest.Root(t), "..", "shared", "data", "*.jsonl"))
	if len(files) == 0 {
		t.Skip("shared test data not found")
	}
	var out []string
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for l := range strings.SplitSeq(string(data), "\n") {
			var e struct{ Kind, Text string }
			if l == "" {
				continue
			}
			if err := json.Unmarshal([]byte(l), &e); err != nil {
				t.Fatalf("%s: %v", f, err)
			}
			if e.Kind == kind {
				out = append(out, e.Text)
			}
		}
	}
	return out
}
