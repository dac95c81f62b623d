package tool

import (
	"encoding/json"
	"errors"

	"github.com/warden-mcp/warden/internal/jsonwalk"
)

// ordered is a JSON object held as a value: its members in order. Schemas
// and merged results are built as values and marshalled once, never
// spliced as bytes.
type ordered[V any] struct {
	names  []string
	values []V
}

// set replaces a member's value, or adds the member at the end.
func (o *ordered[V]) set(name string, v V) {
	for i, n := range o.names {
		if n == name {
			o.values[i] = v
			return
		}
	}
	o.names = append(o.names, name)
	o.values = append(o.values, v)
}

// MarshalJSON writes the members in order; encoding/json writes each name
// and value (validating and compacting raw values).
func (o *ordered[V]) MarshalJSON() ([]byte, error) {
	b := []byte{'{'}
	for i, n := range o.names {
		if i > 0 {
			b = append(b, ',')
		}
		k, err := json.Marshal(n)
		if err != nil {
			return nil, err
		}
		v, err := json.Marshal(o.values[i])
		if err != nil {
			return nil, err
		}
		b = append(append(append(b, k...), ':'), v...)
	}
	return append(b, '}'), nil
}

// decodeObjectValue reads a JSON object, keeping its member order. A
// repeated member keeps its first position and its last value, as
// encoding/json does.
func decodeObjectValue(b []byte) (*ordered[json.RawMessage], error) {
	if !json.Valid(b) || jsonwalk.Kind(b) != "object" {
		return nil, errors.New("not a JSON object")
	}
	o := &ordered[json.RawMessage]{}
	err := jsonwalk.EachMember(b, func(rawKey, val []byte) error {
		k, ok := jsonwalk.Unquote(rawKey)
		if !ok {
			return errors.New("bad member name")
		}
		o.set(k, json.RawMessage(val))
		return nil
	})
	if err != nil {
		return nil, err
	}
	return o, nil
}
