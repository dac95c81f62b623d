package mcp

import (
	"context"
	"crypto/aes"
	"crypto/cipher"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"time"

	"github.com/warden-mcp/warden/internal/jsonwalk"
	"github.com/warden-mcp/warden/statestore"
	"github.com/warden-mcp/warden/tool"
)

// The stateless revision cannot hold a call open while the client answers
// an input request. The server returns the questions with a requestState;
// the client retries the same call with the answers and the state. The
// state carries the answers gathered so far and the handler's own state,
// sealed with AES-256-GCM: the client can neither read nor alter it, and
// it is bound to the method, the target (tool, prompt or URI), a digest of
// the arguments, the caller and an expiry.
//
// Answers count only for the questions the server asked: the state
// records a digest of each question under its key, and a retry's
// inputResponses are taken only for the questions its state left open
// (others are ignored, as the revision asks); an answer reaches the
// handler only if the handler asks that very question again. Answers sent
// without a requestState answer nothing. A state is spent once its answers
// reach a handler: the first retry to use it claims its id in the state
// store, which replicas share, and a replay (here or on another replica)
// finds the claim and is asked again rather than run twice. When the
// store cannot be reached the answers are not taken (input_unavailable).

// maxStateBytes caps an incoming requestState.
const maxStateBytes = 256 << 10

type sealer struct{ aead cipher.AEAD }

func newSealer(key []byte) *sealer {
	block, err := aes.NewCipher(key)
	if err != nil {
		panic(err) // key length is checked by NewServer
	}
	aead, err := cipher.NewGCM(block)
	if err != nil {
		panic(err)
	}
	return &sealer{aead: aead}
}

// roundState is the sealed content of a requestState.
type roundState struct {
	// ID names the state for its single use; Asked holds a digest of
	// every question whose answer it carries or awaits, by key.
	ID      []byte                     `json:"i"`
	Asked   map[string][]byte          `json:"q,omitempty"`
	Method  string                     `json:"m"`
	Target  string                     `json:"t"`
	Digest  []byte                     `json:"d"`
	Caller  string                     `json:"c,omitempty"`
	Expires int64                      `json:"e"`
	Answers map[string]json.RawMessage `json:"a,omitempty"`
	State   []byte                     `json:"s,omitempty"`
}

func (s *sealer) seal(st *roundState) (string, error) {
	plain, err := json.Marshal(st)
	if err != nil {
		return "", err
	}
	nonce := make([]byte, s.aead.NonceSize())
	if _, err := rand.Read(nonce); err != nil {
		return "", err
	}
	out := s.aead.Seal(nonce, nonce, plain, []byte("warden-request-state-v1"))
	return base64.RawURLEncoding.EncodeToString(out), nil
}

var errBadState = errors.New("invalid requestState")

func (s *sealer) open(tok string) (*roundState, error) {
	if len(tok) > maxStateBytes {
		return nil, errBadState
	}
	raw, err := base64.RawURLEncoding.DecodeString(tok)
	if err != nil || len(raw) < s.aead.NonceSize() {
		return nil, errBadState
	}
	ns := s.aead.NonceSize()
	plain, err := s.aead.Open(nil, raw[:ns], raw[ns:], []byte("warden-request-state-v1"))
	if err != nil {
		return nil, errBadState
	}
	var st roundState
	if err := json.Unmarshal(plain, &st); err != nil {
		return nil, errBadState
	}
	return &st, nil
}

func digest(b []byte) []byte {
	if len(b) == 0 || jsonwalk.IsNull(b) {
		b = []byte("{}")
	}
	h := sha256.Sum256(b)
	return h[:16]
}

// rounds holds one call's input-round bookkeeping.
type rounds struct {
	s      *Server
	method string
	target string
	digest []byte
	// args are hashed into digest on first use: most calls carry no
	// requestState and never ask for input, so they need no digest.
	args     json.RawMessage
	hashArgs bool
	caller   string
	answers  map[string]json.RawMessage
	state    []byte
	// checked: answers are given only to the questions in asked (a
	// round of the stateless revision; a task's answers were matched to
	// its questions when they came). stateID and expires are those of
	// the requestState the answers came with, which the first use
	// claims.
	checked bool
	asked   map[string][]byte
	stateID []byte
	expires int64
	claimed bool
}

// argsDigest returns the digest that binds a requestState to the
// call's arguments.
func (r *rounds) argsDigest() []byte {
	if r.hashArgs {
		r.digest, r.hashArgs = digest(r.args), false
	}
	return r.digest
}

// beginRounds opens the requestState (if any) and merges the new answers.
// Structurally invalid input responses and tampered or foreign state are
// protocol errors.
func (s *Server) beginRounds(ctx context.Context, method, target string, args json.RawMessage, p *params) (*rounds, *Error) {
	r := &rounds{s: s, method: method, target: target, args: args, hashArgs: true, caller: callerOf(ctx), checked: true}
	if len(p.requestState) > 0 && !jsonwalk.IsNull(p.requestState) {
		tok, ok := jsonwalk.Unquote(p.requestState)
		if !ok {
			return nil, rpcErr(CodeInvalidParams, KindInvalid, "invalid params: requestState must be a string")
		}
		st, err := s.sealer.open(tok)
		if err != nil {
			return nil, rpcErr(CodeInvalidParams, KindInvalid, "invalid params: requestState is invalid or was altered")
		}
		if st.Method != method || st.Target != target || string(st.Digest) != string(r.argsDigest()) || st.Caller != r.caller {
			return nil, rpcErr(CodeInvalidParams, KindInvalid, "invalid params: requestState belongs to another request")
		}
		if time.Now().Unix() > st.Expires {
			return nil, rpcErr(CodeInvalidParams, KindInvalid, "invalid params: requestState has expired")
		}
		if len(st.ID) == 0 {
			// A state sealed before states had ids cannot be spent
			// once: its answers are dropped and the handler asks again.
			st = &roundState{}
		}
		r.answers, r.state, r.asked, r.stateID, r.expires = st.Answers, st.State, st.Asked, st.ID, st.Expires
	}
	if len(p.inputResponses) > 0 {
		if jsonwalk.Kind(p.inputResponses) != "object" {
			return nil, rpcErr(CodeInvalidParams, KindInvalid, "invalid params: inputResponses must be an object")
		}
		var bad bool
		_ = jsonwalk.EachMember(p.inputResponses, func(k, v []byte) error {
			key, ok := jsonwalk.Unquote(k)
			if !ok || jsonwalk.Kind(v) != "object" {
				bad = true
				return nil
			}
			if _, asked := r.asked[key]; !asked {
				return nil // not a question of this round: ignored
			}
			if _, answered := r.answers[key]; answered {
				return nil // answered in an earlier round
			}
			if r.answers == nil {
				r.answers = map[string]json.RawMessage{}
			}
			r.answers[key] = append(json.RawMessage(nil), v...)
			return nil
		})
		if bad {
			return nil, rpcErr(CodeInvalidParams, KindInvalid, "invalid params: each input response must be an object")
		}
	}
	return r, nil
}

// input is the modern CallEnv.Input: answers already given to these very
// questions are returned, once the requestState they came with is
// claimed; any other question makes the call return ErrInputRequired.
func (r *rounds) input(ctx context.Context, reqs map[string]tool.InputRequest) (map[string]json.RawMessage, error) {
	out := make(map[string]json.RawMessage, len(reqs))
	missing := false
	for k, q := range reqs {
		a, ok := r.answers[k]
		if ok && r.checked && string(r.asked[k]) != string(questionDigest(q)) {
			// An answer to another question under this key.
			delete(r.answers, k)
			ok = false
		}
		if ok {
			out[k] = a
		} else {
			missing = true
		}
	}
	if len(out) > 0 && r.stateID != nil && !r.claimed {
		spent, err := r.claim(ctx)
		if err != nil {
			logStoreFailure(ctx, r.s.log, "input round state unavailable", err)
			return nil, &tool.Error{Code: "input_unavailable", Message: "the answers cannot be checked now; try again shortly", RetryAfter: 2 * time.Second}
		}
		r.claimed = true
		if spent {
			// A replay: its answers were used already. Ask again.
			r.answers = nil
			clear(out)
			missing = true
		}
	}
	if missing {
		return out, tool.ErrInputRequired
	}
	return out, nil
}

// claim records the use of the round's requestState in the state store,
// shared by every replica; spent is true when it was used before.
func (r *rounds) claim(ctx context.Context) (spent bool, err error) {
	sctx, cancel := context.WithTimeout(ctx, stateTimeout)
	defer cancel()
	// Kept a minute past the state's expiry, for replicas' clocks.
	_, err = r.s.state.PutState(sctx, statestore.Record{Kind: "round", ID: hex.EncodeToString(r.stateID), Owner: r.caller,
		Data: []byte("{}"), Expires: time.Unix(r.expires, 0).Add(time.Minute)})
	if errors.Is(err, statestore.ErrConflict) {
		return true, nil
	}
	return false, err
}

// questionDigest binds an answer to the question it answers.
func questionDigest(q tool.InputRequest) []byte {
	h := sha256.New()
	h.Write([]byte(q.Method))
	h.Write([]byte{0})
	h.Write(q.Params)
	return h.Sum(nil)[:12]
}

// inputRequired renders an InputRequiredResult for the call's pending
// questions.
func (r *rounds) inputRequired(pending map[string]tool.InputRequest, handlerState []byte) ([]byte, *Error) {
	id := make([]byte, 16)
	_, _ = rand.Read(id)
	// The answers carried on keep the questions they answered; the
	// questions now open are recorded for the answers to come.
	asked := make(map[string][]byte, len(r.answers)+len(pending))
	var answers map[string]json.RawMessage
	for k, a := range r.answers {
		if d, ok := r.asked[k]; ok {
			asked[k] = d
			if answers == nil {
				answers = map[string]json.RawMessage{}
			}
			answers[k] = a
		}
	}
	for k, q := range pending {
		asked[k] = questionDigest(q)
	}
	st := &roundState{
		ID: id, Asked: asked,
		Method: r.method, Target: r.target, Digest: r.argsDigest(), Caller: r.caller,
		Expires: time.Now().Add(r.s.opts.StateTTL).Unix(),
		Answers: answers, State: handlerState,
	}
	tok, err := r.s.sealer.seal(st)
	if err != nil {
		return nil, rpcErr(CodeInternalError, KindInternal, "internal error")
	}
	body := struct {
		ResultType    string                       `json:"resultType"`
		InputRequests map[string]tool.InputRequest `json:"inputRequests,omitempty"`
		RequestState  string                       `json:"requestState"`
		Meta          map[string]json.RawMessage   `json:"_meta"`
	}{"input_required", pending, tok, map[string]json.RawMessage{metaServerInfo: r.s.serverInfo}}
	b, err := json.Marshal(body)
	if err != nil {
		return nil, rpcErr(CodeInternalError, KindInternal, "internal error")
	}
	return b, nil
}
