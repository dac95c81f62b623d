// Package telemetry exports what a serving Warden does: Prometheus metrics
// on a listener of their own, and OpenTelemetry traces over OTLP/HTTP.
// Both are off until configured.
//
// It plugs into the request path at three points, none of which imports
// it, and imports none of them but the SDK's call path: the protocol
// endpoint's observer (each request; the wiring converts mcp.RequestStats
// into RequestStats), policy.Controls.Observer (tool calls, refusals,
// store failures) and a tool.Middleware (a span per tool call). A
// Telemetry value serves all three.
//
// # Labels
//
// No credential, tenant or argument value is ever a label unless the
// operator opts in (MetricsOptions.TenantLabels adds the tenant to tool
// calls). Values that come from clients are bounded: a JSON-RPC method
// this server does not serve is counted as "other", and tools are named
// only once the registry has found them.
package telemetry
