package mcp_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/warden-mcp/warden/mcp"
)

// stdioSession runs ServeStdio on pipes and hands back a writer for stdin
// and a channel of stdout lines.
type stdioSession struct {
	in    *io.PipeWriter
	lines chan string
	done  chan error
}

func startStdio(t *testing.T, fx *peerFixture, opts *mcp.StdioOptions) *stdioSession {
	t.Helper()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	s := &stdioSession{in: inW, lines: make(chan string, 1024), done: make(chan error, 1)}
	go func() {
		err := fx.srv.ServeStdio(context.Background(), inR, outW, opts)
		_ = outW.Close()
		s.done <- err
	}()
	go func() {
		sc := bufio.NewScanner(outR)
		sc.Buffer(nil, 16<<20)
		for sc.Scan() {
			s.lines <- sc.Text()
		}
		close(s.lines)
	}()
	t.Cleanup(func() {
		_ = inW.Close()
		for range s.lines {
		}
		<-s.done
	})
	return s
}

func (s *stdioSession) write(t *testing.T, b string) {
	t.Helper()
	if _, err := io.WriteString(s.in, b); err != nil {
		t.Fatal(err)
	}
}

func (s *stdioSession) next(t *testing.T) string {
	t.Helper()
	select {
	case l, ok := <-s.lines:
		if !ok {
			t.Fatal("stdout closed")
		}
		return l
	case <-time.After(10 * time.Second):
		t.Fatal("no line from the server within 10 s")
	}
	return ""
}

// rpcReply is the part of a response these tests read.
type rpcReply struct {
	ID     json.RawMessage `json:"id"`
	Result json.RawMessage `json:"result"`
	Error  *struct {
		Code int `json:"code"`
	} `json:"error"`
}

func parseReply(t *testing.T, l string) rpcReply {
	t.Helper()
	var r rpcReply
	if err := json.Unmarshal([]byte(l), &r); err != nil {
		t.Fatalf("server line is not JSON: %v: %.200q", err, l)
	}
	return r
}

// TestHostileStdio: malformed lines on stdin each get their exact error,
// and the next valid request on the same stream is served.
func TestHostileStdio(t *testing.T) {
	fx := newPeerFixture(t)
	s := startStdio(t, fx, nil)
	valid := func(id int) string {
		return fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/list","params":{%s}}`, id, modernMeta) + "\n"
	}
	cases := []struct {
		name string
		line string
		id   string // the id the error must carry
		code int
	}{
		{"over-long line", `{"jsonrpc":"2.0","id":1,"method":"tools/list","x":"` + strings.Repeat("a", mcp.MaxMessageBytes) + `"}` + "\n", "1", mcp.CodeInvalidRequest},
		{"invalid JSON", `{"jsonrpc":"2.0","id":2,` + "\n", "null", mcp.CodeParseError},
		{"invalid UTF-8", "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"\xff\"}\n", "null", mcp.CodeParseError},
		{"NUL byte", "{\"jsonrpc\":\"2.0\",\"id\":4,\"method\":\"tools/list\"\x00}\n", "null", mcp.CodeParseError},
		{"batch", "[" + strings.TrimSuffix(valid(5), "\n") + "]\n", "null", mcp.CodeInvalidRequest},
		{"30-digit id", `{"jsonrpc":"2.0","id":123456789012345678901234567890,"method":"tools/list"}` + "\n", "null", mcp.CodeInvalidRequest},
		{"deep nesting", `{"jsonrpc":"2.0","id":6,"method":"tools/list","params":{"x":` + strings.Repeat("[", 5000) + strings.Repeat("]", 5000) + `}}` + "\n", "null", mcp.CodeInvalidRequest},
		{"params not an object", `{"jsonrpc":"2.0","id":7,"method":"tools/list","params":"x"}` + "\n", "7", mcp.CodeInvalidRequest},
		{"duplicate params member", `{"jsonrpc":"2.0","id":8,"method":"tools/list","params":{` + modernMeta + `,` + modernMeta + `}}` + "\n", "8", mcp.CodeInvalidParams},
		{"CRLF line", strings.TrimSuffix(valid(9), "\n") + "\r\n", "9", 0},
	}
	for i, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s.write(t, tc.line)
			r := parseReply(t, s.next(t))
			got := 0
			if r.Error != nil {
				got = r.Error.Code
			}
			if got != tc.code || string(r.ID) != tc.id {
				t.Errorf("got id %s code %d, want id %s code %d", r.ID, got, tc.id, tc.code)
			}
			// Blank lines are skipped; the next request is served.
			s.write(t, "\n  \n"+valid(1000+i))
			r = parseReply(t, s.next(t))
			if r.Error != nil || string(r.ID) != fmt.Sprint(1000+i) {
				t.Errorf("valid request after %s: id %s error %v", tc.name, r.ID, r.Error)
			}
		})
	}
}

// TestHostileStdioFlood: far more concurrent calls than MaxInFlight are
// all answered; the cap slows the reader down instead of dropping work.
func TestHostileStdioFlood(t *testing.T) {
	fx := newPeerFixture(t)
	s := startStdio(t, fx, &mcp.StdioOptions{MaxInFlight: 4})
	const n = 200
	go func() {
		var b strings.Builder
		for i := range n {
			fmt.Fprintf(&b, `{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{%s,"name":"peer_slow","arguments":{"millis":5}}}`+"\n", i, modernMeta)
		}
		_, _ = io.WriteString(s.in, b.String())
	}()
	seen := map[string]bool{}
	for range n {
		r := parseReply(t, s.next(t))
		if r.Error != nil || r.Result == nil {
			t.Fatalf("id %s: %+v", r.ID, r.Error)
		}
		if seen[string(r.ID)] {
			t.Fatalf("id %s answered twice", r.ID)
		}
		seen[string(r.ID)] = true
	}
	if len(seen) != n {
		t.Errorf("%d distinct answers, want %d", len(seen), n)
	}
}
