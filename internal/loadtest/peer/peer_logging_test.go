package peer_test

import (
	"bytes"
	"context"
	"github.com/warden-mcp/warden/internal/mcpfixture"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/warden-mcp/warden/mcp"
	"github.com/warden-mcp/warden/tool"
)

// TestPeerGoSDKLogging: a tool's log messages reach the official client at
// and above the level it chose (logging/setLevel on legacy sessions, the
// request's _meta logLevel on 2026-07-28), and none reach it on the modern
// revision when the request did not ask.
func TestPeerGoSDKLogging(t *testing.T) {
	for _, tr := range []struct {
		name string
		make func(*testing.T, *mcpfixture.Fixture, *wireTap) sdk.Transport
	}{{"stdio", tappedStdio}, {"http", tappedHTTP}} {
		for _, era := range peerEras {
			t.Run(tr.name+"/"+era.name, func(t *testing.T) {
				fx := mcpfixture.New(t)
				tool.Add(fx.Reg, mcpfixture.Def("peer_log", "Logs at four levels."),
					func(ctx context.Context, c *tool.Call, _ mcpfixture.None) (string, error) {
						for _, l := range []string{"debug", "info", "warning", "error"} {
							c.Log(l, map[string]string{"at": l})
						}
						return "logged", nil
					})
				var levels collector[string]
				// Logging is deprecated as of 2026-07-28 but served through the
				// deprecation window; the peer's deprecated API is how a client
				// of that window asks for it.
				client := sdk.NewClient(&sdk.Implementation{Name: "go-sdk-peer", Version: "1.8.0"}, &sdk.ClientOptions{
					//lint:ignore SA1019 the logging feature is served during its deprecation window
					LoggingMessageHandler: func(_ context.Context, r *sdk.LoggingMessageRequest) {
						levels.add(string(r.Params.Level))
					},
				})
				ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
				defer cancel()
				tap := &wireTap{marker: []byte(`"notifications/message"`)}
				cs, err := client.Connect(ctx, tr.make(t, fx, tap), &sdk.ClientSessionOptions{ProtocolVersion: era.version})
				if err != nil {
					t.Fatal(err)
				}
				defer cs.Close()

				if era.name == "modern" {
					// Not asked: no messages at all. A call's messages
					// precede its response on the wire, so once the
					// client has the response the server has written
					// every one it would.
					if _, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "peer_log"}); err != nil {
						t.Fatal(err)
					}
					if n := tap.count(); n != 0 {
						t.Errorf("%d log messages sent without a logLevel", n)
					}
				}
				p := &sdk.CallToolParams{Name: "peer_log"}
				if era.name == "modern" {
					p.Meta = sdk.Meta{"io.modelcontextprotocol/logLevel": "warning"}
				} else {
					//lint:ignore SA1019 the logging feature is served during its deprecation window
					if err := cs.SetLoggingLevel(ctx, &sdk.SetLoggingLevelParams{Level: "warning"}); err != nil {
						t.Fatal(err)
					}
				}
				if _, err := cs.CallTool(ctx, p); err != nil {
					t.Fatal(err)
				}
				if n := tap.count(); n != 2 {
					t.Errorf("%d log messages sent at warning, want 2", n)
				}
				if diff := cmp.Diff([]string{"warning", "error"}, levels.waitFor(2, 5*time.Second)); diff != "" {
					t.Errorf("levels received at warning (-want +got):\n%s", diff)
				}
			})
		}
	}
}

// wireTap counts a marker in what the server writes.
type wireTap struct {
	marker []byte
	mu     sync.Mutex
	n      int
	tail   []byte // the end of the last write, for a marker split across writes
}

func (w *wireTap) see(b []byte) {
	w.mu.Lock()
	defer w.mu.Unlock()
	buf := append(w.tail, b...)
	w.n += bytes.Count(buf, w.marker)
	keep := min(len(w.marker)-1, len(buf))
	w.tail = append([]byte(nil), buf[len(buf)-keep:]...)
}

func (w *wireTap) count() int {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.n
}

// tapReader passes what the server wrote on stdout to the client.
type tapReader struct {
	io.ReadCloser
	tap *wireTap
}

func (t tapReader) Read(b []byte) (int, error) {
	n, err := t.ReadCloser.Read(b)
	t.tap.see(b[:n])
	return n, err
}

func tappedStdio(t *testing.T, fx *mcpfixture.Fixture, tap *wireTap) sdk.Transport {
	tr := stdioPipeTransport(t, fx).(*sdk.IOTransport)
	tr.Reader = tapReader{tr.Reader, tap}
	return tr
}

// tapWriter passes an HTTP response to the client.
type tapWriter struct {
	http.ResponseWriter
	tap *wireTap
}

func (w tapWriter) Write(b []byte) (int, error) {
	w.tap.see(b)
	return w.ResponseWriter.Write(b)
}

func (w tapWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

func (w tapWriter) Flush() { http.NewResponseController(w.ResponseWriter).Flush() }

func tappedHTTP(t *testing.T, fx *mcpfixture.Fixture, tap *wireTap) sdk.Transport {
	t.Helper()
	h := mcp.NewHTTPHandler(fx.Srv, nil)
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h.ServeHTTP(tapWriter{w, tap}, r)
	}))
	t.Cleanup(ts.Close)
	return &sdk.StreamableClientTransport{Endpoint: ts.URL + "/mcp", MaxRetries: -1}
}
