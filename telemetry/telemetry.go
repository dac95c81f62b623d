package telemetry

import (
	"context"
	"errors"
	"time"
)

// ErrTracingNotBuilt is NewTracing's answer in a build without tracing
// (TracingBuilt false).
var ErrTracingNotBuilt = errors.New("telemetry: this warden was built without tracing; rebuild it with -tags otel to export traces over OTLP")

// Telemetry joins the metrics and the tracing, either of which may be
// nil: it is the mcp.Observer and the policy.Observer of a serving Warden.
type Telemetry struct {
	Metrics *Metrics
	Tracing *Tracing
}

// Request observes one served request (the wiring feeds it
// mcp.HTTPOptions.Observer's reports).
func (t *Telemetry) Request(ctx context.Context, r RequestStats) {
	if t.Metrics != nil {
		t.Metrics.Request(ctx, r)
	}
	if t.Tracing != nil {
		t.Tracing.request(ctx, r)
	}
}

// ToolCall implements policy.Observer.
func (t *Telemetry) ToolCall(ctx context.Context, tool, outcome string, d time.Duration) {
	if t.Metrics != nil {
		t.Metrics.ToolCall(ctx, tool, outcome, d)
	}
}

// Refused implements policy.Observer.
func (t *Telemetry) Refused(ctx context.Context, control, code string) {
	if t.Metrics != nil {
		t.Metrics.Refused(ctx, control, code)
	}
}

// StoreError implements policy.Observer.
func (t *Telemetry) StoreError(ctx context.Context, control string) {
	if t.Metrics != nil {
		t.Metrics.StoreError(ctx, control)
	}
}

// Decided implements policy.Observer.
func (t *Telemetry) Decided(ctx context.Context, control string, d time.Duration) {
	if t.Metrics != nil {
		t.Metrics.Decided(ctx, control, d)
	}
}

// MetricsOptions configure NewMetrics. The zero value is a safe default.
type MetricsOptions struct {
	// TenantLabels adds a tenant label to the tool-call metrics. Zero:
	// no tenant, credential or argument value in any label.
	TenantLabels bool
	// Stats reads what the HTTP handler holds open, for the in-flight,
	// session and stream gauges. Nil: those gauges are not exported.
	Stats func() HTTPStats
	// Pending reads the audit records and slot releases waiting for the
	// store after an outage. Nil: those gauges are not exported.
	Pending func() (audit, releases int)
}
