package telemetry

import (
	"context"
	"time"
)

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
