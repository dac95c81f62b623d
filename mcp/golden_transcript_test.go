package mcp_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"golang.org/x/tools/txtar"

	"github.com/warden-mcp/warden/mcp"
)

// Golden wire transcripts: testdata/transcripts/*.txtar hold what a client
// sends and exactly what the server answers, byte for byte after volatile
// values are replaced (requestState tokens, session ids). The comment of
// each file names its transport.
//
// stdio files alternate "client" sections (one JSON-RPC message per line)
// and "server" sections (the lines the server writes in reply: every
// related notification, then the responses, or a request of its own).
//
// http files alternate "request" sections (request line, headers, empty
// line, body) and "response" sections (status, the headers that matter,
// empty line, body: JSON or the SSE stream).
//
// In client messages, {{state}} stands for the last requestState the
// server sent, and {{session}} for the legacy session id.
//
//	go test ./mcp -run TestGoldenTranscripts -update

var update = flag.Bool("update", false, "rewrite the golden transcripts in testdata/transcripts")

var stateRE = regexp.MustCompile(`"requestState":"([^"]*)"`)

// transcriptVars carries the volatile values between steps.
type transcriptVars struct {
	state, session string
}

func (v *transcriptVars) fill(s string) string {
	s = strings.ReplaceAll(s, "{{state}}", v.state)
	return strings.ReplaceAll(s, "{{session}}", v.session)
}

// observe records volatile values from server output and returns it
// normalised.
func (v *transcriptVars) observe(s string) string {
	if m := stateRE.FindAllStringSubmatch(s, -1); len(m) > 0 {
		v.state = m[len(m)-1][1]
	}
	return stateRE.ReplaceAllString(s, `"requestState":"<requestState>"`)
}

func TestGoldenTranscripts(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("testdata", "transcripts", "*.txtar"))
	if err != nil {
		t.Fatal(err)
	}
	if len(files) == 0 {
		t.Fatal("no transcripts")
	}
	for _, file := range files {
		t.Run(strings.TrimSuffix(filepath.Base(file), ".txtar"), func(t *testing.T) {
			ar, err := txtar.ParseFile(file)
			if err != nil {
				t.Fatal(err)
			}
			var transport string
			for line := range strings.SplitSeq(string(ar.Comment), "\n") {
				if v, ok := strings.CutPrefix(line, "transport: "); ok {
					transport = strings.TrimSpace(v)
				}
			}
			fx := newPeerFixture(t)
			var changed bool
			switch transport {
			case "stdio":
				changed = replayStdio(t, fx, ar)
			case "http":
				changed = replayHTTP(t, fx, ar)
			default:
				t.Fatalf("transport %q: want stdio or http", transport)
			}
			if *update && changed {
				if err := os.WriteFile(file, txtar.Format(ar), 0o644); err != nil {
					t.Fatal(err)
				}
				t.Logf("rewrote %s", file)
			}
		})
	}
}

// pairs checks that sections alternate ask, answer and returns them.
func pairs(t *testing.T, ar *txtar.Archive, ask, answer string) [][2]*txtar.File {
	t.Helper()
	if len(ar.Files)%2 != 0 {
		t.Fatalf("%d sections: want %s/%s pairs", len(ar.Files), ask, answer)
	}
	var out [][2]*txtar.File
	for i := 0; i < len(ar.Files); i += 2 {
		a, b := &ar.Files[i], &ar.Files[i+1]
		if a.Name != ask || b.Name != answer {
			t.Fatalf("sections %d-%d are %q, %q: want %q, %q", i, i+1, a.Name, b.Name, ask, answer)
		}
		out = append(out, [2]*txtar.File{a, b})
	}
	return out
}

// settle compares got with a section's data, or rewrites it with -update.
// It reports whether the section changed.
func settle(t *testing.T, step int, sec *txtar.File, got string) bool {
	t.Helper()
	want := string(sec.Data)
	if got == want {
		return false
	}
	if *update {
		sec.Data = []byte(got)
		return true
	}
	t.Errorf("step %d: server output differs (-want +got):\n%s", step, cmp.Diff(want, got))
	return false
}

func replayStdio(t *testing.T, fx *peerFixture, ar *txtar.Archive) bool {
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	done := make(chan error, 1)
	go func() {
		err := fx.srv.ServeStdio(context.Background(), inR, outW, nil)
		_ = outW.Close()
		done <- err
	}()
	lines := make(chan string, 64)
	go func() {
		sc := bufio.NewScanner(outR)
		sc.Buffer(nil, 8<<20)
		for sc.Scan() {
			lines <- sc.Text()
		}
		close(lines)
	}()
	defer func() {
		_ = inW.Close()
		for range lines {
		}
		if err := <-done; err != nil {
			t.Errorf("ServeStdio: %v", err)
		}
	}()

	vars := &transcriptVars{}
	changed := false
	// pending holds the requests not yet answered; a call that is waiting
	// for the client's answer to a server request stays pending into the
	// step that answers it.
	pending := map[string]bool{}
	for i, p := range pairs(t, ar, "client", "server") {
		for line := range strings.SplitSeq(strings.TrimRight(string(p[0].Data), "\n"), "\n") {
			if strings.TrimSpace(line) == "" {
				continue
			}
			line = vars.fill(line)
			var m struct {
				ID     json.RawMessage `json:"id"`
				Method string          `json:"method"`
			}
			if json.Unmarshal([]byte(line), &m) == nil && m.ID != nil && m.Method != "" {
				pending[string(m.ID)] = true
			}
			if _, err := io.WriteString(inW, line+"\n"); err != nil {
				t.Fatal(err)
			}
		}
		var got strings.Builder
		// Read until every request of the step is answered or the server
		// asks the client something. A step of notifications only is
		// followed by a probe, left out of the transcript: the server
		// handles notifications as it reads them, so anything they made
		// it write comes before the probe's answer.
		if len(pending) == 0 {
			if _, err := io.WriteString(inW, `{"jsonrpc":"2.0","id":`+transcriptProbe+`,"method":"ping"}`+"\n"); err != nil {
				t.Fatal(err)
			}
			pending[transcriptProbe] = true
		}
		const wait = 10 * time.Second
	read:
		for len(pending) > 0 {
			select {
			case l, ok := <-lines:
				if !ok {
					break read
				}
				var m struct {
					ID     json.RawMessage `json:"id"`
					Method string          `json:"method"`
				}
				if err := json.Unmarshal([]byte(l), &m); err != nil {
					t.Fatalf("step %d: server wrote a line that is not JSON: %q", i, l)
				}
				if string(m.ID) != transcriptProbe {
					got.WriteString(vars.observe(l) + "\n")
				}
				if string(m.ID) == transcriptProbe {
					delete(pending, transcriptProbe)
					continue
				}
				if m.ID != nil && m.Method == "" {
					delete(pending, string(m.ID))
				}
				if m.ID != nil && m.Method != "" {
					break read // the server asks; the next step answers
				}
			case <-time.After(wait):
				t.Fatalf("step %d: no answer to %v within %v", i, slices.Collect(mapsKeys(pending)), wait)
			}
		}
		if settle(t, i, p[1], got.String()) {
			changed = true
		}
	}
	return changed
}

// transcriptProbe is the id of the probe that closes a step of
// notifications.
const transcriptProbe = `"transcript-probe"`

func mapsKeys(m map[string]bool) func(func(string) bool) {
	return func(yield func(string) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	}
}

// recordedHeaders are the response headers a transcript keeps.
var recordedHeaders = []string{"Allow", "Content-Type", "Mcp-Session-Id"}

func replayHTTP(t *testing.T, fx *peerFixture, ar *txtar.Archive) bool {
	ts := httptest.NewServer(mcp.NewHTTPHandler(fx.srv, nil))
	t.Cleanup(ts.Close)
	vars := &transcriptVars{}
	changed := false
	for i, p := range pairs(t, ar, "request", "response") {
		req := parseRecordedRequest(t, ts.URL, vars.fill(string(p[0].Data)))
		resp, err := ts.Client().Do(req)
		if err != nil {
			t.Fatalf("step %d: %v", i, err)
		}
		body, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		if err != nil {
			t.Fatalf("step %d: %v", i, err)
		}
		var got strings.Builder
		fmt.Fprintf(&got, "%d\n", resp.StatusCode)
		for _, h := range recordedHeaders {
			for _, v := range resp.Header.Values(h) {
				if h == "Mcp-Session-Id" {
					vars.session = v
					v = "<session>"
				}
				fmt.Fprintf(&got, "%s: %s\n", h, v)
			}
		}
		got.WriteString("\n")
		if len(body) > 0 {
			got.WriteString(vars.observe(string(body)))
			if !bytes.HasSuffix(body, []byte("\n")) {
				got.WriteString("\n")
			}
		}
		if settle(t, i, p[1], got.String()) {
			changed = true
		}
	}
	return changed
}

// parseRecordedRequest reads "METHOD /path", header lines, an empty line
// and the body.
func parseRecordedRequest(t *testing.T, base, s string) *http.Request {
	t.Helper()
	head, body, _ := strings.Cut(s, "\n\n")
	body = strings.TrimSuffix(body, "\n")
	lines := strings.Split(head, "\n")
	method, path, ok := strings.Cut(lines[0], " ")
	if !ok {
		t.Fatalf("bad request line %q", lines[0])
	}
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	req, err := http.NewRequest(method, base+path, rd)
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range lines[1:] {
		k, v, ok := strings.Cut(l, ":")
		if !ok {
			t.Fatalf("bad header line %q", l)
		}
		req.Header.Add(strings.TrimSpace(k), strings.TrimSpace(v))
	}
	return req
}
