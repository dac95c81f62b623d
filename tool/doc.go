// Package tool is Warden's SDK for MCP tools.
//
// A tool is a typed function and a struct of arguments. The SDK derives the
// tool's JSON Schema from the struct, checks and defaults the arguments
// before the function runs, and shapes what comes back - results, warnings,
// errors, panics - the same way for every tool:
//
//	type scanArgs struct {
//		Text  string `json:"text" desc:"Text to scan" maxLength:"256000"`
//		Depth int    `json:"depth" default:"2" min:"0" max:"4" desc:"Decoding depth"`
//	}
//
//	reg := tool.NewRegistry()
//	tool.Add(reg, tool.Def{
//		Name:        "example_scan",
//		Description: "Scan text.",
//		Annotations: tool.Annotations{ReadOnly: true, Idempotent: true},
//		Catalog:     tool.Catalog{Category: "secrets", Trust: tool.TrustAuto},
//	}, func(ctx context.Context, call *tool.Call, in scanArgs) (scanResult, error) {
//		...
//	})
//
// # Definitions
//
// A Def names the tool (1-64 characters of A-Z a-z 0-9 _ -), describes it,
// sets the four annotation hints (all four are always published, false
// included) and carries catalog metadata that a server's policy enforces:
// category, enabled by default, unsafe, trust tier, quota. The trust tier
// has no default: registration refuses a tool that makes no trust
// decision. A family claims a name prefix with Registry.Family; from then
// on only the family registers names under it.
//
// # Arguments
//
// The input schema is derived from the struct's fields and tags (see the
// tag list in schema.go's documentation: desc, default, enum, min, max,
// minLength, maxLength, pattern, minItems, maxItems, header, relative). A
// field is required exactly when it has no default and is not optional
// (omitempty, omitzero or a pointer). The schema closes every object with
// additionalProperties: false, and the decoder enforces exactly what the
// schema says (a pattern is published anchored, as the decoder applies it): a missing, mistyped, undeclared, repeated, out-of-enum or
// out-of-bounds argument gives an invalid_params error result naming the
// parameter (never repeating its value), and the handler is not called.
// JSON null for an optional parameter means absent.
//
// Three parameter kinds serve tools that act on a target: Address (an
// address expression such as "main" or ".text + 0x10", evaluated against
// the call's view by package addrexpr), IntExpr (a JSON integer or an
// expression string, optionally relative to an earlier address), and
// NonEmptyString. A ViewScoped tool also gets the optional "view"
// parameter; the server resolves the view before the arguments are
// decoded.
//
// # Results, warnings and errors
//
// A struct result becomes structured content, with its JSON also given as
// text, and its schema is published as the output schema (open: fields only
// ever grow; the reserved "warnings" property added). Call.Warn attaches
// {code, message} warnings. A *Error (the engines' errcode.Error) becomes
// an error result: isError, text "code: message", and structured
// {errorCode, errorMessage, details}; a tool with an output schema gets its
// details as a JSON line after the text instead. Any other error, a panic,
// or a result that cannot be serialized becomes internal_error with a
// generic message; the cause goes to the server log only. Result documents
// how every result is completed.
//
// # The call
//
// Call carries what a handler may need from the client: progress, log
// messages, the view, and input requests (elicitation, sampling, roots)
// through one API, Call.Input, that works on both protocol eras. A call
// ends when its handler returns.
//
// # Testing
//
// Package tooltest checks a registry against the rules Warden's own tools
// meet and invokes tools the way a client would.
//
// # What the SDK holds
//
// What a tool's author must decide when defining it, and every server
// must be able to read, belongs here: the schema, the annotations, and
// the catalog (category, trust tier, quota, unsafe, target parameter),
// refused at registration when a decision is missing. What a server does
// with those decisions does not: the gates, approvals, quotas and audit
// live in package policy, the privacy engine in package redact (the SDK
// knows only the vocabulary of kinds, package privacy), the protocol in
// package mcp. Views are the SDK's because a handler reads one
// (Call.View); which views exist is the family's that opens them
// (Family.ResolveViews), and so are the words that send a caller to
// the tool that opens one: the SDK's own messages and the view parameter's
// description name no server's tools. One product name remains, because
// clients already read it: the code of a call without a view,
// no_active_binary_view (CodeNoActiveView), kept as a wire contract.
//
// # For servers
//
// The names in serve.go and chain.go are the server side of the SDK, used
// by protocol engines such as package mcp and by the stages around a call.
// Tool authors need none of them.
//
// A server parses each call once, with NewCall (the tool, its arguments,
// the CallEnv of the client that sent it), and runs it down one chain of
// Middleware to Invoke, which resolves the view, decodes the arguments,
// runs the handler and shapes the result. Every stage gets the same
// *Call: the arguments split once (Call.ArgumentList, Call.Target), the
// session, the client and its capabilities, and what earlier stages
// recorded on it (SetCaller, SetViewResolver, SetAdmission, SetRedactor).
// A family that opens views resolves them itself (Family.ResolveViews).
package tool
