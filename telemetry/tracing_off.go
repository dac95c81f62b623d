//go:build !otel

package telemetry

import (
	"context"
	"net/http"

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

// CallMiddleware passes the call on: this build has no tracing.
func (t *Tracing) CallMiddleware() tool.Middleware {
	return func(next tool.Handler) tool.Handler { return next }
}

func (t *Tracing) request(context.Context, RequestStats) {}
