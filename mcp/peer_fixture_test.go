package mcp_test

import (
	"net/http"
	"testing"

	"github.com/warden-mcp/warden/internal/mcpfixture"
	"github.com/warden-mcp/warden/mcp"
	"github.com/warden-mcp/warden/tool"
)

// peerFixture is the in-process server the peer, golden and hostile tests
// talk to (package mcpfixture, shared with the benchmark module's peer
// tests), under the short names these tests use.
type peerFixture struct {
	reg          *tool.Registry
	srv          *mcp.Server
	blockStarted chan struct{}
	blockDone    chan error
}

type peerNone = mcpfixture.None

var peerStateKey = mcpfixture.StateKey

func peerDef(name, desc string) tool.Def { return mcpfixture.Def(name, desc) }

func newPeerFixture(t testing.TB) *peerFixture {
	fx := mcpfixture.New(t)
	return &peerFixture{reg: fx.Reg, srv: fx.Srv, blockStarted: fx.BlockStarted, blockDone: fx.BlockDone}
}

func postLegacy(t testing.TB, c *http.Client, url, sid, body string, header ...string) (*http.Response, string) {
	t.Helper()
	return mcpfixture.PostLegacy(t, c, url, sid, body, header...)
}

func openLegacySession(t testing.TB, c *http.Client, url string, header ...string) string {
	t.Helper()
	return mcpfixture.OpenLegacySession(t, c, url, header...)
}
