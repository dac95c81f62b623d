package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/warden-mcp/warden/statestore"
	"github.com/warden-mcp/warden/tool"
)

// roundsFixture is a tool that asks one question and counts its runs to
// the end: "confirm" asks "Run it?" and answers "ran"; "shifty" asks a
// question that changes with every run.
type roundsFixture struct {
	reg  *tool.Registry
	runs atomic.Int64
	asks atomic.Int64
}

func newRoundsFixture() *roundsFixture {
	f := &roundsFixture{reg: tool.NewRegistry()}
	schema := json.RawMessage(`{"type":"object","properties":{"ok":{"type":"boolean"}}}`)
	def := func(name string) tool.Def {
		return tool.Def{Name: name, Description: "Asks before it runs.", Annotations: tool.Annotations{ReadOnly: true},
			Catalog: tool.Catalog{Category: "test", Trust: tool.TrustAuto}}
	}
	tool.Add(f.reg, def("confirm"), func(ctx context.Context, c *tool.Call, _ struct{}) (string, error) {
		if _, err := c.Input(ctx, map[string]tool.InputRequest{"ok": tool.Elicit("Run it?", schema)}); err != nil {
			return "", err
		}
		f.runs.Add(1)
		return "ran", nil
	})
	tool.Add(f.reg, def("shifty"), func(ctx context.Context, c *tool.Call, _ struct{}) (string, error) {
		q := "Question " + strconv.FormatInt(f.asks.Add(1), 10) + "?"
		if _, err := c.Input(ctx, map[string]tool.InputRequest{"ok": tool.Elicit(q, schema)}); err != nil {
			return "", err
		}
		f.runs.Add(1)
		return "ran", nil
	})
	return f
}

const roundsMeta = `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"elicitation":{}}}`

const accept = `{"ok":{"action":"accept","content":{"ok":true}}}`

// callRound sends tools/call of name with optional answers and state and
// returns the result: its resultType, text and requestState.
func callRound(t *testing.T, srv *Server, name, answers, state string) (kind, text, next string) {
	t.Helper()
	params := `"name":"` + name + `",`
	if answers != "" {
		params += `"inputResponses":` + answers + `,`
	}
	if state != "" {
		params += `"requestState":"` + state + `",`
	}
	msg := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{` + params + roundsMeta + `}}`
	out := srv.ServeMessage(WithCaller(context.Background(), "alice"), []byte(msg), nil)
	var resp struct {
		Result struct {
			ResultType   string `json:"resultType"`
			RequestState string `json:"requestState"`
			Content      []struct {
				Text string `json:"text"`
			} `json:"content"`
		} `json:"result"`
		Error *struct {
			Message string `json:"message"`
		} `json:"error"`
	}
	if err := json.Unmarshal(out, &resp); err != nil {
		t.Fatalf("%s: %v", out, err)
	}
	if resp.Error != nil {
		return "error", resp.Error.Message, ""
	}
	if len(resp.Result.Content) > 0 {
		text = resp.Result.Content[0].Text
	}
	return resp.Result.ResultType, text, resp.Result.RequestState
}

// TestInputAnswersOnlyToQuestionsAsked: answers count only for questions
// this server asked in the round whose requestState comes with them.
// Answers without a requestState, answers to keys not asked, and an
// answer to a question the handler no longer asks are not taken: the
// question is asked (again) instead.
func TestInputAnswersOnlyToQuestionsAsked(t *testing.T) {
	f := newRoundsFixture()
	srv := NewServer(f.reg, &Options{})
	defer srv.Close()

	if kind, text, _ := callRound(t, srv, "confirm", accept, ""); kind != "input_required" {
		t.Errorf("answers without a requestState ran the call: %s %q", kind, text)
	}
	_, _, state := callRound(t, srv, "confirm", "", "")
	if kind, text, _ := callRound(t, srv, "confirm", `{"other":{"action":"accept","content":{"ok":true}}}`, state); kind != "input_required" {
		t.Errorf("an answer to a question not asked ran the call: %s %q", kind, text)
	}
	// shifty asks another question at every run: the answer to the
	// first is not an answer to the second.
	_, _, state = callRound(t, srv, "shifty", "", "")
	if kind, text, _ := callRound(t, srv, "shifty", accept, state); kind != "input_required" {
		t.Errorf("an answer to another question ran the call: %s %q", kind, text)
	}
	if n := f.runs.Load(); n != 0 {
		t.Fatalf("%d runs without an answer to the question asked", n)
	}
	// The round as a client plays it still runs the call.
	_, _, state = callRound(t, srv, "confirm", "", "")
	if kind, text, _ := callRound(t, srv, "confirm", accept, state); kind != "complete" || text != "ran" {
		t.Fatalf("answered round: %s %q", kind, text)
	}
}

// TestInputRoundStateIsSingleUse: a requestState whose answers let a call
// run is spent: replayed, on this replica or another sharing the store,
// the question is asked again and the call does not run twice.
func TestInputRoundStateIsSingleUse(t *testing.T) {
	f := newRoundsFixture()
	st := statestore.NewMemory()
	key := []byte(strings.Repeat("k", 32))
	a := NewServer(f.reg, &Options{StateKey: key, State: st})
	defer a.Close()
	b := NewServer(f.reg, &Options{StateKey: key, State: st})
	defer b.Close()

	_, _, state := callRound(t, a, "confirm", "", "")
	if kind, text, _ := callRound(t, a, "confirm", accept, state); kind != "complete" || text != "ran" {
		t.Fatalf("answered round: %s %q", kind, text)
	}
	for name, srv := range map[string]*Server{"the same replica": a, "another replica": b} {
		if kind, text, _ := callRound(t, srv, "confirm", accept, state); kind != "input_required" {
			t.Errorf("replayed on %s: %s %q, want the question again", name, kind, text)
		}
	}
	if n := f.runs.Load(); n != 1 {
		t.Fatalf("the call ran %d times for one answer", n)
	}
}

// failingClaims is a state store that cannot write.
type failingClaims struct{ statestore.Store }

func (failingClaims) PutState(context.Context, statestore.Record) (int64, error) {
	return 0, errors.New("the store is down")
}

// TestInputRoundStateFailsClosed: when the store cannot say whether a
// requestState was used, its answers are not taken.
func TestInputRoundStateFailsClosed(t *testing.T) {
	f := newRoundsFixture()
	srv := NewServer(f.reg, &Options{State: failingClaims{statestore.NewMemory()}, StateTTL: time.Minute})
	defer srv.Close()
	_, _, state := callRound(t, srv, "confirm", "", "")
	kind, text, _ := callRound(t, srv, "confirm", accept, state)
	if f.runs.Load() != 0 || !strings.HasPrefix(text, "input_unavailable:") {
		t.Fatalf("answers taken without the store: %s %q", kind, text)
	}
}
