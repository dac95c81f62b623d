package mcp_test

import (
	"bufio"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/warden-mcp/warden/mcp"
	"github.com/warden-mcp/warden/tool"
)

type endView struct{}

func (endView) ViewName() string { return "end.bin" }

// leftBehind is what a goroutine started by a handler found once it ran
// after the handler had returned.
type leftBehind struct {
	ctxErr  error
	hasView bool
}

// newLeaverServer serves one view-scoped tool whose handler leaves a
// goroutine behind; the goroutine reports what it sees after release is
// closed.
func newLeaverServer(t *testing.T) (*mcp.Server, chan<- struct{}, <-chan leftBehind) {
	t.Helper()
	release := make(chan struct{})
	got := make(chan leftBehind, 1)
	reg := tool.NewRegistry()
	tool.Add(reg, tool.Def{Name: "leaver", Description: "Leaves a goroutine behind.", Scope: tool.ViewScoped,
		Annotations: tool.Annotations{ReadOnly: true}, Catalog: tool.Catalog{Category: "test", Trust: tool.TrustAuto}},
		func(ctx context.Context, c *tool.Call, _ struct{}) (string, error) {
			if _, ok := c.View(); !ok {
				return "", tool.Errorf("no_view", "the handler itself had no view")
			}
			go func() {
				<-release
				_, v := c.View()
				got <- leftBehind{ctx.Err(), v}
			}()
			return "returned", nil
		})
	srv := mcp.NewServer(reg, &mcp.Options{Middleware: []tool.Middleware{tool.ResolveViews(func(context.Context, *tool.Call, string) (tool.View, []tool.Warning, error) {
		return endView{}, nil, nil
	})}})
	t.Cleanup(srv.Close)
	return srv, release, got
}

func checkLeftBehind(t *testing.T, reply string, release chan<- struct{}, got <-chan leftBehind) {
	t.Helper()
	if !strings.Contains(reply, `"text":"returned"`) {
		t.Fatalf("the call did not succeed: %s", reply)
	}
	close(release)
	select {
	case l := <-got:
		if l.ctxErr == nil || l.hasView {
			t.Errorf("after the handler returned its goroutine saw ctx.Err()=%v and a view=%v; want cancelled and none", l.ctxErr, l.hasView)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("the left-behind goroutine never reported")
	}
}

const (
	endMeta       = `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}`
	endModernCall = `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"leaver","arguments":{},` + endMeta + `}}`
	endLegacyInit = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`
	endLegacyDone = `{"jsonrpc":"2.0","method":"notifications/initialized"}`
	endLegacyCall = `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"leaver","arguments":{}}}`
)

// A call ends when its handler returns, on every transport: a goroutine
// the handler left behind sees a cancelled context and no view.
func TestCallEndsWithItsHandler(t *testing.T) {
	t.Run("in process", func(t *testing.T) {
		srv, release, got := newLeaverServer(t)
		checkLeftBehind(t, string(srv.ServeMessage(context.Background(), []byte(endModernCall), nil)), release, got)
	})
	for _, era := range []struct {
		name  string
		lines []string
	}{
		{"stdio modern", []string{endModernCall}},
		{"stdio legacy", []string{endLegacyInit, endLegacyDone, endLegacyCall}},
	} {
		t.Run(era.name, func(t *testing.T) {
			srv, release, got := newLeaverServer(t)
			inR, inW := io.Pipe()
			outR, outW := io.Pipe()
			done := make(chan error, 1)
			go func() { done <- srv.ServeStdio(context.Background(), inR, outW, nil); _ = outW.Close() }()
			sc := bufio.NewScanner(outR)
			reply := ""
			for _, l := range era.lines {
				if _, err := io.WriteString(inW, l+"\n"); err != nil {
					t.Fatal(err)
				}
				if strings.Contains(l, `"id"`) {
					if !sc.Scan() {
						t.Fatal("no reply")
					}
					reply = sc.Text()
				}
			}
			checkLeftBehind(t, reply, release, got)
			_ = inW.Close()
			go func() { _, _ = io.Copy(io.Discard, outR) }()
			<-done
		})
	}
	postModern := func(t *testing.T, url, body string) string {
		t.Helper()
		_, reply := postLegacy(t, http.DefaultClient, url, "", body,
			"Mcp-Protocol-Version", "2026-07-28", "Mcp-Method", "tools/call", "Mcp-Name", "leaver")
		return reply
	}
	t.Run("http modern", func(t *testing.T) {
		srv, release, got := newLeaverServer(t)
		ts := httptest.NewServer(mcp.NewHTTPHandler(srv, nil))
		defer ts.Close()
		checkLeftBehind(t, postModern(t, ts.URL+"/mcp", endModernCall), release, got)
	})
	t.Run("http legacy", func(t *testing.T) {
		srv, release, got := newLeaverServer(t)
		ts := httptest.NewServer(mcp.NewHTTPHandler(srv, nil))
		defer ts.Close()
		sid := openLegacySession(t, http.DefaultClient, ts.URL+"/mcp")
		_, reply := postLegacy(t, http.DefaultClient, ts.URL+"/mcp", sid, endLegacyCall)
		checkLeftBehind(t, reply, release, got)
	})
}
