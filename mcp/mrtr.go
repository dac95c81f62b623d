package mcp

import (
	"context"
	"crypto/aes"
	"crypto/cipher"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"time"

	"github.com/warden-mcp/warden/internal/jsonwalk"
	"github.com/warden-mcp/warden/tool"
)

// The stateless revision cannot hold a call open while the client answers
// an input request. The server returns the questions with a requestState;
// the client retries the same call with the answers and the state. The
// state carries the answers gathered so far and the handler's own state,
// sealed with AES-256-GCM: the client can neither read nor alter it, and
// it is bound to the method, the target (tool, prompt or URI), a digest of
// the arguments, the caller and an expiry.

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
	r := &rounds{s: s, method: method, target: target, args: args, hashArgs: true, caller: callerOf(ctx)}
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
		r.answers, r.state = st.Answers, st.State
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

// input is the modern CallEnv.Input: answers already given are returned;
// any other question makes the call return ErrInputRequired.
func (r *rounds) input(_ context.Context, reqs map[string]tool.InputRequest) (map[string]json.RawMessage, error) {
	out := make(map[string]json.RawMessage, len(reqs))
	missing := false
	for k := range reqs {
		if a, ok := r.answers[k]; ok {
			out[k] = a
		} else {
			missing = true
		}
	}
	if missing {
		return out, tool.ErrInputRequired
	}
	return out, nil
}

// inputRequired renders an InputRequiredResult for the call's pending
// questions.
func (r *rounds) inputRequired(pending map[string]tool.InputRequest, handlerState []byte) ([]byte, *Error) {
	st := &roundState{
		Method: r.method, Target: r.target, Digest: r.argsDigest(), Caller: r.caller,
		Expires: time.Now().Add(r.s.opts.StateTTL).Unix(),
		Answers: r.answers, State: handlerState,
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
