package cli

import (
	"context"
	"io"
	"net"
	"testing"
)

// Close releases what openServer acquired: the listener's port is free
// again, and a server that cannot open (its port taken) leaves nothing
// behind and says why.
func TestServerOpenClose(t *testing.T) {
	e := &env{}
	cfg, derived, err := e.serveConfig(serveFlags{listen: "127.0.0.1:0", stateDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	s, err := openServer(ctx, cfg, derived, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	addr := s.ln.Addr().String()
	if s.cfg.Listen != addr {
		t.Errorf("the configuration names %s, the listener %s", s.cfg.Listen, addr)
	}
	taken := cfg
	taken.Listen = addr
	if s2, err := openServer(ctx, taken, false, io.Discard); err == nil || s2 != nil {
		t.Fatalf("a second server on %s opened: %v", addr, err)
	}
	s.Close()
	s.Close() // a second Close does nothing
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		t.Fatalf("the port is still held after Close: %v", err)
	}
	ln.Close()
}
