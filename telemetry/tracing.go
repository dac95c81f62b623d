//go:build otel

package telemetry

import (
	"context"
	"errors"
	"net/http"
	"net/url"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	semconv "go.opentelemetry.io/otel/semconv/v1.40.0"
	"go.opentelemetry.io/otel/trace"

	"github.com/warden-mcp/warden/tool"
)

// TracingOptions configure NewTracing.
type TracingOptions struct {
	// Endpoint is the OTLP/HTTP collector, as the OpenTelemetry exporters
	// take it: a base URL without a path, such as http://127.0.0.1:4318,
	// gets the traces path /v1/traces; a URL with a path, such as
	// https://collector.example/otlp/v1/traces, is used as it is.
	// Required.
	Endpoint string
	// SampleRatio is the fraction of new traces kept, in (0, 1]; a
	// request that arrives with a sampled traceparent is kept whatever it
	// says. Zero: 1, every trace.
	SampleRatio float64
	// ServiceName and ServiceVersion name the resource. Zero: "warden"
	// and no version.
	ServiceName, ServiceVersion string
	// Exporter replaces the OTLP exporter (tests). Zero: OTLP/HTTP to
	// Endpoint.
	Exporter sdktrace.SpanExporter
}

// TracingBuilt reports whether this build exports traces: OpenTelemetry
// and its OTLP exporter are built in only with the build tag otel.
const TracingBuilt = true

// Tracing makes one span per request of the protocol endpoint and one per
// tool call, each carrying the request's correlation id, and exports them
// in batches.
type Tracing struct {
	tp     *sdktrace.TracerProvider
	tracer trace.Tracer
	prop   propagation.TextMapPropagator
}

// NewTracing starts the exporter. Call Shutdown at exit to flush it.
func NewTracing(ctx context.Context, o TracingOptions) (*Tracing, error) {
	exp := o.Exporter
	if exp == nil {
		if o.Endpoint == "" {
			return nil, errors.New("telemetry: tracing needs an OTLP endpoint")
		}
		opts, err := endpointOptions(o.Endpoint)
		if err != nil {
			return nil, err
		}
		if exp, err = otlptracehttp.New(ctx, opts...); err != nil {
			return nil, err
		}
	}
	ratio := o.SampleRatio
	if ratio <= 0 || ratio > 1 {
		ratio = 1
	}
	name := o.ServiceName
	if name == "" {
		name = "warden"
	}
	attrs := []attribute.KeyValue{semconv.ServiceName(name)}
	if o.ServiceVersion != "" {
		attrs = append(attrs, semconv.ServiceVersion(o.ServiceVersion))
	}
	tp := sdktrace.NewTracerProvider(
		sdktrace.WithBatcher(exp),
		sdktrace.WithSampler(sdktrace.ParentBased(sdktrace.TraceIDRatioBased(ratio))),
		sdktrace.WithResource(resource.NewSchemaless(attrs...)),
	)
	return &Tracing{tp: tp, tracer: tp.Tracer("github.com/warden-mcp/warden"),
		prop: propagation.NewCompositeTextMapPropagator(propagation.TraceContext{}, propagation.Baggage{})}, nil
}

// TracesPath is where an OTLP/HTTP collector takes traces: the path a base
// endpoint gets.
const TracesPath = "/v1/traces"

// endpointOptions reads an endpoint as the OpenTelemetry exporter
// specification does (OTEL_EXPORTER_OTLP_ENDPOINT is a base URL, to which
// the signal's path is added; OTEL_EXPORTER_OTLP_TRACES_ENDPOINT is used as
// is): a URL without a path, or with only "/", gets TracesPath; one with a
// path keeps it. The exporter's own WithEndpointURL would send a base URL's
// spans to "/", where a standard collector answers 404.
func endpointOptions(endpoint string) ([]otlptracehttp.Option, error) {
	u, err := url.Parse(endpoint)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.User != nil ||
		u.RawQuery != "" || u.Fragment != "" {
		return nil, errors.New("telemetry: the OTLP endpoint must be an http or https URL such as http://127.0.0.1:4318, without user info, query or fragment")
	}
	opts := []otlptracehttp.Option{otlptracehttp.WithEndpointURL(endpoint)}
	if u.Path == "" || u.Path == "/" {
		opts = append(opts, otlptracehttp.WithURLPath(TracesPath))
	}
	return opts, nil
}

// Flush exports the spans ended so far.
func (t *Tracing) Flush(ctx context.Context) error { return t.tp.ForceFlush(ctx) }

// Shutdown flushes the spans not yet exported and stops the exporter.
func (t *Tracing) Shutdown(ctx context.Context) error { return t.tp.Shutdown(ctx) }

// Middleware starts a request's span (continuing the caller's trace from
// traceparent) around next, the HTTP handler; the span is named and
// annotated with the JSON-RPC method, era, status and correlation id when
// the handler observes the request (Telemetry.Request).
func (t *Tracing) Middleware(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ctx := t.prop.Extract(r.Context(), propagation.HeaderCarrier(r.Header))
		ctx, span := t.tracer.Start(ctx, "mcp "+r.Method, trace.WithSpanKind(trace.SpanKindServer),
			trace.WithAttributes(semconv.HTTPRequestMethodKey.String(r.Method), semconv.URLPath(r.URL.Path)))
		defer span.End()
		next.ServeHTTP(w, r.WithContext(ctx))
		if cid := w.Header().Get("X-Correlation-Id"); cid != "" {
			span.SetAttributes(attribute.String("warden.correlation_id", cid))
		}
	})
}

// request annotates the request's span once the handler knows what the
// request was.
func (t *Tracing) request(ctx context.Context, r RequestStats) {
	span := trace.SpanFromContext(ctx)
	if !span.IsRecording() {
		return
	}
	method := boundMethod(r.Method)
	span.SetName("mcp " + method)
	span.SetAttributes(attribute.String("mcp.method", method), attribute.String("mcp.era", r.Era),
		semconv.HTTPResponseStatusCode(r.Status), attribute.String("warden.correlation_id", r.CorrelationID))
	if r.Status >= 500 {
		span.SetStatus(codes.Error, "")
	}
}

// CallMiddleware is the call stage that makes one span per tool call; put
// it outermost so that the span covers every gate.
func (t *Tracing) CallMiddleware() tool.Middleware {
	return func(next tool.Handler) tool.Handler {
		return func(ctx context.Context, c *tool.Call) tool.Outcome {
			return t.traceCall(ctx, c, next)
		}
	}
}

func (t *Tracing) traceCall(ctx context.Context, c *tool.Call, next tool.Handler) tool.Outcome {
	name := c.ToolName()
	ctx, span := t.tracer.Start(ctx, "tools/call "+name, trace.WithAttributes(
		attribute.String("mcp.tool.name", name), attribute.String("warden.correlation_id", c.CorrelationID())))
	defer span.End()
	out := next(ctx, c)
	switch {
	case out.Interrupt != nil:
		span.SetAttributes(attribute.String("warden.outcome", "input_required"))
	case out.Result != nil && out.Result.IsError:
		code := out.Result.ErrorCode
		if code == "" {
			code = "tool_error"
		}
		span.SetAttributes(attribute.String("warden.outcome", code))
		span.SetStatus(codes.Error, code)
	default:
		span.SetAttributes(attribute.String("warden.outcome", "ok"))
	}
	return out
}
