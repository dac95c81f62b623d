// Package plugin loads tools that operators drop into a running Warden
// without rebuilding it: a directory holding a manifest
// (warden-plugin.json) and a module, either WebAssembly run in process by
// a sandboxed runtime, or a Python file run as a limited child process.
//
// A plugin's tools become ordinary *tool.Tool values: registered beside
// the built-in tools under the plugin's own name prefix, checked against
// their input schema before the call, and served through the same
// middleware chain (enablement, the unsafe switch, entitlement, scope,
// approval, admission, privacy, audit). What a plugin may reach beyond
// its arguments is a short list of host functions (logging, progress,
// reading the active binary view, writing annotations, HTTP through the
// SSRF-safe client), each granted per plugin by the operator; nothing
// else (no file, no socket, no environment, no wall clock) is there.
//
// docs/plugins.md is the author's guide: the manifest, the host
// functions, the limits and the ABI.
package plugin
