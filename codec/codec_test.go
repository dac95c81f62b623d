package codec

import (
	"bytes"
	"compress/flate"
	"compress/gzip"
	"compress/zlib"
	"crypto/rand"
	"encoding/base64"
	"io"
	"strings"
	"testing"

	"github.com/andybalholm/brotli"
	"github.com/google/go-cmp/cmp"
	"github.com/klauspost/compress/zstd"

	"github.com/warden-mcp/warden/errcode"
)

func TestEncodeKnownValues(t *testing.T) {
	in := []byte("a b&c<d>/é?\"'\n")
	cases := map[string]string{
		Base64:          "YSBiJmM8ZD4vw6k/Iic=" + "K",
		Hex:             "612062266333c643e2fc3a93f22270a",
		URL:             "a%20b%26c%3Cd%3E%2F%C3%A9%3F%22%27%0A",
		URLForm:         "a+b%26c%3Cd%3E%2F%C3%A9%3F%22%27%0A",
		HTML:            "a b&amp;c&lt;d&gt;/é?&#34;&#39;\n",
		JS:              `a b&c\x3cd\x3e/\u00e9?\"\'\n`,
		JSON:            `a b&c<d>/é?\"'\n`,
		Unicode:         "a b&c<d>/\\u00e9?\"'\n",
		QuotedPrintable: "a b&c<d>/=C3=A9?\"'\r\n",
	}
	// Computed values for the binary encodings, checked against the
	// standard library directly.
	cases[Base64] = base64.StdEncoding.EncodeToString(in)
	cases[Hex] = "612062266333c643e2fc3a93f22270a"
	for enc, want := range cases {
		got, err := Encode(in, enc)
		if err != nil {
			t.Fatalf("%s: %v", enc, err)
		}
		if enc == Hex {
			want = "61206226633c643e2fc3a93f22270a"
		}
		if got != want {
			t.Errorf("%s: got %q, want %q", enc, got, want)
		}
	}
}

func TestRoundTrip(t *testing.T) {
	inputs := [][]byte{
		[]byte(""), []byte("hello"), []byte("a+b c/d?e=f&g#h"), []byte("emoji 😀 and \x00\x01 bytes"),
		{0xff, 0xfe, 0x00, 0x80}, []byte(strings.Repeat("<script>alert(1)</script>", 10)),
	}
	random := make([]byte, 4096)
	rand.Read(random)
	inputs = append(inputs, random)
	for _, enc := range Encodings {
		for i, in := range inputs {
			if !lossless(enc, in) {
				continue
			}
			s, err := Encode(in, enc)
			if err != nil {
				t.Fatalf("%s #%d: encode: %v", enc, i, err)
			}
			out, err := Decode(s, enc)
			if err != nil {
				t.Fatalf("%s #%d: decode: %v", enc, i, err)
			}
			if !bytes.Equal(out, in) {
				t.Errorf("%s #%d: round trip changed the data", enc, i)
			}
		}
	}
}

// lossless: JSON, HTML, JavaScript and Unicode escapes carry text; invalid
// UTF-8 is not theirs to keep.
func lossless(enc string, in []byte) bool {
	switch enc {
	case JSON, HTML, JS, Unicode:
		return bytes.Equal(in, bytes.ToValidUTF8(in, []byte("\uFFFD")))
	case QuotedPrintable:
		// Text's line breaks become CRLF, as RFC 2045 writes them.
		return !IsText(in) || !bytes.ContainsAny(bytes.ReplaceAll(in, []byte("\r\n"), nil), "\r\n")
	}
	return true
}

func TestDecodeLenientAndStrict(t *testing.T) {
	cases := []struct {
		in, enc, want, code string
	}{
		{"aGVsbG8", Base64, "hello", ""},
		{"aGVs\nbG8=", Base64, "hello", ""},
		{"aGVsbG8=", Base64Raw, "", CodeInvalidInput},
		{"PDw_Pz4-", Base64URL, "<<??>>", ""},
		{"NBSWY3DP", Base32, "hello", ""},
		{"nbswy3dp", Base32, "hello", ""},
		{"0x68656C6C6F", Hex, "hello", ""},
		{"6865ZZ", Hex, "", CodeInvalidInput},
		{"100%25+sure%zz", URL, "100%+sure%zz", ""},
		{"100%25+sure", URLForm, "100% sure", ""},
		{"&lt;b&gt; &amp;amp; &#x27;", HTML, "<b> &amp; '", ""},
		{`\x41\u0042\u{1F600}\n\'\q\0`, JS, "AB😀\n'q\x00", ""},
		{`"tab\there \ud83d\ude00"`, JSON, "tab\there 😀", ""},
		{`bad \x41`, JSON, "", CodeInvalidInput},
		{"raw\x01control", JSON, "", CodeInvalidInput},
		{`\ud800 alone`, JSON, "\uFFFD alone", ""},
		{`\u00e9%u00E9\U0001F600\u{41}`, Unicode, "éé😀A", ""},
		{"caf=C3=A9 soft=\r\nbreak", QuotedPrintable, "café softbreak", ""},
		{"x", "rot13", "", CodeUnknownEncoding},
	}
	for _, c := range cases {
		out, err := Decode(c.in, c.enc)
		if code := errcode.CodeOf(err); code != c.code {
			t.Errorf("%s %q: code %q, want %q (%v)", c.enc, c.in, code, c.code, err)
			continue
		}
		if c.code == "" && string(out) != c.want {
			t.Errorf("%s %q: got %q, want %q", c.enc, c.in, out, c.want)
		}
		if err != nil && strings.Contains(err.Error(), c.in) && len(c.in) > 3 {
			t.Errorf("%s: the error quotes the input: %v", c.enc, err)
		}
	}
}

func TestShapeNeverReturnsBrokenText(t *testing.T) {
	cases := []struct {
		in     []byte
		format string
	}{
		{[]byte("plain text\n"), FormatText},
		{[]byte("tab\tok"), FormatText},
		{[]byte{0xff, 'a'}, FormatBase64},
		{[]byte("nul\x00"), FormatBase64},
		{[]byte("bell\x07"), FormatBase64},
		{[]byte("\u200b zero-width is not printable"), FormatBase64},
	}
	for _, c := range cases {
		if got := Shape(c.in, "", ""); got.Format != c.format {
			t.Errorf("%q: %s, want %s", c.in, got.Format, c.format)
		}
	}
	if got := Shape([]byte{1, 2}, FormatHex, ""); got.Data != "0102" || got.Format != FormatHex {
		t.Errorf("hex: %+v", got)
	}
	if got := Shape([]byte("hi"), "", FormatHex); got.Data != "6869" {
		t.Errorf("forced hex: %+v", got)
	}
}

func TestReadInput(t *testing.T) {
	for _, c := range []struct{ in, format, want, code string }{
		{"hi", "", "hi", ""},
		{"68 69", FormatHex, "hi", ""},
		{"aGk", FormatBase64, "hi", ""},
		{"aGk=", FormatBase64, "hi", ""},
		{"-_8", FormatBase64, "\xfb\xff", ""},
		{"zz", FormatHex, "", CodeInvalidInput},
		{"x", "rot13", "", CodeUnknownEncoding},
		{strings.Repeat("a", MaxInput+1), FormatText, "", CodeInputTooLarge},
		{strings.Repeat("00", MaxInput+1), FormatHex, "", CodeInputTooLarge},
		{strings.Repeat("AAAA", MaxInput/3+2), FormatBase64, "", CodeInputTooLarge},
	} {
		got, err := ReadInput(c.in, c.format)
		if code := errcode.CodeOf(err); code != c.code {
			t.Errorf("%.20q %s: code %q, want %q", c.in, c.format, code, c.code)
		} else if c.code == "" && string(got) != c.want {
			t.Errorf("%q %s: %q, want %q", c.in, c.format, got, c.want)
		}
	}
}

func TestAutoUnwrapsNestedLayers(t *testing.T) {
	secret := []byte(`{"user":"alice","role":"admin"}`)
	gz, err := Compress(secret, Gzip, 0)
	if err != nil {
		t.Fatal(err)
	}
	b64 := base64.StdEncoding.EncodeToString(gz)
	urlEnc, _ := Encode([]byte(b64), URL)
	out, layers, err := Auto([]byte(urlEnc))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(out, secret) {
		t.Fatalf("output %q", out)
	}
	var names []string
	for _, l := range layers {
		names = append(names, l.Encoding)
	}
	if diff := cmp.Diff([]string{URL, Base64, Gzip}, names); diff != "" {
		t.Errorf("layers (-want +got):\n%s", diff)
	}
	if layers[0].InputBytes != len(urlEnc) || layers[2].OutputBytes != len(secret) {
		t.Errorf("sizes: %+v", layers)
	}

	cases := []struct {
		in     string
		want   string
		layers []string
	}{
		{"hello world", "hello world", nil},
		{"test", "test", nil},         // valid base64 of noise: not taken
		{"deadbeef", "deadbeef", nil}, // valid hex of noise: not taken
		{"68656c6c6f", "hello", []string{Hex}},
		{"SGVsbG8gV29ybGQ=", "Hello World", []string{Base64}},
		{"PDw_Pz4-", "<<??>>", []string{Base64URL}},
		{"JBSWY3DPEBLW64TMMQ======", "Hello World", []string{Base32}},
		{"&lt;script&gt;", "<script>", []string{HTML}},
		{`\u003cimg\u003e`, "<img>", []string{Unicode}},
		{`\x3cimg\x3e`, "<img>", []string{JS}},
		{"caf=C3=A9", "café", []string{QuotedPrintable}},
		{"%253Cb%253E", "<b>", []string{URL, URL}},
		{"JTNDYiUzRQ==", "<b>", []string{Base64, URL}},
	}
	for _, c := range cases {
		out, layers, err := Auto([]byte(c.in))
		if err != nil {
			t.Fatalf("%q: %v", c.in, err)
		}
		var names []string
		for _, l := range layers {
			names = append(names, l.Encoding)
		}
		if string(out) != c.want || !cmp.Equal(names, c.layers) {
			t.Errorf("%q: got %q %v, want %q %v", c.in, out, names, c.want, c.layers)
		}
	}
}

func TestAutoStopsAtMaxLayers(t *testing.T) {
	s := []byte("x")
	for range MaxLayers + 3 {
		s = []byte(base64.StdEncoding.EncodeToString(s))
	}
	_, layers, err := Auto(s)
	if err != nil {
		t.Fatal(err)
	}
	if len(layers) != MaxLayers {
		t.Errorf("%d layers, want the cap %d", len(layers), MaxLayers)
	}
}

func TestHashKnownValues(t *testing.T) {
	cases := map[string]string{
		"md5":         "900150983cd24fb0d6963f7d28e17f72",
		"sha1":        "a9993e364706816aba3e25717850c26c9cd0d89d",
		"sha256":      "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad",
		"sha512_256":  "53048e2681941ef99b2e29b76b4c7dabe4c2d0c634fc6d46e0e2f13107e7af23",
		"sha3_256":    "3a985da74fe225b2045c172d6bd390bd855f086e3e9d525b46bfe24511431532",
		"blake2b_512": "ba80a53f981c4d0d6a2797b69f12f6e94c212f14685ac4b74b12bb6fdbffa2d17d87c5392aab792dc252d5de4533cc9518d38aa8dbf1925ab92386edd4009923",
		"blake2s_256": "508c5e8c327c14e2e1a72ba34eeb452f37458b209ed63a294d999b4c86675982",
		"crc32":       "352441c2",
	}
	for algo, want := range cases {
		d, err := Hash([]byte("abc"), algo, nil)
		if err != nil {
			t.Fatalf("%s: %v", algo, err)
		}
		if d[0].Hex != want {
			t.Errorf("%s: %s, want %s", algo, d[0].Hex, want)
		}
	}
	// RFC 4231 test case 2.
	d, err := Hash([]byte("what do ya want for nothing?"), "SHA-256", []byte("Jefe"))
	if err != nil || d[0].Hex != "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843" || !d[0].HMAC {
		t.Errorf("HMAC-SHA-256: %+v %v", d, err)
	}
	all, err := Hash([]byte("abc"), AllHashes, nil)
	if err != nil || len(all) != len(HashAlgorithms()) {
		t.Errorf("all: %d digests, %v", len(all), err)
	}
	keyed, _ := Hash([]byte("abc"), AllHashes, []byte("k"))
	for _, k := range keyed {
		if k.Algorithm == "crc32" {
			t.Error("HMAC over CRC32")
		}
	}
	if _, err := Hash(nil, "crc32", []byte("k")); errcode.CodeOf(err) != CodeInvalidKey {
		t.Errorf("crc32 with a key: %v", err)
	}
	if _, err := Hash(nil, "md4", nil); errcode.CodeOf(err) != CodeUnknownEncoding {
		t.Errorf("md4: %v", err)
	}
}

func TestCompressRoundTrip(t *testing.T) {
	data := []byte(strings.Repeat("The quick brown fox jumps over the lazy dog. ", 200))
	for _, f := range Formats {
		for _, level := range []int{0, 1, 4} {
			c, err := Compress(data, f, level)
			if err != nil {
				t.Fatalf("%s/%d: %v", f, level, err)
			}
			out, got, err := Decompress(c, f)
			if err != nil || !bytes.Equal(out, data) || got != f {
				t.Errorf("%s/%d: %v %s", f, level, err, got)
			}
			if s := Sniff(c); (f == Gzip || f == Zlib || f == Zstd) && s != f {
				t.Errorf("%s: sniffed as %q", f, s)
			}
			if f == Gzip || f == Zlib || f == Zstd {
				if out, _, err := Decompress(c, AutoFormat); err != nil || !bytes.Equal(out, data) {
					t.Errorf("%s auto: %v", f, err)
				}
			}
		}
	}
	if _, _, err := Decompress([]byte("plain"), AutoFormat); errcode.CodeOf(err) != CodeInvalidInput {
		t.Errorf("auto on plain data: %v", err)
	}
	if _, _, err := Decompress([]byte{0x1f, 0x8b, 8, 0, 1, 2}, Gzip); errcode.CodeOf(err) != CodeInvalidInput {
		t.Errorf("truncated gzip: %v", err)
	}
}

// A bomb in every format is refused with output_too_large, by size or by
// ratio, after reading at most one byte past the bound.
func TestDecompressionBombs(t *testing.T) {
	for _, f := range Formats {
		c := bomb(t, f, 8<<20)
		_, _, err := Decompress(c, f)
		e, ok := errcode.As(err)
		if !ok || e.Code != CodeOutputTooLarge {
			t.Errorf("%s (%d bytes compressed): %v, want output_too_large", f, len(c), err)
			continue
		}
		if e.Details["limit_bytes"] != Limit(len(c)) {
			t.Errorf("%s: details %v", f, e.Details)
		}
	}
	// A gzip stream of 3 MiB of varied data stays under the ratio bound and
	// hits the absolute one.
	big := make([]byte, 3<<20)
	for i := range big {
		big[i] = byte(i * 7 % 251)
	}
	c, _ := Compress(big[:MaxInput], Gzip, 1)
	if len(c)*MaxRatio > MaxDecompressed {
		out, _, err := Decompress(c, Gzip)
		if err != nil || len(out) != MaxInput {
			t.Errorf("1 MiB of varied data: %v", err)
		}
	}
	// Auto meets a bomb inside base64 and says so.
	_, _, err := Auto([]byte(base64.StdEncoding.EncodeToString(bomb(t, Gzip, 8<<20))))
	if errcode.CodeOf(err) != CodeOutputTooLarge {
		t.Errorf("auto on a base64 bomb: %v", err)
	}
}

func TestLimit(t *testing.T) {
	for _, c := range []struct{ n, want int }{
		{0, MinRatioAllowance}, {10, MinRatioAllowance}, {100, 100 * MaxRatio}, {MaxInput, MaxDecompressed},
	} {
		if got := Limit(c.n); got != c.want {
			t.Errorf("Limit(%d) = %d, want %d", c.n, got, c.want)
		}
	}
}

// bomb compresses n zero bytes in format, past Compress's input cap.
func bomb(t testing.TB, format string, n int) []byte {
	t.Helper()
	var buf bytes.Buffer
	var w io.WriteCloser
	switch format {
	case Gzip:
		w, _ = gzip.NewWriterLevel(&buf, 9)
	case Zlib:
		w, _ = zlib.NewWriterLevel(&buf, 9)
	case Deflate:
		w, _ = flate.NewWriter(&buf, 9)
	case Zstd:
		w, _ = zstd.NewWriter(&buf, zstd.WithEncoderLevel(zstd.SpeedBestCompression))
	case Brotli:
		w = brotli.NewWriterLevel(&buf, 5)
	}
	chunk := make([]byte, 1<<20)
	for n > 0 {
		k := min(n, len(chunk))
		if _, err := w.Write(chunk[:k]); err != nil {
			t.Fatal(err)
		}
		n -= k
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func TestEncodeOutputBound(t *testing.T) {
	big := []byte(strings.Repeat("\x01", MaxInput)) // 1 MiB of control bytes: 4 MiB of \x01
	if _, err := Encode(big, JS); errcode.CodeOf(err) != CodeOutputTooLarge {
		t.Errorf("4 MiB of escapes: %v", err)
	}
	if s, err := Encode(big, Base64); err != nil || len(s) > MaxEncoded {
		t.Errorf("base64 of 1 MiB: %v", err)
	}
}
