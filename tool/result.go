package tool

import (
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"strings"
	"time"

	"github.com/warden-mcp/warden/errcode"
	"github.com/warden-mcp/warden/internal/jsonwalk"
)

// Content is one block of a tool result: text, image, audio, a link to a
// resource, or an embedded resource. Build blocks with Text, Image, Audio,
// ResourceLink and EmbeddedResource. A text block always carries its text,
// even when it is empty ("text":""), as the MCP schema requires.
type Content struct {
	Type        string              `json:"type"`
	Text        string              `json:"text,omitempty"` // always written for a text block; see MarshalJSON
	Data        string              `json:"data,omitempty"` // base64, for image and audio
	MIMEType    string              `json:"mimeType,omitempty"`
	URI         string              `json:"uri,omitempty"` // resource_link
	Name        string              `json:"name,omitempty"`
	Title       string              `json:"title,omitempty"`
	Description string              `json:"description,omitempty"`
	Size        *int64              `json:"size,omitempty"`
	Resource    *ResourceContents   `json:"resource,omitempty"` // resource
	Annotations *ContentAnnotations `json:"annotations,omitempty"`
}

// ContentAnnotations tell a client who a block is for and how much it
// matters.
type ContentAnnotations struct {
	Audience     []string `json:"audience,omitempty"` // "user", "assistant"
	Priority     *float64 `json:"priority,omitempty"` // 0..1
	LastModified string   `json:"lastModified,omitempty"`
}

// ResourceContents is the body of a resource: text or a base64 blob.
type ResourceContents struct {
	URI      string          `json:"uri"`
	MIMEType string          `json:"mimeType,omitempty"`
	Text     *string         `json:"text,omitempty"`
	Blob     *string         `json:"blob,omitempty"`
	Meta     json.RawMessage `json:"_meta,omitempty"`
}

// contentJSON is Content as written: Text is a pointer so that a text block
// keeps an empty text and other blocks leave it out.
type contentJSON struct {
	Type        string              `json:"type"`
	Text        *string             `json:"text,omitempty"`
	Data        string              `json:"data,omitempty"`
	MIMEType    string              `json:"mimeType,omitempty"`
	URI         string              `json:"uri,omitempty"`
	Name        string              `json:"name,omitempty"`
	Title       string              `json:"title,omitempty"`
	Description string              `json:"description,omitempty"`
	Size        *int64              `json:"size,omitempty"`
	Resource    *ResourceContents   `json:"resource,omitempty"`
	Annotations *ContentAnnotations `json:"annotations,omitempty"`
}

// MarshalJSON writes the block, with "text" always present in a text
// block.
func (c Content) MarshalJSON() ([]byte, error) {
	w := contentJSON{
		Type: c.Type, Data: c.Data, MIMEType: c.MIMEType, URI: c.URI, Name: c.Name, Title: c.Title,
		Description: c.Description, Size: c.Size, Resource: c.Resource, Annotations: c.Annotations,
	}
	if c.Type == "text" || c.Text != "" {
		w.Text = &c.Text
	}
	return json.Marshal(w)
}

// Text returns a text block.
func Text(s string) Content { return Content{Type: "text", Text: s} }

// Image returns an image block; data is base64.
func Image(data, mimeType string) Content {
	return Content{Type: "image", Data: data, MIMEType: mimeType}
}

// Audio returns an audio block; data is base64.
func Audio(data, mimeType string) Content {
	return Content{Type: "audio", Data: data, MIMEType: mimeType}
}

// ResourceLink returns a block pointing at a resource the client can read.
func ResourceLink(uri, name, mimeType string) Content {
	return Content{Type: "resource_link", URI: uri, Name: name, MIMEType: mimeType}
}

// EmbeddedResource returns a block carrying a resource's text.
func EmbeddedResource(uri, mimeType, text string) Content {
	return Content{Type: "resource", Resource: &ResourceContents{URI: uri, MIMEType: mimeType, Text: &text}}
}

// Warning is an advisory note a handler attaches to a result: analysis
// incomplete, a partial read. Facts about the result belong in the result.
type Warning struct {
	Code    string `json:"code"`
	Message string `json:"message"`
}

// Result is what a tool call returns, in the shape of the MCP
// CallToolResult. Typed handlers rarely build one: Add turns their output
// into a Result.
//
// The SDK completes every result the same way before a client sees it:
//   - a handler that returns "" gets one text block with "text":"";
//   - a result with structured content and no content blocks also gets the
//     structured JSON as a text block, for clients that read text only;
//   - warnings join the structured object as "warnings" (merged as a JSON
//     value) and follow the text as a "Warnings:" block.
type Result struct {
	Content []Content
	// Structured is the structured content: a JSON value, usually an object.
	Structured json.RawMessage
	IsError    bool
	Warnings   []Warning
	// ErrorCode is the code of an error result, for audit and metrics.
	ErrorCode string
	// built marks a result the SDK made itself from a typed handler's
	// output: compact, valid JSON that no one else holds, so completing it
	// may change it in place.
	built bool
}

// resultJSON is the wire form of a Result.
type resultJSON struct {
	Content           []Content       `json:"content"`
	StructuredContent json.RawMessage `json:"structuredContent,omitempty"`
	IsError           bool            `json:"isError"`
}

// MarshalJSON renders the CallToolResult body (without resultType and
// _meta, which the protocol layer adds).
func (r *Result) MarshalJSON() ([]byte, error) {
	if b, ok := appendPlainResult(nil, r); ok {
		return b, nil
	}
	c := r.Content
	if c == nil {
		c = []Content{}
	}
	return json.Marshal(resultJSON{Content: c, StructuredContent: r.Structured, IsError: r.IsError})
}

// Error is a tool error: a stable snake_case code, a short public message,
// and optional details (a JSON object). It becomes an error result the
// model can read and act on. The cause, if any, is logged, never returned.
// It is the same type the engines return (package errcode), so a handler
// may return an engine's error as it is. A RetryAfter becomes the
// retryAfterSeconds detail.
type Error = errcode.Error

// Errorf returns a tool error with a formatted public message. Never put a
// secret, a path or an upstream body into it.
func Errorf(code, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...)}
}

// Error codes the SDK itself produces.
const (
	CodeInvalidParams = "invalid_params"
	CodeInternal      = "internal_error"
	// CodeNoActiveView: a view-scoped tool was called with no view named
	// and none active (Binary Ninja's code; the details list the open
	// view handles).
	CodeNoActiveView = "no_active_binary_view"
	CodeCancelled    = "cancelled"
)

// errorResult shapes a tool error. The text is "code: message". Tools
// without an output schema also get {errorCode, errorMessage, details} as
// structured content; tools with one (whose schema an error object would
// not match) get the details as a JSON line after the text instead, so a
// client reads retryAfterSeconds either way.
func errorResult(e *Error, hasOutputSchema bool) *Result {
	r := &Result{IsError: true, ErrorCode: e.Code}
	details := e.Details
	if s := retryAfterSeconds(e.RetryAfter); s > 0 {
		if _, set := details["retryAfterSeconds"]; !set {
			details = make(map[string]any, len(e.Details)+1)
			maps.Copy(details, e.Details)
			details["retryAfterSeconds"] = s
		}
	}
	db, err := json.Marshal(details)
	if err != nil || len(details) == 0 {
		details, db = nil, nil // details that cannot be written are dropped, never half-written
	}
	text := e.Code + ": " + e.Message
	if hasOutputSchema {
		if db != nil {
			text += "\n" + string(db)
		}
		r.Content = []Content{Text(text)}
		return r
	}
	r.Content = []Content{Text(text)}
	r.Structured, _ = json.Marshal(struct {
		Code    string          `json:"errorCode"`
		Message string          `json:"errorMessage"`
		Details json.RawMessage `json:"details,omitempty"`
	}{e.Code, e.Message, db})
	return r
}

// retryAfterSeconds rounds a retry delay up to whole seconds.
func retryAfterSeconds(d time.Duration) int64 {
	if d <= 0 {
		return 0
	}
	return int64((d + time.Second - 1) / time.Second)
}

// addWarnings merges warnings into the result: as the "warnings" member of
// a structured object, and as a text block after any text.
func addWarnings(r *Result, ws []Warning) error {
	if len(ws) == 0 {
		return nil
	}
	r.Warnings = append(r.Warnings, ws...)
	var sb strings.Builder
	sb.WriteString("Warnings:")
	for _, w := range r.Warnings {
		sb.WriteString("\n- ")
		sb.WriteString(w.Code)
		sb.WriteString(": ")
		sb.WriteString(w.Message)
	}
	r.Content = append(r.Content, Text(sb.String()))
	if jsonwalk.Kind(r.Structured) != "object" {
		return nil
	}
	obj, err := decodeObjectValue(r.Structured)
	if err != nil {
		return err
	}
	wb, err := json.Marshal(r.Warnings)
	if err != nil {
		return err
	}
	obj.set("warnings", wb)
	merged, err := json.Marshal(obj)
	if err != nil {
		return err
	}
	r.Structured = merged
	return nil
}

// asToolError finds a *Error in err's chain.
func asToolError(err error) (*Error, bool) {
	var te *Error
	if errors.As(err, &te) {
		return te, true
	}
	return nil, false
}
