//go:build !prometheus

package telemetry

import (
	"context"
	"net/http"
	"time"
)

// MetricsBuilt reports whether this build serves Prometheus metrics: the
// client library and its dependencies are built in only with the build
// tag prometheus. A caller checks it before NewMetrics and refuses a
// configuration that asks for metrics.
const MetricsBuilt = false

// Metrics stands in for the Prometheus metrics in a build without them;
// NewMetrics never returns one.
type Metrics struct{}

// NewMetrics returns nil: this build has no metrics (see MetricsBuilt).
func NewMetrics(MetricsOptions) *Metrics { return nil }

// Handler answers 404: this build has no metrics.
func (m *Metrics) Handler() http.Handler { return http.NotFoundHandler() }

// WatchHandler does nothing: this build has no metrics.
func (m *Metrics) WatchHandler(func() HTTPStats) {}

// WatchPending does nothing: this build has no metrics.
func (m *Metrics) WatchPending(func() (audit, releases int)) {}

// Request does nothing: this build has no metrics.
func (m *Metrics) Request(context.Context, RequestStats) {}

// ToolCall does nothing: this build has no metrics.
func (m *Metrics) ToolCall(context.Context, string, string, time.Duration) {}

// Refused does nothing: this build has no metrics.
func (m *Metrics) Refused(context.Context, string, string) {}

// StoreError does nothing: this build has no metrics.
func (m *Metrics) StoreError(context.Context, string) {}

// Decided does nothing: this build has no metrics.
func (m *Metrics) Decided(context.Context, string, time.Duration) {}
