//go:build !otel

package telemetry

import (
	"context"
	"encoding/json"
	"net/http"

	"github.com/warden-mcp/warden/mcp"
	"github.com/warden-mcp/warden/tool"
)

// TracingBuilt reports whether this build exports traces: OpenTelemetry
// and its OTLP exporter are built in only with the build tag otel.
const TracingBuilt = false

// TracingOptions configure NewTracing; see the otel build for each field.
type TracingOptions struct {
	Endpoint                    string
	SampleRatio                 float64
	ServiceName, ServiceVersion string
}

// Tracing stands in for the tracing in a build without it; NewTracing
// never returns one.
type Tracing struct{}

// NewTracing refuses with ErrTracingNotBuilt.
func NewTracing(context.Context, TracingOptions) (*Tracing, error) { return nil, ErrTracingNotBuilt }

// Flush does nothing: this build has no tracing.
func (t *Tracing) Flush(context.Context) error { return nil }

// Shutdown does nothing: this build has no tracing.
func (t *Tracing) Shutdown(context.Context) error { return nil }

// Middleware returns next: this build has no tracing.
func (t *Tracing) Middleware(next http.Handler) http.Handler { return next }

// Hook passes the call on: this build has no tracing.
func (t *Tracing) Hook() mcp.CallHook {
	return func(ctx context.Context, _ *tool.Tool, _ json.RawMessage, next func(context.Context) tool.Outcome) tool.Outcome {
		return next(ctx)
	}
}

func (t *Tracing) request(context.Context, mcp.RequestStats) {}
