package mcp_test

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"testing"
	"testing/synctest"

	"github.com/warden-mcp/warden/mcp"
)

// TestHostileMemory sends about 2000 mixed hostile requests, near-limit
// bodies among them, and checks that nothing accumulates: the live heap
// after a collection stays bounded and goroutines return to where they
// started.
func TestHostileMemory(t *testing.T) {
	if testing.Short() {
		t.Skip("pushes ~200 MiB of request bodies through the handler")
	}
	// In a bubble, synctest.Wait tells when every goroutine the requests
	// started has ended or is blocked for good.
	synctest.Test(t, hostileMemory)
}

func hostileMemory(t *testing.T) {
	fx := newPeerFixture(t)
	h := mcp.NewHTTPHandler(fx.srv, &mcp.HTTPOptions{LoopbackPort: "8787"})

	list := modernHeaders("tools/list")
	listBody := modernBody("1", "tools/list", "")
	near := func(size int64) []byte {
		b, _ := io.ReadAll(bigBody(size))
		return b
	}
	nearLimit := near(mcp.MaxMessageBytes - 16)
	overLimit := near(mcp.MaxMessageBytes + 1)
	deep := modernBody("1", "tools/list", `"x":`+strings.Repeat("[", 9000)+strings.Repeat("]", 9000))

	type mk func(i int) (*http.Request, int)
	req := func(method string, hd http.Header, body []byte) *http.Request {
		r := httptest.NewRequest(method, "http://127.0.0.1:8787/mcp", bytes.NewReader(body))
		r.Header = hd.Clone()
		return r
	}
	kinds := []mk{
		func(int) (*http.Request, int) { return req("POST", list, []byte(listBody)), 200 },
		func(int) (*http.Request, int) { return req("POST", list, []byte(`{"jsonrpc":`)), 400 },
		func(int) (*http.Request, int) { return req("POST", list, []byte("["+listBody+"]")), 400 },
		func(int) (*http.Request, int) { return req("POST", list, []byte(deep)), 400 },
		func(int) (*http.Request, int) {
			return req("POST", with(list, "Mcp-Method", "tools/call"), []byte(listBody)), 400
		},
		func(int) (*http.Request, int) {
			return req("POST", with(list, "Origin", "http://evil.example"), []byte(listBody)), 403
		},
		func(int) (*http.Request, int) { return req("POST", list, []byte("{\"id\":\"\xff\"}")), 400 },
		func(int) (*http.Request, int) { return req("GET", list, nil), 405 },
		func(i int) (*http.Request, int) {
			return req("POST", with(modernHeaders("tools/call"), "Mcp-Name", "peer_echo"),
				[]byte(modernBody(fmt.Sprint(i), "tools/call", `"name":"peer_echo","arguments":{"text":"hi"}`))), 200
		},
		func(i int) (*http.Request, int) {
			h := with(modernHeaders("tools/call"), "Mcp-Name", "peer_progress")
			return req("POST", h, []byte(modernBody(fmt.Sprint(i), "tools/call", `"name":"peer_progress"`))), 200
		},
	}

	runtime.GC()
	var before runtime.MemStats
	runtime.ReadMemStats(&before)
	baseGoroutines := runtime.NumGoroutine()

	const total = 2000
	for i := range total {
		var r *http.Request
		var want int
		switch {
		case i%50 == 0:
			r, want = req("POST", with(modernHeaders("tools/call"), "Mcp-Name", "peer_echo"), nearLimit), 200
		case i%50 == 25:
			r, want = req("POST", modernHeaders("tools/call"), overLimit), 413
		case i%100 == 10:
			// A legacy session opened and closed again.
			init := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{}}}`
			w := httptest.NewRecorder()
			h.ServeHTTP(w, req("POST", with(with(list, "MCP-Protocol-Version"), "Mcp-Method", "initialize"), []byte(init)))
			sid := w.Header().Get("Mcp-Session-Id")
			if w.Code != 200 || sid == "" {
				t.Fatalf("initialize: %d", w.Code)
			}
			r, want = req("DELETE", with(list, "Mcp-Session-Id", sid), nil), 204
		default:
			r, want = kinds[i%len(kinds)](i)
		}
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		if w.Code != want {
			t.Fatalf("request %d: status %d, want %d: %.200s", i, w.Code, want, w.Body.String())
		}
	}

	nearLimit, overLimit = nil, nil
	synctest.Wait()
	var after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&after)
	t.Logf("heap after GC: %.1f MiB before, %.1f MiB after %d requests (%.0f MiB allocated in all); goroutines %d -> %d",
		float64(before.HeapAlloc)/(1<<20), float64(after.HeapAlloc)/(1<<20), total,
		float64(after.TotalAlloc-before.TotalAlloc)/(1<<20), baseGoroutines, runtime.NumGoroutine())
	if after.HeapAlloc > 64<<20 {
		t.Errorf("live heap %d MiB after GC, want < 64 MiB", after.HeapAlloc>>20)
	}
	if n := runtime.NumGoroutine(); n > baseGoroutines {
		buf := make([]byte, 1<<16)
		t.Errorf("goroutines: %d before, %d after\n%s", baseGoroutines, n, buf[:runtime.Stack(buf, true)])
	}
}

// BenchmarkHostileBodies measures what the handler spends on the largest
// bodies it reads: a valid call just under the 4 MiB cap, and bodies over
// it, announced (refused unread) or chunked (read up to the cap).
//
//	go test ./mcp -run '^$' -bench BenchmarkHostileBodies -benchmem
func BenchmarkHostileBodies(b *testing.B) {
	fx := newPeerFixture(b)
	h := mcp.NewHTTPHandler(fx.srv, nil)
	read := func(size int64) []byte {
		body, _ := io.ReadAll(bigBody(size))
		return body
	}
	for _, bc := range []struct {
		name    string
		body    []byte
		chunked bool
		status  int
	}{
		{"near-limit", read(mcp.MaxMessageBytes - 16), false, 200},
		{"over-limit-announced", read(mcp.MaxMessageBytes + 1), false, 413},
		{"over-limit-chunked", read(mcp.MaxMessageBytes + 1), true, 413},
	} {
		b.Run(bc.name, func(b *testing.B) {
			hd := with(modernHeaders("tools/call"), "Mcp-Name", "peer_echo")
			b.SetBytes(int64(len(bc.body)))
			b.ReportAllocs()
			for b.Loop() {
				r := httptest.NewRequest("POST", "http://127.0.0.1/mcp", bytes.NewReader(bc.body))
				r.Header = hd
				if bc.chunked {
					r.ContentLength = -1
				}
				w := httptest.NewRecorder()
				h.ServeHTTP(w, r)
				if w.Code != bc.status {
					b.Fatalf("status %d, want %d", w.Code, bc.status)
				}
			}
		})
	}
}
