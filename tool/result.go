package tool

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
)

// Content is one block of a tool result: text, image, audio, a link to a
// resource, or an embedded resource. Build blocks with Text, Image, Audio,
// ResourceLink and EmbeddedResource.
type Content struct {
	Type        string              `json:"type"`
	Text        string              `json:"text,omitempty"`
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
type Result struct {
	Content []Content
	// Structured is the structured content: a JSON value, usually an object.
	Structured json.RawMessage
	IsError    bool
	Warnings   []Warning
	// ErrorCode is the code of an error result, for audit and metrics.
	ErrorCode string
	// Interrupt is set instead of content when the call cannot finish
	// without the protocol layer: the client must answer input requests,
	// or lacks a capability. Servers handle it; clients never see it.
	Interrupt *Interrupt
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
type Error struct {
	Code    string
	Message string
	Details map[string]any
	Cause   error
}

func (e *Error) Error() string {
	if e.Cause != nil {
		return e.Code + ": " + e.Message + ": " + e.Cause.Error()
	}
	return e.Code + ": " + e.Message
}

// Unwrap returns the cause.
func (e *Error) Unwrap() error { return e.Cause }

// Errorf returns a tool error with a formatted public message. Never put a
// secret, a path or an upstream body into it.
func Errorf(code, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...)}
}

// Error codes the SDK itself produces.
const (
	CodeInvalidParams = "invalid_params"
	CodeInternal      = "internal_error"
	CodeNoActiveView  = "no_active_view"
	CodeCancelled     = "cancelled"
)

// errorResult shapes a tool error. Tools with an output schema get no
// structured content, because {errorCode, ...} would not match their
// schema; their details ({"retryAfterSeconds": 30}) follow the message
// as a second text block holding the details object.
func errorResult(e *Error, hasOutputSchema bool) *Result {
	r := &Result{
		IsError:   true,
		ErrorCode: e.Code,
		Content:   []Content{Text(e.Code + ": " + e.Message)},
	}
	if hasOutputSchema && len(e.Details) > 0 {
		if b, err := json.Marshal(e.Details); err == nil {
			r.Content = append(r.Content, Text(string(b)))
		}
	}
	if !hasOutputSchema {
		body := struct {
			Code    string         `json:"errorCode"`
			Message string         `json:"errorMessage"`
			Details map[string]any `json:"details,omitempty"`
		}{e.Code, e.Message, e.Details}
		if b, err := json.Marshal(body); err == nil {
			r.Structured = b
		} else {
			body.Details = nil
			r.Structured, _ = json.Marshal(body)
		}
	}
	return r
}

// addWarnings merges warnings into the result: into the structured object
// as "warnings", and as text lines after any text.
func addWarnings(r *Result, ws []Warning) {
	if len(ws) == 0 {
		return
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
	if len(r.Structured) > 0 && r.Structured[0] == '{' {
		wb, err := json.Marshal(r.Warnings)
		if err != nil {
			return
		}
		body := r.Structured[1 : len(r.Structured)-1]
		merged := make([]byte, 0, len(r.Structured)+len(wb)+16)
		merged = append(merged, '{')
		merged = append(merged, body...)
		if len(strings.TrimSpace(string(body))) > 0 {
			merged = append(merged, ',')
		}
		merged = append(merged, `"warnings":`...)
		merged = append(merged, wb...)
		merged = append(merged, '}')
		r.Structured = merged
	}
}

// asToolError finds a *Error in err's chain.
func asToolError(err error) (*Error, bool) {
	var te *Error
	if errors.As(err, &te) {
		return te, true
	}
	return nil, false
}
