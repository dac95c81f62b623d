package tool

import (
	"encoding/json"
	"fmt"
	"reflect"

	"github.com/warden-mcp/warden/privacy"
)

// A string field of an output type may declare what it holds with a privacy
// kind from package privacy (`privacy:"url"`), so a server's privacy mode
// can redact it before the result is marshalled; on a slice or map the kind
// applies to its elements. privacy.Plain declares that a field holds nothing
// sensitive. Whatever the tags, a server may also run a credential pass over
// every string of every result. On an argument (a field of the input type)
// a kind other than plain says the server must never repeat it: it is
// published as x-warden-privacy in the input schema, and Warden's approval
// questions show its marker instead of its value.

// applyPrivacy reads a field's privacy tag onto its node and, for slices
// and maps, onto their elements.
func applyPrivacy(n *node, tag reflect.StructTag) error {
	p, ok := tag.Lookup("privacy")
	if !ok {
		return nil
	}
	if !privacy.Known(p) {
		return fmt.Errorf("privacy: unknown kind %q", p)
	}
	for m := n; m != nil; m = m.items {
		switch m.kind {
		case kString, kRaw:
			m.privacy = p
			return nil
		case kArray, kMap:
			m.privacy = p
		default:
			return fmt.Errorf("privacy applies to strings, raw JSON, and slices and maps of them, not to %s", n.typ)
		}
	}
	return nil
}

// redacts reports whether a value of n's shape holds a string that a
// privacy mode may change: one tagged with a kind other than plain.
func (n *node) redacts() bool {
	switch n.kind {
	case kString, kRaw:
		return privacy.Redacts(n.privacy)
	case kArray, kMap:
		return n.items.redacts()
	case kObject:
		for _, f := range n.fields {
			if !f.reserved && f.node.redacts() {
				return true
			}
		}
	}
	return false
}

// Redactor changes one tagged value: kind is its privacy kind, name its
// JSON member name or map key.
type Redactor func(kind, name, value string) string

// redactValue returns v with every tagged string passed through fn, copying
// only what changes: the handler's own value is never modified.
func redactValue(n *node, v reflect.Value, name string, fn Redactor) (reflect.Value, bool) {
	switch n.kind {
	case kString:
		if !privacy.Redacts(n.privacy) {
			return v, false
		}
		s := v.String()
		r := fn(n.privacy, name, s)
		if r == s {
			return v, false
		}
		nv := reflect.New(v.Type()).Elem()
		nv.SetString(r)
		return nv, true
	case kRaw:
		if !privacy.Redacts(n.privacy) || v.Type() != rawMessageType || v.Len() == 0 {
			return v, false
		}
		s := string(v.Bytes())
		r := fn(n.privacy, name, s)
		if r == s {
			return v, false
		}
		b, _ := json.Marshal(r) // the redacted form is written as a JSON string
		return reflect.ValueOf(json.RawMessage(b)), true
	case kArray:
		if !n.items.redacts() {
			return v, false
		}
		var out reflect.Value
		for i := 0; i < v.Len(); i++ {
			nv, changed := redactValue(n.items, v.Index(i), name, fn)
			if !changed {
				continue
			}
			if !out.IsValid() {
				out = reflect.MakeSlice(v.Type(), v.Len(), v.Len())
				reflect.Copy(out, v)
			}
			out.Index(i).Set(nv)
		}
		return out, out.IsValid()
	case kMap:
		if !n.items.redacts() || v.Len() == 0 {
			return v, false
		}
		var out reflect.Value
		iter := v.MapRange()
		for iter.Next() {
			nv, changed := redactValue(n.items, iter.Value(), iter.Key().String(), fn)
			if !changed {
				continue
			}
			if !out.IsValid() {
				out = reflect.MakeMapWithSize(v.Type(), v.Len())
				iter2 := v.MapRange()
				for iter2.Next() {
					out.SetMapIndex(iter2.Key(), iter2.Value())
				}
			}
			out.SetMapIndex(iter.Key(), nv)
		}
		return out, out.IsValid()
	case kObject:
		if !n.redacts() {
			return v, false
		}
		var out reflect.Value
		for _, f := range n.fields {
			if f.reserved || !f.node.redacts() {
				continue
			}
			fv := v.Field(f.index)
			if f.ptr {
				if fv.IsNil() {
					continue
				}
				fv = fv.Elem()
			}
			nv, changed := redactValue(f.node, fv, f.name, fn)
			if !changed {
				continue
			}
			if !out.IsValid() {
				out = reflect.New(v.Type()).Elem()
				out.Set(v)
			}
			if f.ptr {
				p := reflect.New(nv.Type())
				p.Elem().Set(nv)
				nv = p
			}
			out.Field(f.index).Set(nv)
		}
		return out, out.IsValid()
	}
	return v, false
}

// redactOutput applies fn to a typed result before it is marshalled. out
// may be a struct or a pointer to one.
func redactOutput(n *node, out any, fn Redactor) any {
	v := reflect.ValueOf(out)
	for v.Kind() == reflect.Pointer {
		if v.IsNil() {
			return out
		}
		v = v.Elem()
	}
	if nv, changed := redactValue(n, v, "", fn); changed {
		return nv.Interface()
	}
	return out
}
