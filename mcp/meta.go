package mcp

import (
	"encoding/json"

	"github.com/warden-mcp/warden/internal/jsonwalk"
)

// clientCaps is what a client declared it can do: in the request's _meta
// (modern) or at initialize (legacy).
type clientCaps struct {
	elicitation, elicitationURL bool
	sampling, samplingTools     bool
	roots                       bool
	tasks                       bool
}

// capsDoc is clientCaps as kept in the state store.
type capsDoc struct {
	Elicitation    bool `json:"elicitation,omitempty"`
	ElicitationURL bool `json:"elicitationUrl,omitempty"`
	Sampling       bool `json:"sampling,omitempty"`
	SamplingTools  bool `json:"samplingTools,omitempty"`
	Roots          bool `json:"roots,omitempty"`
	Tasks          bool `json:"tasks,omitempty"`
}

func (c clientCaps) doc() capsDoc {
	return capsDoc{c.elicitation, c.elicitationURL, c.sampling, c.samplingTools, c.roots, c.tasks}
}

func (d capsDoc) caps() clientCaps {
	return clientCaps{d.Elicitation, d.ElicitationURL, d.Sampling, d.SamplingTools, d.Roots, d.Tasks}
}

func (c clientCaps) supports(name string) bool {
	switch name {
	case "elicitation":
		return c.elicitation
	case "sampling":
		return c.sampling
	case "roots":
		return c.roots
	}
	return false
}

// meets reports whether the client declared every capability in needs.
func (c clientCaps) meets(needs []string) bool {
	for _, n := range needs {
		if !c.supports(n) {
			return false
		}
	}
	return true
}

// hasMember reports whether the JSON object obj has a member whose quoted
// key is key.
func hasMember(obj []byte, key string) bool {
	found := false
	_ = jsonwalk.EachMember(obj, func(k, _ []byte) error {
		if string(memberKey(k)) == key {
			found = true
		}
		return nil
	})
	return found
}

func parseCaps(raw []byte) (clientCaps, bool) {
	var c clientCaps
	if jsonwalk.Kind(raw) != "object" {
		return c, false
	}
	_ = jsonwalk.EachMember(raw, func(k, v []byte) error {
		obj := jsonwalk.Kind(v) == "object"
		switch string(memberKey(k)) {
		case `"elicitation"`:
			c.elicitation = obj
			c.elicitationURL = obj && hasMember(v, `"url"`)
		case `"sampling"`:
			c.sampling = obj
			c.samplingTools = obj && hasMember(v, `"tools"`)
		case `"roots"`:
			c.roots = obj
		case `"extensions"`:
			c.tasks = obj && hasMember(v, `"`+taskExtension+`"`)
		}
		return nil
	})
	return c, true
}

// reqMeta is the parsed _meta of a request.
type reqMeta struct {
	present       bool
	version       string
	hasVersion    bool
	caps          clientCaps
	hasCaps       bool
	logLevel      string
	hasLogLevel   bool
	progressToken json.RawMessage
	// client is the client's self-declared name (clientInfo.name).
	client string
	// dup is set when one of the members above appears twice.
	dup bool
}

// params holds the members of a request's params that the dispatcher
// reads, split out in one pass without decoding the rest.
type params struct {
	meta           reqMeta
	name           []byte // raw JSON string
	uri            []byte
	arguments      json.RawMessage
	inputResponses json.RawMessage
	requestState   json.RawMessage
	cursor         json.RawMessage
	hasMeta        bool
}

func splitParams(raw json.RawMessage) (params, *Error) {
	var p params
	if len(raw) == 0 {
		return p, nil
	}
	dup := false
	var seen uint8
	mark := func(bit uint8) {
		if seen&bit != 0 {
			dup = true
		}
		seen |= bit
	}
	_ = jsonwalk.EachMember(raw, func(k, v []byte) error {
		switch string(memberKey(k)) {
		case `"_meta"`:
			mark(1)
			p.hasMeta = true
			p.meta = parseMeta(v)
		case `"name"`:
			mark(2)
			p.name = v
		case `"uri"`:
			mark(4)
			p.uri = v
		case `"arguments"`:
			mark(8)
			p.arguments = v
		case `"inputResponses"`:
			mark(16)
			p.inputResponses = v
		case `"requestState"`:
			mark(32)
			p.requestState = v
		case `"cursor"`:
			mark(64)
			p.cursor = v
		}
		return nil
	})
	if dup {
		return p, rpcErr(CodeInvalidParams, KindInvalid, "invalid params: duplicate member")
	}
	return p, nil
}

// nameOf reads a member that must be a JSON string (a name, a URI).
func nameOf(raw []byte) (string, bool) {
	if jsonwalk.Kind(raw) != "string" {
		return "", false
	}
	return jsonwalk.Unquote(raw)
}

// eachParam calls fn with the raw value of one member of params.
func eachParam(params []byte, name string, fn func(v []byte)) error {
	if jsonwalk.Kind(params) != "object" {
		return nil
	}
	return jsonwalk.EachMember(params, func(k, v []byte) error {
		if key, ok := jsonwalk.Unquote(k); ok && key == name {
			fn(v)
		}
		return nil
	})
}

func parseMeta(v []byte) reqMeta {
	m := reqMeta{present: jsonwalk.Kind(v) == "object"}
	if !m.present {
		return m
	}
	var seen uint8
	mark := func(bit uint8) {
		if seen&bit != 0 {
			m.dup = true
		}
		seen |= bit
	}
	_ = jsonwalk.EachMember(v, func(k, val []byte) error {
		switch string(memberKey(k)) {
		case `"` + metaProtocolVersion + `"`:
			mark(1)
			if s, ok := jsonwalk.Unquote(val); ok {
				m.version, m.hasVersion = s, true
			}
		case `"` + metaClientCaps + `"`:
			mark(2)
			m.caps, m.hasCaps = parseCaps(val)
		case `"` + metaLogLevel + `"`:
			mark(4)
			m.hasLogLevel = true
			m.logLevel, _ = jsonwalk.Unquote(val)
			if jsonwalk.Kind(val) != "string" {
				m.logLevel = "\x00invalid"
			}
		case `"progressToken"`:
			mark(8)
			if k := jsonwalk.Kind(val); k == "string" || k == "number" {
				m.progressToken = val
			}
		case `"` + metaClientInfo + `"`:
			mark(16)
			m.client = clientName(val)
		}
		return nil
	})
	return m
}

// maxClientName bounds a client's self-declared name.
const maxClientName = 128

// clientName reads clientInfo.name, cut to a bounded length. It is what
// the client says about itself: fit for remembering approvals per client
// and for messages, never for access decisions.
func clientName(info []byte) string {
	name := ""
	if jsonwalk.Kind(info) != "object" {
		return ""
	}
	_ = jsonwalk.EachMember(info, func(k, v []byte) error {
		if string(memberKey(k)) == `"name"` {
			name, _ = jsonwalk.Unquote(v)
		}
		return nil
	})
	if len(name) > maxClientName {
		name = name[:maxClientName]
	}
	return name
}

// checkModernMeta is step 7 of the validation order: the _meta that
// every modern request must carry.
func checkModernMeta(p *params) *Error {
	if !p.hasMeta || !p.meta.present {
		return rpcErr(CodeInvalidParams, KindInvalid, "invalid params: _meta with "+metaProtocolVersion+" and "+metaClientCaps+" is required")
	}
	if p.meta.dup {
		return rpcErr(CodeInvalidParams, KindInvalid, "invalid params: duplicate member in _meta")
	}
	if !p.meta.hasVersion {
		return rpcErr(CodeInvalidParams, KindInvalid, "invalid params: _meta."+metaProtocolVersion+" is required")
	}
	if !p.meta.hasCaps {
		return rpcErr(CodeInvalidParams, KindInvalid, "invalid params: _meta."+metaClientCaps+" is required and must be an object")
	}
	return nil
}

// checkVersion is step 9: the version must be one this server serves.
func checkVersion(v string) *Error {
	for _, s := range modernVersions {
		if v == s {
			return nil
		}
	}
	e := rpcErr(CodeUnsupportedVer, KindInvalid, "unsupported protocol version")
	e.Data = map[string]any{"supported": modernVersions, "requested": v}
	return e
}

// checkLogLevel validates the opt-in log level.
func checkLogLevel(m *reqMeta) *Error {
	if m.hasLogLevel && !validLogLevel(m.logLevel) {
		return rpcErr(CodeInvalidParams, KindInvalid, "invalid params: unknown log level")
	}
	return nil
}

func missingCapability(name string) *Error {
	e := rpcErr(CodeMissingCapability, KindInvalid, "the client must declare the "+name+" capability for this request")
	e.Data = map[string]any{"requiredCapabilities": map[string]any{name: map[string]any{}}}
	return e
}

// validLogLevel reports whether s is an MCP logging level.
func validLogLevel(s string) bool { return logLevelRank(s) >= 0 }

// logLevelRank orders the MCP logging levels; -1 for an unknown one.
func logLevelRank(s string) int {
	switch s {
	case "debug":
		return 0
	case "info":
		return 1
	case "notice":
		return 2
	case "warning":
		return 3
	case "error":
		return 4
	case "critical":
		return 5
	case "alert":
		return 6
	case "emergency":
		return 7
	}
	return -1
}
