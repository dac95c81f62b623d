package mcp

import (
	"bytes"
)

// idScan reads the top level of one JSON-RPC message as its bytes stream
// past, for a message too large to keep: which members it has and the
// value of its id. It keeps a few bytes of state, never the message, so
// the id is found wherever the client put it (the TypeScript SDK writes
// it last, after params) at no more memory than a short message costs.
//
// It trusts nothing: a member name longer than any it looks for is not
// read, an id longer than a JSON-RPC id may be is not kept, a second id
// makes the id unknown, and a top level that is not an object ends the
// scan. Values are skipped by their brackets and quotes, not validated.
type idScan struct {
	st    scanState
	depth int  // open brackets inside the current value (sNested)
	esc   bool // the previous byte was a backslash inside a string
	// key is the current member's name, raw and quoted; keyOver says it
	// was longer than maxKeyBytes.
	key     []byte
	keyOver bool
	// capture says the current value is the id's; id collects it, and
	// idDone says it was read to its end.
	capture, idDone, idOver bool
	id                      []byte
	ids                     int // id members seen
	// method, response: a method member (a request or a notification);
	// a result or error member (a response).
	method, response bool
	n                int64 // bytes scanned
}

type scanState uint8

const (
	sStart     scanState = iota // before the top-level '{'
	sKey                        // before a member name, or '}'
	sKeyStr                     // inside a member name
	sColon                      // after a member name
	sValue                      // before a value
	sStr                        // inside a string value
	sNested                     // inside an object or array value
	sNestedStr                  // inside a string within one
	sScalar                     // inside a number, true, false or null
	sAfter                      // after a value: ',' or '}'
	sEnd                        // after the top-level '}'
	sBad                        // not an object, or malformed at the top
)

// maxKeyBytes bounds the member names kept: "id", "method", "result" and
// "error" fit, escaped too ("\u0069\u0064" is 14 bytes).
const maxKeyBytes = 32

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

// feed scans the next bytes of the message.
func (s *idScan) feed(b []byte) {
	s.n += int64(len(b))
	for i := 0; i < len(b); i++ {
		c := b[i]
		switch s.st {
		case sStart:
			switch {
			case isSpace(c):
			case c == '{':
				s.st = sKey
			default:
				s.st = sBad
			}
		case sKey:
			switch {
			case isSpace(c):
			case c == '"':
				s.key, s.keyOver, s.esc = append(s.key[:0], c), false, false
				s.st = sKeyStr
			case c == '}':
				s.st = sEnd
			default:
				s.st = sBad
			}
		case sKeyStr:
			s.addKey(c)
			switch {
			case s.esc:
				s.esc = false
			case c == '\\':
				s.esc = true
			case c == '"':
				s.st = sColon
			}
		case sColon:
			switch {
			case isSpace(c):
			case c == ':':
				s.member()
				s.st = sValue
			default:
				s.st = sBad
			}
		case sValue:
			switch {
			case isSpace(c):
				continue
			case c == '"':
				s.st, s.esc = sStr, false
			case c == '{' || c == '[':
				s.st, s.depth = sNested, 1
			case c == ',' || c == '}' || c == ']' || c == ':':
				s.st = sBad
				continue
			default:
				s.st = sScalar
			}
			s.take(c)
		case sStr:
			if (!s.capture || s.idOver) && !s.esc {
				// Skip to the next quote or backslash: string values are
				// most of an oversized message.
				j := bytes.IndexAny(b[i:], `"\`)
				if j < 0 {
					return
				}
				i += j
				c = b[i]
			}
			s.take(c)
			switch {
			case s.esc:
				s.esc = false
			case c == '\\':
				s.esc = true
			case c == '"':
				s.endValue()
			}
		case sNested:
			// An object or array is never a valid id: skip it by its
			// brackets, stepping over strings.
			j := bytes.IndexAny(b[i:], `"{}[]`)
			if j < 0 {
				return
			}
			i += j
			switch b[i] {
			case '"':
				s.st, s.esc = sNestedStr, false
			case '{', '[':
				s.depth++
			default:
				if s.depth--; s.depth == 0 {
					s.endValue()
				}
			}
		case sNestedStr:
			if s.esc {
				s.esc = false
				continue
			}
			j := bytes.IndexAny(b[i:], `"\`)
			if j < 0 {
				return
			}
			i += j
			if b[i] == '\\' {
				s.esc = true
			} else {
				s.st = sNested
			}
		case sScalar:
			if isSpace(c) || c == ',' || c == '}' {
				s.endValue()
				i-- // the delimiter is the next state's
				continue
			}
			s.take(c)
		case sAfter:
			switch {
			case isSpace(c):
			case c == ',':
				s.st = sKey
			case c == '}':
				s.st = sEnd
			default:
				s.st = sBad
			}
		case sEnd:
			if !isSpace(c) {
				s.st = sBad
			}
		case sBad:
			return
		}
	}
}

func (s *idScan) addKey(c byte) {
	if len(s.key) >= maxKeyBytes {
		s.keyOver = true
		return
	}
	s.key = append(s.key, c)
}

// member notes the member whose value starts now.
func (s *idScan) member() {
	if s.keyOver {
		return
	}
	switch string(memberKey(s.key)) {
	case `"id"`:
		s.ids++
		s.capture = s.ids == 1
	case `"method"`:
		s.method = true
	case `"result"`, `"error"`:
		s.response = true
	}
}

// take collects a byte of the id's value.
func (s *idScan) take(c byte) {
	if !s.capture || s.idOver {
		return
	}
	if len(s.id) >= maxIDBytes+2 {
		s.idOver = true
		return
	}
	s.id = append(s.id, c)
}

func (s *idScan) endValue() {
	if s.capture {
		s.capture, s.idDone = false, true
	}
	s.st = sAfter
}

// requestID returns the id of a request that can be answered: exactly
// one id member, read whole and valid as an id, and a method member with
// no result or error member beside it.
func (s *idScan) requestID() ([]byte, bool) {
	if s.ids != 1 || !s.idDone || s.idOver || !s.method || s.response || !validID(s.id) {
		return nil, false
	}
	return s.id, true
}
