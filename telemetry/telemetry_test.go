//go:build prometheus && otel

package telemetry_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus/testutil"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/warden-mcp/warden/auth"
	"github.com/warden-mcp/warden/mcp"
	"github.com/warden-mcp/warden/telemetry"
	"github.com/warden-mcp/warden/tool"
)

func scrape(t *testing.T, m *telemetry.Metrics) string {
	t.Helper()
	rec := httptest.NewRecorder()
	m.Handler().ServeHTTP(rec, httptest.NewRequest("GET", "/metrics", nil))
	if rec.Code != 200 {
		t.Fatalf("scrape: %d", rec.Code)
	}
	return rec.Body.String()
}

func TestMetricsLabelsAreBounded(t *testing.T) {
	m := telemetry.NewMetrics(telemetry.MetricsOptions{Stats: func() telemetry.HTTPStats { return telemetry.HTTPStats{InFlight: 3, Sessions: 2, Streams: 1} }})
	ctx := auth.WithPrincipal(context.Background(), auth.Principal{Tenant: "acme-secret-tenant", Credential: "cred-1"})
	m.Request(ctx, telemetry.RequestStats{Method: "tools/call", Era: "modern", Status: 200, Duration: time.Millisecond})
	m.Request(ctx, telemetry.RequestStats{Method: "made/up/by/a/client", Era: "modern", Status: 404})
	m.Request(ctx, telemetry.RequestStats{Status: 413})
	m.ToolCall(ctx, "keysweep_scan_text", "ok", 2*time.Millisecond)
	m.Refused(ctx, "rate_limit", "rate_limited")
	m.StoreError(ctx, "audit")
	m.Decided(ctx, "scan_admission", 3*time.Millisecond)
	out := scrape(t, m)
	for _, want := range []string{
		`warden_requests_total{era="modern",method="tools/call",status="200",transport="http"} 1`,
		`warden_requests_total{era="modern",method="other",status="404",transport="http"} 1`,
		`warden_requests_total{era="none",method="none",status="413",transport="http"} 1`,
		`warden_tool_calls_total{outcome="ok",tool="keysweep_scan_text"} 1`,
		`warden_refusals_total{code="rate_limited",control="rate_limit"} 1`,
		`warden_store_errors_total{control="audit"} 1`,
		`warden_control_decision_seconds_bucket{control="scan_admission",le="0.005"} 1`,
		`warden_in_flight_requests 3`, `warden_legacy_sessions 2`, `warden_open_streams 1`,
		`warden_request_duration_seconds_bucket`, `warden_tool_call_duration_seconds_bucket`, `go_goroutines`,
	} {
		if !strings.Contains(out, want) {
			t.Errorf("metrics lack %s", want)
		}
	}
	for _, leak := range []string{"acme-secret-tenant", "cred-1", "made/up"} {
		if strings.Contains(out, leak) {
			t.Errorf("a label carries %q", leak)
		}
	}
}

func TestMetricsTenantLabelsOptIn(t *testing.T) {
	m := telemetry.NewMetrics(telemetry.MetricsOptions{TenantLabels: true})
	ctx := auth.WithPrincipal(context.Background(), auth.Principal{Tenant: "acme"})
	m.ToolCall(ctx, "t", "ok", 0)
	if !strings.Contains(scrape(t, m), `warden_tool_calls_total{outcome="ok",tenant="acme",tool="t"} 1`) {
		t.Error("no tenant label with TenantLabels")
	}
	if n := testutil.CollectAndCount(m.Registry(), "warden_tool_calls_total"); n != 1 {
		t.Errorf("%d series", n)
	}
}

// TestTracingSpans: one span per request and one per tool call, each with
// the request's correlation id, the tool span a child of the request's.
func TestTracingSpans(t *testing.T) {
	exp := tracetest.NewInMemoryExporter()
	tr, err := telemetry.NewTracing(context.Background(), telemetry.TracingOptions{Exporter: exp})
	if err != nil {
		t.Fatal(err)
	}
	reg := tool.NewRegistry()
	tool.Add(reg, tool.Def{Name: "echo", Description: "Echoes.", Annotations: tool.Annotations{ReadOnly: true},
		Catalog: tool.Catalog{Category: "test", Trust: tool.TrustAuto}}, func(ctx context.Context, c *tool.Call, _ struct{}) (string, error) {
		return "hi", nil
	})
	srv := mcp.NewServer(reg, &mcp.Options{Middleware: []tool.Middleware{tr.CallMiddleware()}})
	tel := &telemetry.Telemetry{Tracing: tr}
	h := tr.Middleware(mcp.NewHTTPHandler(srv, &mcp.HTTPOptions{Observer: observer{tel}}))
	body := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`
	req := httptest.NewRequest("POST", "/mcp", strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json")
	req.Header.Set("MCP-Protocol-Version", "2026-07-28")
	req.Header.Set("Mcp-Method", "tools/call")
	req.Header.Set("Mcp-Name", "echo")
	req.Header.Set("X-Correlation-Id", "corr-42")
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	if rec.Code != 200 {
		t.Fatalf("call: %d %s", rec.Code, rec.Body)
	}
	if err := tr.Flush(context.Background()); err != nil {
		t.Fatal(err)
	}
	spans := exp.GetSpans()
	if len(spans) != 2 {
		t.Fatalf("%d spans, want 2: %v", len(spans), spans)
	}
	byName := map[string]tracetest.SpanStub{}
	for _, s := range spans {
		byName[s.Name] = s
		found := false
		for _, a := range s.Attributes {
			if a.Key == "warden.correlation_id" && a.Value.AsString() == "corr-42" {
				found = true
			}
		}
		if !found {
			t.Errorf("span %q lacks the correlation id: %v", s.Name, s.Attributes)
		}
	}
	call, ok1 := byName["tools/call echo"]
	reqSpan, ok2 := byName["mcp tools/call"]
	if !ok1 || !ok2 {
		t.Fatalf("span names: %v", byName)
	}
	if call.Parent.SpanID() != reqSpan.SpanContext.SpanID() {
		t.Error("the tool call's span is not a child of the request's")
	}
}

// TestTracingEndpointPath: spans reach a collector where the OpenTelemetry
// exporters send them: a base URL (the form --otlp-endpoint's help and the
// docs give) gets /v1/traces, a URL with a path is used as it is.
func TestTracingEndpointPath(t *testing.T) {
	paths := make(chan string, 16)
	collector := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		paths <- r.Method + " " + r.URL.Path + " " + r.Header.Get("Content-Type")
		w.Header().Set("Content-Type", "application/x-protobuf")
		w.WriteHeader(http.StatusOK)
	}))
	defer collector.Close()
	for _, c := range []struct{ endpoint, want string }{
		{collector.URL, "POST /v1/traces application/x-protobuf"},
		{collector.URL + "/", "POST /v1/traces application/x-protobuf"},
		{collector.URL + "/otlp/v1/traces", "POST /otlp/v1/traces application/x-protobuf"},
	} {
		t.Run(c.endpoint, func(t *testing.T) {
			tr, err := telemetry.NewTracing(context.Background(), telemetry.TracingOptions{Endpoint: c.endpoint})
			if err != nil {
				t.Fatal(err)
			}
			tr.Middleware(http.HandlerFunc(func(http.ResponseWriter, *http.Request) {})).
				ServeHTTP(httptest.NewRecorder(), httptest.NewRequest("POST", "/mcp", nil))
			if err := tr.Shutdown(context.Background()); err != nil {
				t.Fatal(err)
			}
			select {
			case got := <-paths:
				if got != c.want {
					t.Errorf("the collector got %q, want %q", got, c.want)
				}
			case <-time.After(10 * time.Second):
				t.Fatal("no export reached the collector")
			}
		})
	}
	for _, bad := range []string{"127.0.0.1:4318", "ftp://collector:4318", "http://", "http://u:p@collector:4318", "http://collector:4318/?x=1"} {
		if _, err := telemetry.NewTracing(context.Background(), telemetry.TracingOptions{Endpoint: bad}); err == nil {
			t.Errorf("endpoint %q accepted", bad)
		}
	}
}

// observer feeds the protocol engine's request reports to telemetry, as
// the wiring does.
type observer struct{ t *telemetry.Telemetry }

func (o observer) Request(ctx context.Context, r mcp.RequestStats) {
	o.t.Request(ctx, telemetry.RequestStats(r))
}
