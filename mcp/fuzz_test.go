package mcp_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"golang.org/x/tools/txtar"

	"github.com/warden-mcp/warden/mcp"
)

// Fuzz targets for the codec and for the HTTP handler as a whole. Seeds
// come from testdata/fuzz/*.txtar; crashers the fuzzer finds land in
// testdata/fuzz/<Target>/ and are replayed by plain go test.
//
//	go test ./mcp -run '^$' -fuzz FuzzParseMessage -fuzztime 60s
//	go test ./mcp -run '^$' -fuzz FuzzHTTPHandler -fuzztime 60s
//	go test ./mcp -run '^$' -fuzz FuzzStdio -fuzztime 60s

func readSeeds(f *testing.F, name string) []txtar.File {
	f.Helper()
	ar, err := txtar.ParseFile(filepath.Join("testdata", "fuzz", name))
	if err != nil {
		f.Fatal(err)
	}
	if len(ar.Files) == 0 {
		f.Fatalf("%s has no seeds", name)
	}
	return ar.Files
}

func FuzzParseMessage(f *testing.F) {
	for _, s := range readSeeds(f, "messages.txtar") {
		f.Add(bytes.TrimSpace(s.Data))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		m, err := mcp.ParseMessage(b)
		if err != nil {
			switch err.Code {
			case mcp.CodeParseError, mcp.CodeInvalidRequest:
			default:
				t.Fatalf("codec error with code %d: %v", err.Code, err)
			}
			if err.Message == "" {
				t.Fatal("codec error without a message")
			}
			if m != nil && m.ID != nil && !json.Valid(m.ID) {
				t.Fatalf("error carries an id that is not JSON: %q", m.ID)
			}
			return
		}
		if m == nil {
			t.Fatal("nil message without an error")
		}
		// Whatever the codec accepts, a reference decoder accepts too,
		// and agrees on what it is.
		if !utf8.Valid(b) || !json.Valid(b) {
			t.Fatalf("accepted invalid input %q", b)
		}
		// The reference reads member names exactly (case-sensitive,
		// escapes resolved), as JSON defines them.
		var ref map[string]json.RawMessage
		if err := json.Unmarshal(b, &ref); err != nil {
			t.Fatalf("accepted %q, which encoding/json refuses: %v", b, err)
		}
		var version string
		if json.Unmarshal(ref["jsonrpc"], &version) != nil || version != "2.0" {
			t.Fatalf("accepted jsonrpc %s", ref["jsonrpc"])
		}
		if raw, ok := ref["method"]; ok {
			var method string
			if json.Unmarshal(raw, &method) != nil || method != m.Method {
				t.Fatalf("method %q, reference %s", m.Method, raw)
			}
		} else if m.Method != "" {
			t.Fatalf("method %q where the reference has none", m.Method)
		}
		if m.ID != nil && !bytes.Equal(bytes.TrimSpace(m.ID), bytes.TrimSpace(ref["id"])) {
			t.Fatalf("id %q, reference %q", m.ID, ref["id"])
		}
		if m.Params != nil && (len(m.Params) == 0 || m.Params[0] != '{') {
			t.Fatalf("params is not an object: %q", m.Params)
		}
		kinds := 0
		for _, k := range []bool{m.IsRequest(), m.IsNotification(), m.IsResponse()} {
			if k {
				kinds++
			}
		}
		if kinds != 1 {
			t.Fatalf("message is %d of request/notification/response", kinds)
		}
		if m.IsResponse() && (m.ID == nil || (m.Result == nil) == (m.Error == nil)) {
			t.Fatalf("response with id %q, result %q, error %v", m.ID, m.Result, m.Error)
		}
	})
}

// parseHTTPSeed splits a seed of http.txtar into method, header block and
// body.
func parseHTTPSeed(data []byte) (method, headers string, body []byte) {
	s := string(data)
	head, rest, _ := strings.Cut(s, "\n\n")
	method, headers, _ = strings.Cut(head, "\n")
	return method, headers, []byte(strings.TrimSuffix(rest, "\n"))
}

func FuzzHTTPHandler(f *testing.F) {
	for _, s := range readSeeds(f, "http.txtar") {
		method, headers, body := parseHTTPSeed(s.Data)
		f.Add(method, headers, body)
	}
	for _, s := range readSeeds(f, "messages.txtar") {
		f.Add("POST", "Content-Type: application/json\nMCP-Protocol-Version: 2026-07-28\nMcp-Method: tools/list", bytes.TrimSpace(s.Data))
	}
	fx := newPeerFixture(f)
	h := mcp.NewHTTPHandler(fx.srv, &mcp.HTTPOptions{LoopbackPort: "8787", MaxSessions: 50, KeepAlive: 50 * time.Millisecond})
	f.Fuzz(func(t *testing.T, method, headers string, body []byte) {
		ctx, cancel := context.WithTimeout(context.Background(), 250*time.Millisecond)
		defer cancel()
		req, err := http.NewRequestWithContext(ctx, method, "http://127.0.0.1:8787/mcp", bytes.NewReader(body))
		if err != nil {
			return // not a request a server could receive
		}
		req.Host = "127.0.0.1:8787"
		req.RemoteAddr = "127.0.0.1:40000"
		for line := range strings.SplitSeq(headers, "\n") {
			k, v, ok := strings.Cut(line, ":")
			if !ok || !validHeaderName(k) || strings.ContainsAny(v, "\r\n\x00") {
				continue
			}
			req.Header.Add(k, strings.TrimSpace(v))
		}
		if hs := req.Header.Values("Host"); len(hs) > 0 {
			req.Host = hs[0]
			req.Header.Del("Host")
		}
		w := httptest.NewRecorder()
		served := make(chan struct{})
		go func() {
			defer close(served)
			h.ServeHTTP(w, req)
		}()
		select {
		case <-served:
		case <-time.After(10 * time.Second):
			buf := make([]byte, 1<<20)
			t.Fatalf("the handler still runs 10 s after its request ended\n%s", buf[:runtime.Stack(buf, true)])
		}
		checkHTTPResponse(t, w)
	})
}

func validHeaderName(k string) bool {
	if k == "" {
		return false
	}
	for _, c := range []byte(k) {
		if c <= ' ' || c >= 0x7f || strings.IndexByte("()<>@,;:\\\"/[]?={}", c) >= 0 {
			return false
		}
	}
	return true
}

// checkHTTPResponse is the handler's invariant: a valid status, and a body
// that is empty (202, 204), one JSON-RPC message, or an SSE stream of
// them.
func checkHTTPResponse(t *testing.T, w *httptest.ResponseRecorder) {
	t.Helper()
	if w.Code < 200 || w.Code > 599 {
		t.Fatalf("status %d", w.Code)
	}
	body := w.Body.Bytes()
	ct := w.Header().Get("Content-Type")
	switch {
	case w.Code == http.StatusAccepted || w.Code == http.StatusNoContent:
		if len(body) != 0 {
			t.Fatalf("status %d with a body: %q", w.Code, body)
		}
	case strings.HasPrefix(ct, "application/json"):
		checkRPCMessage(t, body)
	case strings.HasPrefix(ct, "text/event-stream"):
		if w.Code != 200 {
			t.Fatalf("event stream with status %d", w.Code)
		}
		sc := bufio.NewScanner(bytes.NewReader(body))
		sc.Buffer(nil, 8<<20)
		for sc.Scan() {
			line := sc.Text()
			switch {
			case line == "", line == "event: message", strings.HasPrefix(line, ":"):
			case strings.HasPrefix(line, "data: "):
				checkRPCMessage(t, []byte(strings.TrimPrefix(line, "data: ")))
			default:
				t.Fatalf("unexpected event-stream line %q", line)
			}
		}
	default:
		t.Fatalf("status %d with content type %q and body %q", w.Code, ct, body)
	}
}

func checkRPCMessage(t *testing.T, b []byte) {
	t.Helper()
	var m struct {
		JSONRPC string          `json:"jsonrpc"`
		Method  string          `json:"method"`
		Result  json.RawMessage `json:"result"`
		Error   *struct {
			Code    *int   `json:"code"`
			Message string `json:"message"`
		} `json:"error"`
	}
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatalf("body is not JSON: %v: %q", err, b)
	}
	if m.JSONRPC != "2.0" {
		t.Fatalf("not a JSON-RPC 2.0 message: %q", b)
	}
	if m.Method == "" && (m.Result == nil) == (m.Error == nil) {
		t.Fatalf("response without exactly one of result and error: %q", b)
	}
	if m.Error != nil && (m.Error.Code == nil || m.Error.Message == "") {
		t.Fatalf("error without code or message: %q", b)
	}
}

// FuzzStdio feeds arbitrary bytes to ServeStdio as a whole stdin (with a
// small line cap, so over-long lines are exercised): it must return, and
// every line it writes must be one JSON-RPC message.
func FuzzStdio(f *testing.F) {
	var all []byte
	for _, s := range readSeeds(f, "messages.txtar") {
		f.Add(s.Data)
		all = append(all, s.Data...)
	}
	f.Add(all)
	f.Add([]byte("\n\r\n  \n" + strings.Repeat("x", 5000) + "\n{}\n"))
	fx := newPeerFixture(f)
	f.Fuzz(func(t *testing.T, in []byte) {
		ctx, cancel := context.WithTimeout(context.Background(), 250*time.Millisecond)
		defer cancel()
		var out bytes.Buffer
		done := make(chan error, 1)
		go func() {
			done <- fx.srv.ServeStdio(ctx, bytes.NewReader(in), &out, &mcp.StdioOptions{MaxMessageBytes: 4096})
		}()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			buf := make([]byte, 1<<20)
			t.Fatalf("ServeStdio still runs 10 s after stdin ended\n%s", buf[:runtime.Stack(buf, true)])
		}
		for line := range strings.SplitSeq(strings.TrimSuffix(out.String(), "\n"), "\n") {
			if line == "" && out.Len() == 0 {
				break
			}
			checkRPCMessage(t, []byte(line))
		}
	})
}

// TestFuzzSeedsPresent keeps the seed files from going missing quietly.
func TestFuzzSeedsPresent(t *testing.T) {
	for _, name := range []string{"messages.txtar", "http.txtar"} {
		if _, err := os.Stat(filepath.Join("testdata", "fuzz", name)); err != nil {
			t.Error(err)
		}
	}
}
