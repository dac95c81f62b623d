//go:build !otel && !prometheus

package telemetry_test

import (
	"context"
	"errors"
	"testing"

	"github.com/warden-mcp/warden/telemetry"
)

// TestNotBuilt: without the build tags, tracing refuses with its error and
// there are no metrics to serve.
func TestNotBuilt(t *testing.T) {
	if tr, err := telemetry.NewTracing(context.Background(), telemetry.TracingOptions{Endpoint: "http://127.0.0.1:4318"}); tr != nil || !errors.Is(err, telemetry.ErrTracingNotBuilt) {
		t.Errorf("NewTracing = %v, %v", tr, err)
	}
	if telemetry.MetricsBuilt || telemetry.TracingBuilt {
		t.Error("a build without the tags claims metrics or tracing")
	}
	if m := telemetry.NewMetrics(telemetry.MetricsOptions{}); m != nil {
		t.Errorf("NewMetrics = %v", m)
	}
}
