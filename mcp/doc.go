// Package mcp is Warden's Model Context Protocol engine: the JSON-RPC
// codec, both protocol eras, dispatch, and the stdio and streamable HTTP
// transports. It serves any tool.Registry plus resources, prompts and
// completions added to the Server.
//
// # Eras
//
// The 2026-07-28 revision is stateless: every request carries its protocol
// version and client capabilities in params._meta, and nothing is inferred
// from earlier requests. The legacy revisions (2024-11-05 through
// 2025-11-25) begin with initialize and keep a session. One Server serves
// both: on HTTP, a request is legacy when it carries Mcp-Session-Id or
// lacks _meta with a legacy or absent MCP-Protocol-Version header; on
// stdio, the process becomes a legacy session when it receives initialize
// without modern _meta.
//
// # Validation order
//
// A modern HTTP request is checked in the order the conformance suite
// requires: method (POST), Origin and Host, body size and JSON, the
// MCP-Protocol-Version header, the _meta fields (-32602), header against
// _meta version (-32020), supported version (-32022), the mirrored
// Mcp-Method, Mcp-Name and Mcp-Param-* headers (-32020), routing (404 with
// -32601), then the handler (-32021 for a missing client capability).
//
// # Input, progress, logs and tasks
//
// Handlers ask the client questions through tool.Call.Input. On a legacy
// session the server sends the request and waits; on the modern revision it
// returns an InputRequiredResult whose requestState is sealed with
// AES-256-GCM and bound to the method, target, arguments, caller and an
// expiry, and runs the handler again when the client retries with answers.
// An answer counts only for the very question the server asked under its
// key, and only once: the first retry that delivers answers spends its
// requestState in Options.State, so a replay on any replica is asked
// again (mrtr.go). Progress and log notifications go on the request's own stream (SSE on
// HTTP, stdout on stdio). With Options.Tasks, tools that support the
// io.modelcontextprotocol/tasks extension answer with a task id once their
// handler calls Call.Detach.
//
// # State shared by replicas
//
// Tasks, legacy HTTP sessions, the answers to a session's server-to-client
// requests and what a stream keeps after losing its client live in
// Options.State (package statestore), so that replicas sharing a store
// (and StateKey) serve each other's requests; the zero value keeps them in
// this process. Nothing touches the store while a client stays connected
// to its stream. See state_session.go for the channels and their polling
// intervals.
//
// # Bounds
//
// Messages are capped at 4 MiB and 64 levels of nesting; ids are strings
// of at most 128 bytes or 64-bit integers; requests in flight, legacy
// sessions and their GET streams, the outcomes kept for resumption, list
// pages, subscriptions and tasks are all bounded, and each authenticated
// caller gets a bounded share of the server-wide caps. A request's body is
// read under a deadline before it takes an in-flight slot. Nothing a
// client sends can panic the server or make it hang. The shares and the
// body deadline are package internal/httplimit's, which the upload
// endpoint uses too.
//
// # Errors
//
// A protocol error is an *Error: a JSON-RPC code and message, and a kind
// (ErrorKind) saying what went wrong whatever the transport. The HTTP
// transport answers each kind with one status, from one table; stdio has
// no statuses. A tool call that fails through the server rather than its
// caller is reported to the admission layer by CallFault.
package mcp
