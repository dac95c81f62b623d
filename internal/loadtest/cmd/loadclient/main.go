// Command loadclient drives a benchmark server (wardenserver or
// gosdkserver) over loopback with keep-alive connections for a fixed
// time and prints throughput and latency percentiles.
//
//	loadclient -url http://127.0.0.1:8701/mcp -scenario tools_call -conns 64 -duration 10s -server-pid PID
//
// Scenarios: tools_call, tools_list, server_discover (2026-07-28, on the
// /mcp path) and tools_call_legacy (on a session opened with initialize;
// use the /legacy path; each connection opens its own session).
package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/signal"
	"strconv"
	"syscall"
	"time"

	"github.com/warden-mcp/warden/internal/loadtest"
	"github.com/warden-mcp/warden/internal/loadtest/fixture"
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "loadclient:", err)
		os.Exit(1)
	}
}

func run() error {
	url := flag.String("url", "http://127.0.0.1:8701/mcp", "endpoint `URL`")
	scenario := flag.String("scenario", "tools_call", "tools_call, tools_list, server_discover, tools_call_legacy, keysweep_call, warden_call or warden_list")
	conns := flag.Int("conns", 64, "keep-alive connections")
	warmup := flag.Duration("warmup", 2*time.Second, "warm-up before measuring")
	duration := flag.Duration("duration", 10*time.Second, "measured window")
	pid := flag.Int("server-pid", 0, "server process id, to read its CPU time (Linux)")
	label := flag.String("label", "", "label printed with the result")
	asJSON := flag.Bool("json", false, "print the result as JSON")
	summary := flag.String("summary", "", "instead of running, summarise a `file` of -json results as a Markdown table")
	bearer := flag.String("bearer", "", "bearer `token` sent with every request (a warden serve endpoint)")
	text := flag.String("text", "nothing to see", "the text keysweep_call scans: identical scans of one credential run one at a time")
	flag.Parse()

	if *summary != "" {
		f, err := os.Open(*summary)
		if err != nil {
			return err
		}
		defer f.Close()
		return loadtest.Summarize(f, os.Stdout)
	}

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()

	var req fixture.Request
	var connHeader func(context.Context, int) (http.Header, error)
	switch *scenario {
	case "tools_call":
		req = fixture.ToolsCall()
	case "tools_list":
		req = fixture.ToolsList()
	case "server_discover":
		req = fixture.Discover()
	case "keysweep_call":
		// warden serve's own tools/call, through authentication, the
		// rate limit, admission and the audit trail.
		req = fixture.Request{
			Name: "tools/call",
			Body: []byte(`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"keysweep_scan_text","arguments":{"text":` + strconv.Quote(*text) + `},` +
				`"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`),
			Header: http.Header{"Content-Type": {"application/json"}, "Accept": {"application/json"},
				"Mcp-Protocol-Version": {"2026-07-28"}, "Mcp-Method": {"tools/call"}, "Mcp-Name": {"keysweep_scan_text"}},
			Want: []byte(`completed`),
		}
	case "warden_call":
		// warden serve's own cheap tools/call (util_encode), through
		// authentication, the gates, the privacy pass and the audit
		// trail: the default path beside the echo of tools_call.
		req = fixture.WardenCall()
	case "warden_list":
		// warden serve's tools/list: authentication and the gates'
		// listing filter, no store write.
		req = fixture.ToolsList()
		req.Want = []byte(`keysweep_scan_text`)
	case "tools_call_legacy":
		// One session per connection, as one client would hold: request
		// ids repeat within a session, but never while in flight.
		req = fixture.LegacyCall("")
		connHeader = func(ctx context.Context, _ int) (http.Header, error) {
			sid, err := openSession(ctx, *url)
			if err != nil {
				return nil, err
			}
			return fixture.LegacyCall(sid).Header, nil
		}
	default:
		return fmt.Errorf("unknown scenario %q", *scenario)
	}
	if *bearer != "" {
		req.Header = req.Header.Clone()
		req.Header.Set("Authorization", "Bearer "+*bearer)
	}
	cfg := loadtest.Config{
		URL: *url, Body: req.Body, Header: req.Header, Want: req.Want,
		Conns: *conns, Warmup: *warmup, Duration: *duration, ConnHeader: connHeader,
	}
	if *pid > 0 {
		cfg.CPUTime = loadtest.ProcessCPU(*pid)
		cfg.ClientCPUTime = loadtest.ProcessCPU(os.Getpid())
	}
	res, err := loadtest.Run(ctx, cfg)
	if err != nil {
		return err
	}
	if *asJSON {
		return json.NewEncoder(os.Stdout).Encode(loadtest.Record{
			Label: *label, Scenario: *scenario, Conns: *conns, Requests: res.Requests, Failures: res.Failures,
			WindowSeconds: res.Window.Seconds(), PerSecond: res.PerSecond,
			P50us: micros(res.P50), P90us: micros(res.P90), P99us: micros(res.P99), MaxUs: micros(res.Max),
			ServerCPUPerRequest: micros(res.ServerCPUPerRequest), ClientCPUPerRequest: micros(res.ClientCPUPerRequest),
		})
	}
	if *label != "" {
		fmt.Printf("%s %s: ", *label, *scenario)
	}
	fmt.Println(res)
	if res.Failures > 0 {
		fmt.Fprintln(os.Stderr, "first failure:", res.FirstFailure)
	}
	return nil
}

func micros(d time.Duration) float64 { return float64(d) / float64(time.Microsecond) }

// openSession runs the legacy handshake and returns the session id.
func openSession(ctx context.Context, url string) (string, error) {
	init := fixture.Initialize()
	resp, body, err := post(ctx, url, init)
	if err != nil {
		return "", fmt.Errorf("initialize: %w", err)
	}
	sid := resp.Header.Get("Mcp-Session-Id")
	if resp.StatusCode != http.StatusOK || sid == "" {
		return "", fmt.Errorf("initialize: status %d, session %q: %.300s", resp.StatusCode, sid, body)
	}
	resp, body, err = post(ctx, url, fixture.Initialized(sid))
	if err != nil {
		return "", fmt.Errorf("initialized: %w", err)
	}
	if resp.StatusCode != http.StatusAccepted {
		return "", fmt.Errorf("initialized: status %d: %.300s", resp.StatusCode, body)
	}
	return sid, nil
}

func post(ctx context.Context, url string, r fixture.Request) (*http.Response, []byte, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(r.Body))
	if err != nil {
		return nil, nil, err
	}
	req.Header = r.Header.Clone()
	c := &http.Client{Timeout: 10 * time.Second}
	resp, err := c.Do(req)
	if err != nil {
		return nil, nil, err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if err != nil && !errors.Is(err, io.EOF) {
		return nil, nil, err
	}
	return resp, body, nil
}
