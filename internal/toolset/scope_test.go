package toolset

import (
	"context"
	"net"
	"net/netip"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/warden-mcp/warden/auth"
	"github.com/warden-mcp/warden/limits"
	"github.com/warden-mcp/warden/mcp"
	"github.com/warden-mcp/warden/policy"
	"github.com/warden-mcp/warden/safehttp"
	"github.com/warden-mcp/warden/store/sqlite"
)

// countingResolver answers every name with one address and counts the
// look-ups it was asked for.
type countingResolver struct {
	addr    netip.Addr
	lookups atomic.Int64
}

func (r *countingResolver) LookupNetIP(context.Context, string, string) ([]netip.Addr, error) {
	r.lookups.Add(1)
	return []netip.Addr{r.addr}, nil
}

// An out-of-scope target costs no DNS look-up and no connection: the scope
// gate refuses it before the handler. The in-scope call beside it shows the
// resolver and the listener are really wired in.
func TestOutOfScopeTargetsCostNothing(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	var accepts atomic.Int64
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			accepts.Add(1)
			c.Close()
		}
	}()
	ap := netip.MustParseAddrPort(ln.Addr().String())
	res := &countingResolver{addr: ap.Addr()}
	reg := registryWith(t, Deps{SafeHTTP: &safehttp.Options{Resolver: res, AllowAddrPorts: []netip.AddrPort{ap}}})

	st, err := sqlite.Open(context.Background(), t.TempDir(), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	lim, err := limits.New(st, nil)
	if err != nil {
		t.Fatal(err)
	}
	gates, err := policy.NewGates(reg, policy.CatalogConfig{Unsafe: true, Approvals: policy.ApprovalsClient,
		ScopeInclude: []string{"scan.example.com"}}, st)
	if err != nil {
		t.Fatal(err)
	}
	ctl := &policy.Controls{Limiter: lim, Gates: gates, Local: policy.LocalPrincipal()}
	srv := mcp.NewServer(reg, &mcp.Options{Middleware: ctl.Middleware()})
	defer srv.Close()
	call := func(url string) string {
		msg := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"microdefend_scan_website","arguments":{"url":"` + url +
			`"},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`
		return string(srv.ServeMessage(auth.WithPrincipal(context.Background(), *policy.LocalPrincipal()), []byte(msg), nil))
	}
	port := itoa(ap.Port())
	for _, url := range []string{"http://other.example.net:" + port + "/", "https://SCAN.example.com.evil.net:" + port + "/", "http://" + ap.String() + "/"} {
		if out := call(url); !strings.Contains(out, "target_out_of_scope") {
			t.Errorf("%s was not refused as out of scope: %.300s", url, out)
		}
	}
	if n, c := res.lookups.Load(), accepts.Load(); n != 0 || c != 0 {
		t.Fatalf("out-of-scope targets cost %d look-ups and %d connections; want none", n, c)
	}
	call("http://scan.example.com:" + port + "/")
	if res.lookups.Load() == 0 || accepts.Load() == 0 {
		t.Errorf("the in-scope control made %d look-ups and %d connections: the fixture is not wired", res.lookups.Load(), accepts.Load())
	}
}
