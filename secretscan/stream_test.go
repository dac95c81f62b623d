package secretscan

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"strings"
	"testing"
	"unicode/utf16"

	"github.com/google/go-cmp/cmp"
)

const (
	pairText = "[default]\naws_access_key_id = AKIARASZ7FPJWAYR6KNT\naws_secret_access_key = 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\n"
)

// streamText is a long text with secrets on lines of varied length and
// width (multi-byte characters), so that window edges fall everywhere.
func streamText(n int) string {
	var b strings.Builder
	for i := 0; i < n; i++ {
		switch i % 7 {
		case 0:
			fmt.Fprintf(&b, "TOKEN=%s # ligne %d é€\n", validGitHub, i)
		case 3:
			b.WriteString(pairText)
		case 5:
			fmt.Fprintf(&b, "%s password = Zq8!rTx%dpLm3#vQ\n", strings.Repeat("ü", i%50), i)
		default:
			fmt.Fprintf(&b, "filler %s %d\n", strings.Repeat("x€", i%90), i)
		}
	}
	return b.String()
}

type detKey struct {
	Rule, FP            string
	Line, Col, Off, End int
	Parts               string
}

func keys(ds []Detection) []detKey {
	out := make([]detKey, len(ds))
	for i, d := range ds {
		out[i] = detKey{d.RuleID, d.Fingerprint, d.Line, d.Column, d.Offset, d.End, fmt.Sprint(d.Parts)}
	}
	return out
}

// A stream scanned in small windows gives what one Scan of the whole text
// gives: the same detections at the same lines, columns and offsets, each
// once, whatever the window edges cut.
func TestScanStreamMatchesScan(t *testing.T) {
	s := New(&Options{FingerprintKey: []byte("k")})
	text := streamText(400)
	want, err := s.Scan(context.Background(), text)
	if err != nil || len(want.Detections) < 100 {
		t.Fatalf("whole scan: %v, %d detections", err, len(want.Detections))
	}
	for _, block := range []int{4 << 10, 6000, 64 << 10} {
		got, n, err := s.scanStream(context.Background(), strings.NewReader(text), block, 2048, 512)
		if err != nil {
			t.Fatal(err)
		}
		if n != int64(len(text)) || got.TextLength != want.TextLength {
			t.Errorf("block %d: %d bytes, %d characters; want %d, %d", block, n, got.TextLength, len(text), want.TextLength)
		}
		if diff := cmp.Diff(keys(want.Detections), keys(got.Detections)); diff != "" {
			t.Errorf("block %d: detections differ (-whole +stream):\n%s", block, diff)
		}
	}
}

// Input far larger than any cap is read in bounded windows: a secret at
// its end is found, at its true line, and every byte is counted.
func TestScanStreamLargeInput(t *testing.T) {
	const filler = 6 << 20
	line := strings.Repeat("a", 99) + "\n"
	r := io.MultiReader(strings.NewReader(strings.Repeat(line, filler/100)), strings.NewReader("TOKEN="+validGitHub+"\n"))
	res, n, err := New(nil).ScanStream(context.Background(), r)
	if err != nil {
		t.Fatal(err)
	}
	if want := int64(filler/100*100 + len("TOKEN="+validGitHub+"\n")); n != want {
		t.Errorf("counted %d bytes, want %d", n, want)
	}
	if len(res.Detections) != 1 || res.Detections[0].Line != filler/100+1 || res.Detections[0].Column != 7 {
		t.Fatalf("detections: %v", res.Detections)
	}
}

func utf16Bytes(s string, bigEndian bool) []byte {
	var b bytes.Buffer
	if bigEndian {
		b.Write(bomUTF16BE)
	} else {
		b.Write(bomUTF16LE)
	}
	for _, u := range utf16.Encode([]rune(s)) {
		if bigEndian {
			b.WriteByte(byte(u >> 8))
			b.WriteByte(byte(u))
		} else {
			b.WriteByte(byte(u))
			b.WriteByte(byte(u >> 8))
		}
	}
	return b.Bytes()
}

// UTF-16 text with a byte order mark (what Windows tools write) is decoded
// and scanned, by the walk, ScanReader and ScanStream; it used to be
// skipped as binary for its NUL bytes.
func TestUTF16Decoded(t *testing.T) {
	text := "# réglages 😀\r\nTOKEN=" + validGitHub + "\r\n"
	s := New(nil)
	for _, be := range []bool{false, true} {
		data := utf16Bytes(text, be)
		root := writeTree(t, map[string]string{"win.ps1": string(data)})
		var got []Detection
		st, err := s.ScanDir(context.Background(), root, nil, func(fr FileResult) error {
			got = append(got, fr.Result.Detections...)
			return nil
		})
		if err != nil || len(got) != 1 || got[0].Line != 2 || got[0].Column != 7 || st.Skipped[SkipBinary] != 0 {
			t.Errorf("big endian %v: walk %v %v %v", be, err, got, st)
		}
		res, err := s.ScanReader(context.Background(), bytes.NewReader(data), 0)
		if err != nil || len(res.Detections) != 1 || res.Detections[0].Line != 2 {
			t.Errorf("big endian %v: reader %v %v", be, err, res.Detections)
		}
		res, n, err := s.ScanStream(context.Background(), bytes.NewReader(data))
		if err != nil || len(res.Detections) != 1 || res.Detections[0].Line != 2 || n != int64(len(data)) {
			t.Errorf("big endian %v: stream %v %v %d", be, err, res.Detections, n)
		}
	}
	// Decoding survives a surrogate pair cut by a read.
	d := strings16{}
	u := utf16Bytes("😀", false)[2:]
	d.decode(u[:2], false)
	d.decode(u[2:], false)
	if d.String() != "😀" {
		t.Errorf("split surrogate pair: %q", d.String())
	}
}

// An AWS key ID found with its secret is one finding, the pair, that
// locates both; the ID used to be reported a second time on its own.
func TestAWSPairReportedOnce(t *testing.T) {
	res := scan(t, New(nil), pairText)
	if len(res.Detections) != 1 {
		t.Fatalf("want the pair alone, got %v", res.Detections)
	}
	d := res.Detections[0]
	want := []Part{
		{Name: "key_id", Line: 2, Column: 21, Offset: 30, End: 50},
		{Name: "secret", Line: 3, Column: 25, Offset: 75, End: 115},
	}
	if d.RuleID != "aws-credential-pair" || d.Line != 3 || !cmp.Equal(d.Parts, want) {
		t.Errorf("pair: %v parts %+v", d, d.Parts)
	}
	// The ID alone is still reported.
	res = scan(t, New(nil), "aws_access_key_id = AKIARASZ7FPJWAYR6KNT\n")
	if len(res.Detections) != 1 || res.Detections[0].RuleID != "aws-access-key-id" || res.Detections[0].Parts != nil {
		t.Errorf("ID alone: %v", res.Detections)
	}
}

// A gitleaks:allow comment suppresses like keysweep:allow, so a
// repository that moves from gitleaks keeps its allowed lines.
func TestGitleaksAllowComment(t *testing.T) {
	text := "TOKEN=" + validGitHub + " # gitleaks:allow\nOTHER=" + validGitHub + "\n"
	res := scan(t, New(nil), text)
	if len(res.Detections) != 1 || res.Detections[0].Line != 2 || res.Suppressed != 1 {
		t.Errorf("%v, suppressed %d", res.Detections, res.Suppressed)
	}
	res = scan(t, New(&Options{IgnoreAllowComments: true}), text)
	if len(res.Detections) != 2 {
		t.Errorf("IgnoreAllowComments: %v", res.Detections)
	}
}

// A redactor keeps every span: with KeepPairParts the key ID is reported
// beside the pair.
func TestKeepPairParts(t *testing.T) {
	res := scan(t, New(&Options{KeepPairParts: true}), pairText)
	if len(res.Detections) != 2 || res.Detections[0].RuleID != "aws-access-key-id" || res.Detections[1].RuleID != "aws-credential-pair" {
		t.Errorf("%v", res.Detections)
	}
}
