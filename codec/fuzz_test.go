package codec

import (
	"bytes"
	"encoding/base64"
	"testing"
	"unicode/utf8"
)

// Seeds: every encoding of a few strings, nested layers and compressed
// data, as a tester would paste them.
func seeds(f *testing.F, add func(s string)) {
	for _, s := range []string{"", "hello", "<script>alert(1)</script>", "a=1&b=%41%zz", `\u00e9\x41\u{1F600}`,
		"caf=C3=A9=\r\n", "&lt;&#x41;&amp;", "JTNDYiUzRQ==", "H4sIAAAAAAAA/w==", "NBSWY3DP", "68656c6c6f"} {
		add(s)
		for _, enc := range Encodings {
			e, _ := Encode([]byte(s), enc)
			add(e)
		}
	}
	for _, f := range Formats {
		c, _ := Compress([]byte("compressed seed data, compressed seed data"), f, 0)
		add(string(c))
		add(base64.StdEncoding.EncodeToString(c))
	}
}

func FuzzDecode(f *testing.F) {
	seeds(f, func(s string) { f.Add(s) })
	f.Fuzz(func(t *testing.T, s string) {
		for _, enc := range Encodings {
			out, err := Decode(s, enc)
			if err != nil {
				continue
			}
			if len(out) > len(s) && enc != HTML {
				t.Fatalf("%s: decoding grew %d bytes to %d", enc, len(s), len(out))
			}
			if enc == JSON || enc == Unicode || enc == JS {
				if utf8.ValidString(s) && !utf8.Valid(out) {
					t.Fatalf("%s: valid UTF-8 decoded to invalid UTF-8", enc)
				}
			}
		}
	})
}

func FuzzAuto(f *testing.F) {
	seeds(f, func(s string) { f.Add([]byte(s)) })
	f.Fuzz(func(t *testing.T, b []byte) {
		out, layers, err := Auto(b)
		if err != nil {
			return
		}
		if len(layers) > MaxLayers {
			t.Fatalf("%d layers", len(layers))
		}
		if len(layers) == 0 && !bytes.Equal(out, b) {
			t.Fatal("no layer removed, yet the output differs")
		}
		if len(out) > MaxDecompressed {
			t.Fatalf("output of %d bytes", len(out))
		}
		for i := 1; i < len(layers); i++ {
			if layers[i].InputBytes != layers[i-1].OutputBytes {
				t.Fatalf("layer sizes do not chain: %+v", layers)
			}
		}
	})
}

func FuzzDecompress(f *testing.F) {
	seeds(f, func(s string) { f.Add([]byte(s)) })
	f.Fuzz(func(t *testing.T, b []byte) {
		for _, format := range append([]string{AutoFormat}, Formats...) {
			out, _, err := Decompress(b, format)
			if err == nil && len(out) > Limit(len(b)) {
				t.Fatalf("%s: %d bytes out of %d in, over the limit", format, len(out), len(b))
			}
		}
	})
}

func FuzzEncodeRoundTrip(f *testing.F) {
	seeds(f, func(s string) { f.Add([]byte(s)) })
	f.Fuzz(func(t *testing.T, b []byte) {
		for _, enc := range Encodings {
			if !lossless(enc, b) {
				continue
			}
			s, err := Encode(b, enc)
			if err != nil {
				t.Fatal(err)
			}
			out, err := Decode(s, enc)
			if err != nil || !bytes.Equal(out, b) {
				t.Fatalf("%s: round trip failed: %v", enc, err)
			}
		}
	})
}
