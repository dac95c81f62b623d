//go:build prometheus

package telemetry

import (
	"context"
	"net/http"
	"strconv"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/warden-mcp/warden/auth"
)

// Metrics holds Warden's Prometheus metrics in a registry of its own.
type Metrics struct {
	reg          *prometheus.Registry
	tenantLabels bool

	requests     *prometheus.CounterVec
	requestTime  *prometheus.HistogramVec
	toolCalls    *prometheus.CounterVec
	toolCallTime *prometheus.HistogramVec
	refusals     *prometheus.CounterVec
	storeErrors  *prometheus.CounterVec
	decisionTime *prometheus.HistogramVec
}

// latencyBuckets span a cached tools/list (tens of µs) to a website scan
// (a minute).
var latencyBuckets = []float64{.0001, .00025, .0005, .001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10, 30, 60}

// decisionBuckets span a rate decision answered from memory (µs) to a
// decision's longest wait on a busy store (seconds), finely enough in
// between to read a p99 off them.
var decisionBuckets = []float64{.0001, .00025, .0005, .001, .0025, .005, .01, .025, .05, .075, .1, .15, .2, .25, .35, .5, .75, 1, 1.5, 2, 3, 5}

// NewMetrics returns the metrics, with Go runtime and process collectors.
func NewMetrics(o MetricsOptions) *Metrics {
	m := &Metrics{reg: prometheus.NewRegistry(), tenantLabels: o.TenantLabels}
	m.requests = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "warden_requests_total",
		Help: "Requests of the protocol endpoint, by JSON-RPC method (other: not served), protocol era, transport and HTTP status.",
	}, []string{"method", "era", "transport", "status"})
	m.requestTime = prometheus.NewHistogramVec(prometheus.HistogramOpts{
		Name:    "warden_request_duration_seconds",
		Help:    "Time to serve a request of the protocol endpoint, by JSON-RPC method, era and transport.",
		Buckets: latencyBuckets,
	}, []string{"method", "era", "transport"})
	toolLabels := []string{"tool", "outcome"}
	if o.TenantLabels {
		toolLabels = append(toolLabels, "tenant")
	}
	m.toolCalls = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "warden_tool_calls_total",
		Help: "Tool calls, by tool and outcome code (ok, input_required, or the error code).",
	}, toolLabels)
	m.toolCallTime = prometheus.NewHistogramVec(prometheus.HistogramOpts{
		Name:    "warden_tool_call_duration_seconds",
		Help:    "Time a tool call took through every gate and the handler, by tool.",
		Buckets: latencyBuckets,
	}, []string{"tool"})
	m.refusals = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "warden_refusals_total",
		Help: "Refusals by a control (rate_limit, scan_admission, audit), by code (rate_limited, quota_exceeded, scanner_busy, ...).",
	}, []string{"control", "code"})
	m.storeErrors = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "warden_store_errors_total",
		Help: "Store calls that failed, by the control that made them.",
	}, []string{"control"})
	m.decisionTime = prometheus.NewHistogramVec(prometheus.HistogramOpts{
		Name:    "warden_control_decision_seconds",
		Help:    "Time a control took to decide, refusals included: rate_limit (one transport decision), scan_admission (one admission, waiting in line excluded).",
		Buckets: decisionBuckets,
	}, []string{"control"})
	m.reg.MustRegister(m.requests, m.requestTime, m.toolCalls, m.toolCallTime, m.refusals, m.storeErrors, m.decisionTime,
		collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	if o.Stats != nil {
		m.reg.MustRegister(HandlerGauges(o.Stats)...)
	}
	if o.Pending != nil {
		m.reg.MustRegister(PendingGauges(o.Pending)...)
	}
	return m
}

// PendingGauges are the gauges of the audit records and slot releases
// waiting for the store, read from pending, for controls built after the
// metrics (which they report to).
func PendingGauges(pending func() (audit, releases int)) []prometheus.Collector {
	return []prometheus.Collector{
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "warden_audit_records_pending", Help: "Audit records waiting for the store to take them."},
			func() float64 { a, _ := pending(); return float64(a) }),
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "warden_slot_releases_pending", Help: "Scan slot releases waiting for the store."},
			func() float64 { _, r := pending(); return float64(r) }),
	}
}

// HandlerGauges are the in-flight, session and stream gauges read from an
// HTTP handler's Stats, for a handler built after the metrics.
func HandlerGauges(stats func() HTTPStats) []prometheus.Collector {
	var out []prometheus.Collector
	for _, g := range []struct {
		name, help string
		read       func(HTTPStats) int
	}{
		{"warden_in_flight_requests", "Requests holding an in-flight slot.", func(s HTTPStats) int { return s.InFlight }},
		{"warden_legacy_sessions", "Legacy (initialize-handshake) sessions open.", func(s HTTPStats) int { return s.Sessions }},
		{"warden_open_streams", "Legacy GET streams open.", func(s HTTPStats) int { return s.Streams }},
	} {
		out = append(out, prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: g.name, Help: g.help},
			func() float64 { return float64(g.read(stats())) }))
	}
	return out
}

// Handler serves the metrics in the Prometheus exposition format; mount
// it at /metrics on the metrics listener.
func (m *Metrics) Handler() http.Handler {
	return promhttp.HandlerFor(m.reg, promhttp.HandlerOpts{MaxRequestsInFlight: 4, Timeout: 10 * time.Second})
}

// MetricsBuilt reports whether this build serves Prometheus metrics: the
// client library and its dependencies are built in only with the build
// tag prometheus.
const MetricsBuilt = true

// WatchHandler exports the in-flight, session and stream gauges of an
// HTTP handler built after the metrics.
func (m *Metrics) WatchHandler(stats func() HTTPStats) {
	m.reg.MustRegister(HandlerGauges(stats)...)
}

// WatchPending exports the gauges of the audit records and slot releases
// waiting for the store, read from controls built after the metrics.
func (m *Metrics) WatchPending(pending func() (audit, releases int)) {
	m.reg.MustRegister(PendingGauges(pending)...)
}

// Registry is the registry the metrics live in, for tests and for
// operators who add their own.
func (m *Metrics) Registry() *prometheus.Registry { return m.reg }

// Request observes one served request (the wiring feeds it
// mcp.HTTPOptions.Observer's reports).
func (m *Metrics) Request(_ context.Context, r RequestStats) {
	method, era := boundMethod(r.Method), r.Era
	if era == "" {
		era = "none"
	}
	m.requests.WithLabelValues(method, era, "http", statusLabel(r.Status)).Inc()
	m.requestTime.WithLabelValues(method, era, "http").Observe(r.Duration.Seconds())
}

// ToolCall implements policy.Observer.
func (m *Metrics) ToolCall(ctx context.Context, tool, outcome string, d time.Duration) {
	if m.tenantLabels {
		p, _ := auth.PrincipalFrom(ctx)
		m.toolCalls.WithLabelValues(tool, outcome, p.Tenant).Inc()
	} else {
		m.toolCalls.WithLabelValues(tool, outcome).Inc()
	}
	m.toolCallTime.WithLabelValues(tool).Observe(d.Seconds())
}

// Refused implements policy.Observer.
func (m *Metrics) Refused(_ context.Context, control, code string) {
	m.refusals.WithLabelValues(control, code).Inc()
}

// StoreError implements policy.Observer.
func (m *Metrics) StoreError(_ context.Context, control string) {
	m.storeErrors.WithLabelValues(control).Inc()
}

// Decided implements policy.Observer.
func (m *Metrics) Decided(_ context.Context, control string, d time.Duration) {
	m.decisionTime.WithLabelValues(control).Observe(d.Seconds())
}

// statusLabel avoids formatting the common statuses on every request.
func statusLabel(s int) string {
	switch s {
	case 200:
		return "200"
	case 202:
		return "202"
	case 204:
		return "204"
	case 400:
		return "400"
	case 401:
		return "401"
	case 404:
		return "404"
	case 429:
		return "429"
	case 503:
		return "503"
	}
	return strconv.Itoa(s)
}
