package cli

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/warden-mcp/warden/telemetry"
)

// testBuildTags are the build tags of this test binary, for a warden
// binary the tests build: the same edition and the same optional weight.
func testBuildTags() string {
	var tags []string
	if edition != "full" {
		tags = append(tags, "lean")
	}
	if postgresBuilt {
		tags = append(tags, "postgres")
	}
	if telemetry.MetricsBuilt {
		tags = append(tags, "prometheus")
	}
	if telemetry.TracingBuilt {
		tags = append(tags, "otel")
	}
	return strings.Join(tags, ",")
}

// TestOptionalWeightRefused: a build without the PostgreSQL store, the
// metrics or the tracing refuses a configuration that asks for them, at
// start-up and saying which build tag brings them, rather than serving
// without them.
func TestOptionalWeightRefused(t *testing.T) {
	ctx := context.Background()
	if !postgresBuilt {
		_, _, err := openStore(ctx, Config{Store: StoreConfig{DSN: "postgres://u@127.0.0.1:1/db"}})
		if err == nil || !strings.Contains(err.Error(), "-tags postgres") {
			t.Errorf("a postgres DSN in a build without the store: %v", err)
		}
	}
	if !telemetry.MetricsBuilt {
		_, err := openObservability(ctx, Config{Metrics: MetricsConfig{Listen: "127.0.0.1:0"}})
		if err == nil || !strings.Contains(err.Error(), "-tags prometheus") {
			t.Errorf("metrics.listen in a build without metrics: %v", err)
		}
	}
	if !telemetry.TracingBuilt {
		_, err := openObservability(ctx, Config{Tracing: TracingConfig{OTLPEndpoint: "http://127.0.0.1:4318"}})
		if !errors.Is(err, telemetry.ErrTracingNotBuilt) || !strings.Contains(err.Error(), "-tags otel") {
			t.Errorf("tracing.otlp_endpoint in a build without tracing: %v", err)
		}
	}
	if postgresBuilt && telemetry.MetricsBuilt && telemetry.TracingBuilt {
		t.Skip("every optional part is built in")
	}
}
