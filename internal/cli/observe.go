package cli

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"time"

	"github.com/warden-mcp/warden/mcp"
	"github.com/warden-mcp/warden/policy"
	"github.com/warden-mcp/warden/telemetry"
	"github.com/warden-mcp/warden/tool"
)

// observability is a serving Warden's metrics listener and tracing, both
// off unless configured.
type observability struct {
	tel     *telemetry.Telemetry
	metrics *http.Server
	ln      net.Listener
}

// openObservability builds the telemetry, before the controls it observes:
// metrics when metrics.listen is set (the listener is opened now, so that
// a taken port fails start-up), tracing when tracing.otlp_endpoint is.
func openObservability(ctx context.Context, cfg Config) (*observability, error) {
	o := &observability{tel: &telemetry.Telemetry{}}
	if cfg.Tracing.OTLPEndpoint != "" {
		tr, err := telemetry.NewTracing(ctx, telemetry.TracingOptions{Endpoint: cfg.Tracing.OTLPEndpoint,
			SampleRatio: cfg.Tracing.SampleRatio, ServiceVersion: Version()})
		if err != nil {
			return nil, fmt.Errorf("tracing: %w", err)
		}
		o.tel.Tracing = tr
	}
	if cfg.Metrics.Listen != "" {
		if !telemetry.MetricsBuilt {
			return nil, errors.New("metrics.listen: this warden was built without Prometheus metrics; rebuild it with -tags prometheus")
		}
		ln, err := net.Listen("tcp", cfg.Metrics.Listen)
		if err != nil {
			return nil, fmt.Errorf("metrics listener: %w", err)
		}
		o.ln = ln
		o.tel.Metrics = telemetry.NewMetrics(telemetry.MetricsOptions{TenantLabels: cfg.Metrics.TenantLabels})
	}
	return o, nil
}

// controlsObserver is what the controls report to, nil when nothing
// observes.
func (o *observability) controlsObserver() policy.Observer {
	if o.tel.Metrics == nil && o.tel.Tracing == nil {
		return nil
	}
	return o.tel
}

// watch adds the gauges of what the controls hold for the store.
func (o *observability) watch(ctl *controls) {
	if o.tel.Metrics != nil {
		o.tel.Metrics.WatchPending(ctl.policy.Pending)
	}
}

// middleware is the call stage that goes outside the controls: a span per
// call.
func (o *observability) middleware() []tool.Middleware {
	if o.tel.Tracing == nil {
		return nil
	}
	return []tool.Middleware{o.tel.Tracing.CallMiddleware()}
}

// observer is the HTTP handler's observer, nil when nothing observes.
func (o *observability) observer() mcp.Observer {
	if o.tel.Metrics == nil && o.tel.Tracing == nil {
		return nil
	}
	return requestObserver{o.tel}
}

// requestObserver hands the protocol endpoint's reports to telemetry,
// which does not import the engine it observes.
type requestObserver struct{ t *telemetry.Telemetry }

func (r requestObserver) Request(ctx context.Context, s mcp.RequestStats) {
	r.t.Request(ctx, telemetry.RequestStats(s))
}

// handler wraps the public handler in the request span.
func (o *observability) handler(h http.Handler) http.Handler {
	if o.tel.Tracing == nil {
		return h
	}
	return o.tel.Tracing.Middleware(h)
}

// serve starts the metrics listener: /metrics, and the health checks,
// which stay here when the public listener serves none.
func (o *observability) serve(h *mcp.HTTPHandler, logger *slog.Logger) {
	if o.ln == nil {
		return
	}
	m := o.tel.Metrics
	// The handler's gauges are read from now on.
	m.WatchHandler(func() telemetry.HTTPStats { return telemetry.HTTPStats(h.Stats()) })
	mux := http.NewServeMux()
	mux.Handle("GET /metrics", m.Handler())
	mux.Handle("GET /healthz", h.Liveness())
	mux.Handle("GET /readyz", h.Readiness())
	o.metrics = &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second, ReadTimeout: 30 * time.Second,
		WriteTimeout: 30 * time.Second, ErrorLog: slog.NewLogLogger(logger.Handler(), slog.LevelWarn)}
	logger.Info("serving metrics", slog.String("url", "http://"+o.ln.Addr().String()+"/metrics"))
	go func() { _ = o.metrics.Serve(o.ln) }()
}

// close stops the metrics listener and flushes the traces.
func (o *observability) close(logger *slog.Logger) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if o.metrics != nil {
		_ = o.metrics.Shutdown(ctx)
	} else if o.ln != nil {
		o.ln.Close()
	}
	if o.tel.Tracing != nil {
		if err := o.tel.Tracing.Shutdown(ctx); err != nil {
			logger.Warn("traces not flushed at exit", slog.String("cause", err.Error()))
		}
	}
}
