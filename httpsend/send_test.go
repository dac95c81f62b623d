package httpsend

import (
	"context"
	"net/netip"
	"net/url"
	"sync/atomic"
	"testing"

	"github.com/warden-mcp/warden/errcode"
	"github.com/warden-mcp/warden/safehttp"
)

func TestOrigin(t *testing.T) {
	for raw, want := range map[string]string{
		"http://A.example.com/x":      "http://a.example.com:80",
		"https://a.example.com.:443/": "https://a.example.com:443",
		"HTTPS://a.example.com:8443":  "https://a.example.com:8443",
	} {
		u, _ := url.Parse(raw)
		if got := originOf(u); got != want {
			t.Errorf("%s: %s, want %s", raw, got, want)
		}
	}
}

type countingResolver struct{ n atomic.Int64 }

func (r *countingResolver) LookupNetIP(context.Context, string, string) ([]netip.Addr, error) {
	r.n.Add(1)
	return []netip.Addr{netip.MustParseAddr("93.184.215.14")}, nil
}

// The first URL is checked against the scope before any look-up.
func TestScopeBeforeLookup(t *testing.T) {
	res := &countingResolver{}
	s := New(Options{Client: safehttp.New(&safehttp.Options{Resolver: res}), InScope: func(h string) bool { return h == "in.example.com" }})
	for _, u := range []string{"http://out.example.com/", "http://IN.example.com.evil.net/"} {
		_, err := s.Do(context.Background(), Request{URL: u})
		if errcode.CodeOf(err) != CodeTargetOutOfScope {
			t.Errorf("%s: %v", u, err)
		}
	}
	if _, err := s.Do(context.Background(), Request{URL: "::nonsense"}); errcode.CodeOf(err) != string(safehttp.CodeInvalidTarget) {
		t.Errorf("nonsense: %v", err)
	}
	if res.n.Load() != 0 {
		t.Errorf("%d look-ups for refused targets", res.n.Load())
	}
}
