package mcp_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// modernMeta is the _meta every modern request in these tests carries.
const modernMeta = `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}`

// TestPeerStdioDrainOnEOF: when stdin closes while calls are in flight,
// every call still finishes and its response is written before
// ServeStdio returns. (The official Go SDK's server loses them: its issue
// #1061.)
func TestPeerStdioDrainOnEOF(t *testing.T) {
	const n = 12
	for _, era := range []string{"legacy", "modern"} {
		t.Run(era, func(t *testing.T) {
			fx := newPeerFixture(t)
			inR, inW := io.Pipe()
			outR, outW := io.Pipe()
			done := make(chan error, 1)
			go func() {
				err := fx.srv.ServeStdio(context.Background(), inR, outW, nil)
				_ = outW.Close()
				done <- err
			}()
			lines := make(chan string, 4*n)
			go func() {
				sc := bufio.NewScanner(outR)
				sc.Buffer(nil, 1<<20)
				for sc.Scan() {
					lines <- sc.Text()
				}
				close(lines)
			}()
			write := func(s string) {
				t.Helper()
				if _, err := io.WriteString(inW, s+"\n"); err != nil {
					t.Fatal(err)
				}
			}
			meta := modernMeta + ","
			if era == "legacy" {
				meta = ""
				write(`{"jsonrpc":"2.0","id":"init","method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`)
				select {
				case l := <-lines:
					if !strings.Contains(l, `"id":"init","result"`) {
						t.Fatalf("initialize answered %s", l)
					}
				case <-time.After(5 * time.Second):
					t.Fatal("no initialize response")
				}
				write(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
			}
			for i := range n {
				write(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{%s"name":"peer_slow","arguments":{"millis":300}}}`, i+1, meta))
			}
			start := time.Now()
			_ = inW.Close()

			var ids []int
			timeout := time.After(15 * time.Second)
		read:
			for {
				select {
				case l, ok := <-lines:
					if !ok {
						break read
					}
					var resp struct {
						ID     int `json:"id"`
						Result struct {
							Content []struct {
								Text string `json:"text"`
							} `json:"content"`
							IsError bool `json:"isError"`
						} `json:"result"`
						Error json.RawMessage `json:"error"`
					}
					if err := json.Unmarshal([]byte(l), &resp); err != nil {
						t.Fatalf("bad line %q: %v", l, err)
					}
					if resp.Error != nil || resp.Result.IsError || len(resp.Result.Content) != 1 || resp.Result.Content[0].Text != "slept" {
						t.Errorf("response %s", l)
					}
					ids = append(ids, resp.ID)
				case <-timeout:
					t.Fatalf("stdout not closed after 15 s; got %d responses", len(ids))
				}
			}
			if err := <-done; err != nil {
				t.Errorf("ServeStdio: %v", err)
			}
			slices.Sort(ids)
			want := make([]int, n)
			for i := range want {
				want[i] = i + 1
			}
			if diff := cmp.Diff(want, ids); diff != "" {
				t.Errorf("responses written after stdin closed (-want +got):\n%s", diff)
			}
			// The calls ran concurrently, not one after the other.
			if d := time.Since(start); d > 3*time.Second {
				t.Errorf("draining %d calls of 300 ms took %v", n, d)
			}
		})
	}
}

// TestPeerStdioEOFWithPendingQuestion: a legacy call waiting for the
// client's answer to its elicitation cannot get one once stdin closes; it
// must still finish, write its response and let ServeStdio return.
func TestPeerStdioEOFWithPendingQuestion(t *testing.T) {
	fx := newPeerFixture(t)
	s := startStdio(t, fx, nil)
	s.write(t, `{"jsonrpc":"2.0","id":"init","method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{"elicitation":{}}}}`+"\n")
	if r := parseReply(t, s.next(t)); r.Error != nil {
		t.Fatalf("initialize: %+v", r.Error)
	}
	s.write(t, `{"jsonrpc":"2.0","method":"notifications/initialized"}`+"\n")
	s.write(t, `{"jsonrpc":"2.0","id":"ask","method":"tools/call","params":{"name":"peer_ask"}}`+"\n")
	var q struct {
		ID     string `json:"id"`
		Method string `json:"method"`
	}
	if err := json.Unmarshal([]byte(s.next(t)), &q); err != nil || q.Method != "elicitation/create" {
		t.Fatalf("want an elicitation request, got %+v (%v)", q, err)
	}
	_ = s.in.Close()
	r := parseReply(t, s.next(t))
	if string(r.ID) != `"ask"` {
		t.Fatalf("got a reply for %s, want the pending call", r.ID)
	}
	if r.Error == nil && r.Result == nil {
		t.Error("the pending call was answered with neither result nor error")
	}
	select {
	case err := <-s.done:
		s.done <- err // for the cleanup
		if err != nil {
			t.Errorf("ServeStdio: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("ServeStdio did not return after stdin closed")
	}
}

// TestPeerStdioPipelinedAfterInitialize: a client may send requests right
// behind initialize without waiting for its response; they must find the
// session initialized. Each round pipes initialize, initialized and a
// request in one write, to a fresh process, and ends the input there:
// ServeStdio answers everything before it returns.
func TestPeerStdioPipelinedAfterInitialize(t *testing.T) {
	fx := newPeerFixture(t)
	in := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{}}}` + "\n" +
		`{"jsonrpc":"2.0","method":"notifications/initialized"}` + "\n" +
		`{"jsonrpc":"2.0","id":2,"method":"tools/list"}` + "\n" +
		`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"peer_echo","arguments":{"text":"x"}}}` + "\n"
	const rounds = 200
	failed := 0
	for range rounds {
		var out bytes.Buffer
		if err := fx.srv.ServeStdio(t.Context(), strings.NewReader(in), &out, nil); err != nil {
			t.Fatalf("ServeStdio: %v", err)
		}
		answered := map[string]bool{}
		for _, l := range strings.Split(strings.TrimSpace(out.String()), "\n") {
			r := parseReply(t, l)
			answered[string(r.ID)] = true
			if r.Error != nil {
				failed++
				t.Logf("id %s answered %s", r.ID, l)
			}
		}
		if len(answered) != 3 {
			t.Fatalf("answered %v, want ids 1, 2 and 3: %s", answered, out.String())
		}
	}
	if failed > 0 {
		t.Errorf("%d of %d requests sent right behind initialize failed", failed, 2*rounds)
	}
}
