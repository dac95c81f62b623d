package tool

import (
	"fmt"
	"reflect"
)

// View is a target a view-scoped tool acts on: an open binary, say. A view
// that also implements addrexpr.Target evaluates the tool's address
// parameters.
type View interface {
	// ViewName identifies the target in messages (never a full path).
	ViewName() string
}

// ViewParam is the parameter the SDK adds to every view-scoped tool: the
// handle of the view to act on. It is optional; without it the server
// uses the session's active view or the caller's only open view. A
// view-scoped tool's own arguments may not use the name.
const ViewParam = "view"

const viewParamDesc = "Handle of the open view to act on, as the tool that opened it or a listing of open views returned it. " +
	"Optional: without it the session's active view, or the caller's only open view, is used."

// reserveViewParam adds the view parameter to a view-scoped tool's
// arguments: published in the schema, checked by the decoder, stored
// nowhere (the server has resolved it before the arguments are decoded).
func reserveViewParam(root *node) error {
	if _, taken := root.byName[ViewParam]; taken {
		return fmt.Errorf("argument %q is reserved for view-scoped tools", ViewParam)
	}
	f := &field{
		name:     ViewParam,
		index:    -1,
		pos:      len(root.fields),
		optional: true,
		reserved: true,
		node: &node{kind: kString, typ: reflect.TypeFor[string](), desc: viewParamDesc,
			minLen: 1, maxLen: maxViewHandle, minItems: -1, maxItems: -1},
	}
	root.fields = append(root.fields, f)
	root.byName[ViewParam] = f
	return nil
}

// maxViewHandle bounds a view handle's length.
const maxViewHandle = 512
