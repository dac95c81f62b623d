package toolset

import (
	"bytes"
	"compress/gzip"
	"encoding/base64"
	"encoding/json"
	"strings"
	"testing"

	"github.com/warden-mcp/warden/tool/tooltest"
)

// utilSamples are valid calls of every util_ tool, for the author harness.
var utilSamples = map[string][]string{
	"util_encode":      {`{"input":"a b","encoding":"url"}`, `{"input":"/w==","input_format":"base64","encoding":"hex"}`},
	"util_decode":      {`{"input":"SGVsbG8="}`, `{"input":"/w==","encoding":"base64","binary_format":"hex"}`},
	"util_hash":        {`{"input":"abc"}`, `{"input":"abc","algorithm":"all","key":"k"}`},
	"util_jwt_inspect": {`{"token":"eyJhbGciOiJub25lIn0.eyJzdWIiOiJhIn0."}`},
	"util_compress":    {`{"input":"hello hello hello","format":"zstd"}`},
	"util_decompress":  {`{"input":"H4sIAAAAAAAA/8pIzcnJBwQAAP//hqYQNgUAAAA="}`},
	"http_parse":       {"{\"raw\":\"GET /?a=1 HTTP/1.1\\r\\nHost: x\\r\\nCookie: s=1\\r\\n\\r\\n\"}"},
}

func TestUtilToolsPassTheHarness(t *testing.T) {
	tooltest.Check(t, registryWith(t, Deps{}), &tooltest.Options{Samples: utilSamples, RequirePrivacy: true})
}

func TestUtilCatalog(t *testing.T) {
	reg := registryWith(t, Deps{})
	for _, name := range []string{"util_encode", "util_decode", "util_hash", "util_jwt_inspect", "util_compress", "util_decompress", "http_parse"} {
		tl, ok := reg.Lookup(name)
		if !ok {
			t.Fatalf("%s not registered", name)
		}
		if tl.Catalog.Trust != "auto" || tl.Catalog.Unsafe || tl.Catalog.ConsumesQuota || !tl.Annotations.ReadOnly ||
			tl.Annotations.OpenWorld || tl.Annotations.Destructive || !tl.Annotations.Idempotent {
			t.Errorf("%s: catalog %+v annotations %+v", name, tl.Catalog, tl.Annotations)
		}
	}
}

func call(t *testing.T, name, args string) json.RawMessage {
	t.Helper()
	return structured(t, privacyServer(t, registryWith(t, Deps{}), "off")(name, args))
}

func TestUtilEncodeDecode(t *testing.T) {
	var enc EncodeResult
	json.Unmarshal(call(t, "util_encode", `{"input":"<a href='x'>","encoding":"html"}`), &enc)
	if enc.Output != "&lt;a href=&#39;x&#39;&gt;" || enc.InputBytes != 12 {
		t.Errorf("encode: %+v", enc)
	}
	var dec DecodeResult
	json.Unmarshal(call(t, "util_decode", `{"input":"JTNDYiUzRQ=="}`), &dec)
	if dec.Output != "<b>" || dec.OutputFormat != "text" || len(dec.Layers) != 2 || dec.Layers[0].Encoding != "base64" || dec.Layers[1].Encoding != "url" {
		t.Errorf("auto: %+v", dec)
	}
	json.Unmarshal(call(t, "util_decode", `{"input":"AP8=","encoding":"base64","binary_format":"hex"}`), &dec)
	if dec.Output != "00ff" || dec.OutputFormat != "hex" || dec.OutputBytes != 2 {
		t.Errorf("binary: %+v", dec)
	}
	srv := privacyServer(t, registryWith(t, Deps{}), "off")
	for args, code := range map[string]string{
		`{"input":"x","encoding":"rot13"}`:                                  "invalid_params",
		`{"input":"zz","encoding":"hex"}`:                                   "invalid_input",
		`{"input":"` + strings.Repeat("a", 2<<20+1) + `"}`:                  "input_too_large",
		`{"input":"` + strings.Repeat("a", 1<<20+1) + `","encoding":"hex"}`: "invalid_input",
	} {
		if got := errorCode(srv("util_decode", args)); got != code {
			t.Errorf("%.50s: %q, want %q", args, got, code)
		}
	}
	if got := errorCode(srv("util_decode", `{"input":"`+strings.Repeat("a", 1<<20+1)+`"}`)); got != "input_too_large" {
		t.Errorf("auto over 1 MiB: %q", got)
	}
}

func TestUtilHashAndCompress(t *testing.T) {
	var h HashResult
	json.Unmarshal(call(t, "util_hash", `{"input":"abc","algorithm":"md5"}`), &h)
	if len(h.Digests) != 1 || h.Digests[0].Hex != "900150983cd24fb0d6963f7d28e17f72" {
		t.Errorf("md5: %+v", h)
	}
	var c CompressResult
	json.Unmarshal(call(t, "util_compress", `{"input":"`+strings.Repeat("abc", 1000)+`","format":"brotli","level":11}`), &c)
	if c.InputBytes != 3000 || c.OutputBytes == 0 || c.Ratio < 10 {
		t.Errorf("compress: %+v", c)
	}
	var d DecompressResult
	json.Unmarshal(call(t, "util_decompress", `{"input":"`+c.Output+`","format":"brotli"}`), &d)
	if d.Output != strings.Repeat("abc", 1000) || d.Format != "brotli" {
		t.Errorf("decompress: %.60s %s", d.Output, d.Format)
	}
}

// A decompression bomb gets output_too_large through the tool, from both
// util_decompress and util_decode's auto mode.
func TestUtilBomb(t *testing.T) {
	var buf bytes.Buffer
	w, _ := gzip.NewWriterLevel(&buf, 9)
	zeros := make([]byte, 1<<20)
	for range 16 {
		w.Write(zeros)
	}
	w.Close()
	b64 := base64.StdEncoding.EncodeToString(buf.Bytes())
	srv := privacyServer(t, registryWith(t, Deps{}), "off")
	for _, c := range []struct{ name, args string }{
		{"util_decompress", `{"input":"` + b64 + `"}`},
		{"util_decode", `{"input":"` + b64 + `"}`},
	} {
		resp := srv(c.name, c.args)
		if got := errorCode(resp); got != "output_too_large" {
			t.Errorf("%s: %q, want output_too_large: %.300s", c.name, got, resp)
		}
	}
}

const ghToken = "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"

// The privacy mode on the bytes a client reads: a credential that decoding
// reveals is removed in balanced and strict and kept byte for byte in off,
// and the text around it survives.
func TestUtilDecodePrivacy(t *testing.T) {
	srv := servers(t, registryWith(t, Deps{}))
	in := base64.StdEncoding.EncodeToString([]byte("deploy note: token=" + ghToken + " for ci"))
	args := `{"input":"` + in + `"}`
	for mode, call := range srv {
		resp := call("util_decode", args)
		has := bytes.Contains(resp, []byte(ghToken))
		if mode == "off" != has {
			t.Errorf("%s: token present=%v", mode, has)
		}
		if !bytes.Contains(resp, []byte("deploy note: token=")) || !bytes.Contains(resp, []byte(" for ci")) {
			t.Errorf("%s: the text around the token is gone: %.400s", mode, resp)
		}
	}
	// off changes nothing: the response equals the one of a server with
	// no privacy pass at all.
	reg := registryWith(t, Deps{})
	plain := structured(t, privacyServer(t, reg, "off")("util_decode", args))
	var dec DecodeResult
	json.Unmarshal(plain, &dec)
	if dec.Output != "deploy note: token="+ghToken+" for ci" {
		t.Errorf("off: %q", dec.Output)
	}
}

// The HMAC key never leaves, in any mode; the digest always does.
func TestUtilHashNeverEchoesTheKey(t *testing.T) {
	key := "hmac-key-ZX81spectrum"
	for mode, call := range servers(t, registryWith(t, Deps{})) {
		resp := call("util_hash", `{"input":"msg","algorithm":"all","key":"`+key+`"}`)
		if bytes.Contains(resp, []byte(key)) {
			t.Errorf("%s: the key is in the response", mode)
		}
		if !bytes.Contains(resp, []byte(`"hmac":true`)) {
			t.Errorf("%s: no HMAC digest: %.300s", mode, resp)
		}
	}
}

// Compressed output holds nothing the privacy mode removes, and every mode
// returns it whole.
func TestUtilCompressPrivacy(t *testing.T) {
	var outs []string
	for _, mode := range []string{"off", "balanced", "strict"} {
		var c CompressResult
		json.Unmarshal(structured(t, privacyServer(t, registryWith(t, Deps{}), mode)("util_compress", `{"input":"token=`+ghToken+`","format":"zlib"}`)), &c)
		outs = append(outs, c.Output)
	}
	if outs[0] != outs[1] || outs[1] != outs[2] || outs[0] == "" {
		t.Errorf("modes disagree on compressed bytes: %q", outs)
	}
}

func TestUtilJWTPrivacy(t *testing.T) {
	header := base64.RawURLEncoding.EncodeToString([]byte(`{"alg":"HS256","typ":"JWT","jku":"https://keys.example.com/jwks?sig=abc123"}`))
	claims := base64.RawURLEncoding.EncodeToString([]byte(`{"sub":"user-42","email":"alice@example.com","refresh_token":"rt-9f8e7d6c","role":"admin"}`))
	sig := "c2lnbmF0dXJlLWJ5dGVzLXRoYXQtYXJlLXNlY3JldA"
	args := `{"token":"` + header + "." + claims + "." + sig + `"}`
	for mode, call := range servers(t, registryWith(t, Deps{})) {
		resp := call("util_jwt_inspect", args)
		for _, s := range []string{sig, "rt-9f8e7d6c", "abc123"} {
			if bytes.Contains(resp, []byte(s)) != (mode == "off") {
				t.Errorf("%s: %s present=%v", mode, s, bytes.Contains(resp, []byte(s)))
			}
		}
		if bytes.Contains(resp, []byte("alice@example.com")) != (mode != "strict") {
			t.Errorf("%s: email handling wrong", mode)
		}
		for _, keep := range []string{`"user-42"`, `"admin"`, "alg_hmac", "jku_present", "keys.example.com"} {
			if mode == "strict" && keep == "keys.example.com" {
				continue
			}
			if !bytes.Contains(resp, []byte(keep)) {
				t.Errorf("%s: %s is gone: %.500s", mode, keep, resp)
			}
		}
	}
}

// util_encode and util_decompress on the bytes: a credential their output
// carries goes in balanced and strict, stays in off, and the text around
// it survives.
func TestUtilEncodeAndDecompressPrivacy(t *testing.T) {
	var buf bytes.Buffer
	w := gzip.NewWriter(&buf)
	w.Write([]byte("ci secret: token=" + ghToken + " (rotate monthly)"))
	w.Close()
	gz := base64.StdEncoding.EncodeToString(buf.Bytes())
	for mode, call := range servers(t, registryWith(t, Deps{})) {
		for _, c := range []struct{ name, args, keep string }{
			// (A credential inside a URL-encoded output goes with the whole
			// encoded string: KeySweep finds it in the decoded layer.)
			{"util_encode", `{"input":"<b>note: token=` + ghToken + ` (rotate)</b>","encoding":"html"}`, `\u0026lt;b\u0026gt;note: token=`},
			{"util_decompress", `{"input":"` + gz + `"}`, "(rotate monthly)"},
		} {
			resp := call(c.name, c.args)
			if bytes.Contains(resp, []byte(ghToken)) != (mode == "off") {
				t.Errorf("%s %s: token present=%v", mode, c.name, mode != "off")
			}
			if !bytes.Contains(resp, []byte(c.keep)) {
				t.Errorf("%s %s: %q is gone: %.400s", mode, c.name, c.keep, resp)
			}
		}
	}
}
