package safehttp

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strconv"
	"strings"
	"testing"
)

// Send sends any method with its body and headers, follows no redirect,
// keeps the body cap, and still refuses what the pipeline refuses.
func TestSend(t *testing.T) {
	var got struct {
		method, body, ua, host, auth, te string
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		got.method, got.body, got.ua, got.host, got.auth = r.Method, string(b), r.UserAgent(), r.Host, r.Header.Get("Authorization")
		got.te = strings.Join(r.TransferEncoding, ",")
		if r.URL.Path == "/redirect" {
			http.Redirect(w, r, "http://169.254.169.254/", http.StatusFound)
			return
		}
		w.Write([]byte(strings.Repeat("x", 100)))
	}))
	defer srv.Close()
	ap := netip.MustParseAddrPort(srv.Listener.Addr().String())
	c := New(&Options{AllowAddrPorts: []netip.AddrPort{ap}, Resolver: newFakeResolver().set("app.example.com", ap.Addr().String())})
	base := "http://app.example.com:" + strconv.Itoa(int(ap.Port()))
	tg, err := c.Validate(context.Background(), base+"/submit")
	if err != nil {
		t.Fatal(err)
	}
	h := http.Header{"Authorization": {"Bearer t"}, "Host": {"evil.example"}, "Transfer-Encoding": {"chunked"}}
	resp, err := c.Send(context.Background(), tg, &Request{Method: "PATCH", Header: h, Body: []byte(`{"a":1}`), UserAgent: "tester/1", MaxBodyBytes: 10})
	if err != nil {
		t.Fatal(err)
	}
	if got.method != "PATCH" || got.body != `{"a":1}` || got.ua != "tester/1" || got.auth != "Bearer t" || got.te != "" ||
		!strings.HasPrefix(got.host, "app.example.com") {
		t.Errorf("server saw %+v", got)
	}
	if resp.Status != 200 || len(resp.Body) != 10 || !resp.Truncated {
		t.Errorf("response %d %d %v", resp.Status, len(resp.Body), resp.Truncated)
	}
	tg, _ = c.Validate(context.Background(), base+"/redirect")
	resp, err = c.Send(context.Background(), tg, nil)
	if err != nil || resp.Status != http.StatusFound || resp.Header.Get("Location") != "http://169.254.169.254/" {
		t.Errorf("a redirect was not returned as it is: %v %+v", err, resp)
	}
	for _, m := range []string{"CONNECT", "BAD METHOD", "GET\r\nX: y"} {
		if _, err := c.Send(context.Background(), tg, &Request{Method: m}); ErrorCode(err) != CodeScanFailed {
			t.Errorf("method %q: %v", m, err)
		}
	}
	if _, err := c.Send(context.Background(), tg, &Request{Method: "POST", Body: make([]byte, MaxRequestBodyBytes+1)}); ErrorCode(err) != CodeScanFailed {
		t.Errorf("oversized body: %v", err)
	}
	if _, err := New(nil).Send(context.Background(), tg, nil); ErrorCode(err) != CodeInvalidTarget {
		t.Errorf("a target of another client: %v", err)
	}
}
