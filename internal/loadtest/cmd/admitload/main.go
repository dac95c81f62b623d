// Command admitload drives warden serve replicas with many clients that
// mix cheap tool calls and scans, for a fixed time, and says whether the
// limits held: every refusal sorted by code into the limits' own
// (rate_limited, scanner_busy, ...) and anything else (a control that
// could not be evaluated, a server error), the latency of each kind of
// call, and the servers' own admission and rate-limit decision times read
// from their metrics.
//
//	admitload -url http://127.0.0.1:18841/mcp,http://127.0.0.1:18842/mcp -keys K1,K2,... \
//	    -metrics http://127.0.0.1:19841/metrics,... -clients 64 -duration 60s
//
// Client i calls replica i mod len(urls) with key i mod len(keys). A scan
// is keysweep_scan_text of a text no other call uses (so it never waits
// for an identical scan); a cheap call is util_hash. With -check-sqlite
// FILE or -check-postgres DSN (and -schema), it instead reads a store
// after the servers have stopped and checks that no lease is still held
// and that the ledger, the monthly counters and the audit trail agree on
// what was charged; it exits 1 if not. scripts/bench-admission.sh runs
// both.
package main

import (
	"bufio"
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/signal"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/jackc/pgx/v5"
	_ "modernc.org/sqlite"

	"github.com/warden-mcp/warden/internal/loadtest"
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "admitload:", err)
		os.Exit(1)
	}
}

func run() error {
	urls := flag.String("url", "", "comma-separated endpoint `URLs`, one per replica")
	keys := flag.String("keys", "", "comma-separated bearer `tokens` (API keys); clients share them round robin")
	metrics := flag.String("metrics", "", "comma-separated metrics `URLs` of the replicas, for their decision times")
	clients := flag.Int("clients", 64, "concurrent clients, one connection each")
	duration := flag.Duration("duration", 60*time.Second, "how long to run")
	scanEvery := flag.Int("scan-every", 2, "every `n`th call of a client is a scan; the others are cheap calls")
	label := flag.String("label", "", "label printed with the result")
	checkSQLite := flag.String("check-sqlite", "", "instead of running, check the SQLite database `file` of a stopped server")
	checkPG := flag.String("check-postgres", "", "instead of running, check a PostgreSQL store (`DSN`) after its servers stopped")
	schema := flag.String("schema", "warden", "the PostgreSQL schema, with -check-postgres")
	flag.Parse()

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	switch {
	case *checkSQLite != "":
		db, err := sql.Open("sqlite", "file:"+*checkSQLite+"?mode=ro")
		if err != nil {
			return err
		}
		defer db.Close()
		return check(ctx, func(ctx context.Context, q string, args ...any) (int64, error) {
			var n int64
			err := db.QueryRowContext(ctx, q, args...).Scan(&n)
			return n, err
		})
	case *checkPG != "":
		cfg, err := pgx.ParseConfig(*checkPG)
		if err != nil {
			return errors.New("cannot parse the DSN")
		}
		cfg.RuntimeParams["search_path"] = *schema
		conn, err := pgx.ConnectConfig(ctx, cfg)
		if err != nil {
			return err
		}
		defer conn.Close(context.Background())
		return check(ctx, func(ctx context.Context, q string, args ...any) (int64, error) {
			var n int64
			err := conn.QueryRow(ctx, strings.ReplaceAll(q, "?", "$1"), args...).Scan(&n)
			return n, err
		})
	}
	if *urls == "" || *keys == "" {
		return errors.New("-url and -keys are required")
	}
	if *scanEvery < 1 {
		return errors.New("-scan-every must be at least 1")
	}
	cfg := config{urls: strings.Split(*urls, ","), keys: strings.Split(*keys, ","), clients: *clients,
		duration: *duration, scanEvery: *scanEvery}
	var ms []string
	if *metrics != "" {
		ms = strings.Split(*metrics, ",")
	}
	before, err := scrapeAll(ctx, ms)
	if err != nil {
		return err
	}
	res := drive(ctx, cfg)
	after, err := scrapeAll(ctx, ms)
	if err != nil {
		return err
	}
	res.print(os.Stdout, *label, cfg, after.minus(before))
	if res.unexpected() > 0 {
		return fmt.Errorf("%d calls were refused or failed by something other than the limits", res.unexpected())
	}
	return nil
}

type config struct {
	urls, keys []string
	clients    int
	duration   time.Duration
	scanEvery  int
}

// limitsOwn are the refusals the limits make on purpose: a limit was
// reached. Any other refusal is a failure of the run.
var limitsOwn = map[string]bool{
	"rate_limited": true, "rate_limit_exceeded": true, "quota_exceeded": true,
	"too_many_concurrent_scans": true, "scanner_busy": true, "duplicate_scan": true,
}

// tally is what one client saw.
type tally struct {
	outcomes map[string]uint64 // "scan ok", "cheap rate_limited", ...
	lat      map[string]*loadtest.Histogram
	first    map[string]string // one example body per unexpected outcome
}

func newTally() *tally {
	return &tally{outcomes: map[string]uint64{}, lat: map[string]*loadtest.Histogram{}, first: map[string]string{}}
}

func (t *tally) add(kind, outcome string, d time.Duration, body []byte) {
	t.outcomes[kind+" "+outcome]++
	h := t.lat[kind]
	if h == nil {
		h = &loadtest.Histogram{}
		t.lat[kind] = h
	}
	h.Record(d)
	if outcome != "ok" && !limitsOwn[outcome] && t.first[outcome] == "" {
		t.first[outcome] = string(body[:min(len(body), 300)])
	}
}

func (t *tally) merge(o *tally) {
	for k, v := range o.outcomes {
		t.outcomes[k] += v
	}
	for k, h := range o.lat {
		if t.lat[k] == nil {
			t.lat[k] = &loadtest.Histogram{}
		}
		t.lat[k].Merge(h)
	}
	for k, v := range o.first {
		if t.first[k] == "" {
			t.first[k] = v
		}
	}
}

func (t *tally) unexpected() uint64 {
	var n uint64
	for k, v := range t.outcomes {
		_, outcome, _ := strings.Cut(k, " ")
		if outcome != "ok" && !limitsOwn[outcome] {
			n += v
		}
	}
	return n
}

type result struct {
	*tally
	window time.Duration
}

func drive(ctx context.Context, cfg config) result {
	ctx, cancel := context.WithTimeout(ctx, cfg.duration)
	defer cancel()
	start := time.Now()
	tallies := make([]*tally, cfg.clients)
	var wg sync.WaitGroup
	for i := range cfg.clients {
		t := newTally()
		tallies[i] = t
		wg.Go(func() {
			c := &http.Client{Timeout: 60 * time.Second, Transport: &http.Transport{MaxIdleConnsPerHost: 1, MaxConnsPerHost: 1}}
			url, key := cfg.urls[i%len(cfg.urls)], cfg.keys[i%len(cfg.keys)]
			for n := 0; ctx.Err() == nil; n++ {
				kind, body := "cheap", cheapCall(i, n)
				if n%cfg.scanEvery == cfg.scanEvery-1 {
					kind, body = "scan", scanCall(i, n)
				}
				st := time.Now()
				outcome, raw := call(ctx, c, url, key, body)
				if ctx.Err() != nil && outcome != "ok" {
					break // cut short by the end of the run
				}
				t.add(kind, outcome, time.Since(st), raw)
			}
			c.CloseIdleConnections()
		})
	}
	wg.Wait()
	all := newTally()
	for _, t := range tallies {
		all.merge(t)
	}
	return result{tally: all, window: time.Since(start)}
}

const meta = `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}`

func scanCall(client, n int) []byte {
	return []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"keysweep_scan_text","arguments":{"text":"client ` +
		strconv.Itoa(client) + ` call ` + strconv.Itoa(n) + ` has nothing to find"},` + meta + `}}`)
}

func cheapCall(client, n int) []byte {
	return []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"util_hash","arguments":{"input":"` +
		strconv.Itoa(client) + `/` + strconv.Itoa(n) + `"},` + meta + `}}`)
}

// call sends one request and names its outcome: "ok", the code of a
// refusal (HTTP or tool), or a description of a failure.
func call(ctx context.Context, c *http.Client, url, key string, body []byte) (string, []byte) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		return "client_error", nil
	}
	var p struct {
		Params struct {
			Name string `json:"name"`
		} `json:"params"`
	}
	_ = json.Unmarshal(body, &p)
	h := req.Header
	h.Set("Content-Type", "application/json")
	h.Set("Accept", "application/json, text/event-stream")
	h.Set("Mcp-Protocol-Version", "2026-07-28")
	h.Set("Mcp-Method", "tools/call")
	h.Set("Mcp-Name", p.Params.Name)
	h.Set("Authorization", "Bearer "+key)
	resp, err := c.Do(req)
	if err != nil {
		return "transport_error", []byte(err.Error())
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if err != nil {
		return "transport_error", []byte(err.Error())
	}
	return outcomeOf(resp.StatusCode, raw), raw
}

// outcomeOf reads a response: an HTTP refusal's {"error":{"code"}}, a
// JSON-RPC error's data.code or number, or a tool result's error code
// (the first line of its text, "code: message").
func outcomeOf(status int, raw []byte) string {
	var r struct {
		Error  json.RawMessage `json:"error"`
		Result *struct {
			IsError bool `json:"isError"`
			Content []struct {
				Text string `json:"text"`
			} `json:"content"`
		} `json:"result"`
	}
	if err := json.Unmarshal(raw, &r); err != nil {
		return "http_" + strconv.Itoa(status)
	}
	if len(r.Error) > 0 {
		var e struct {
			Code any `json:"code"`
			Data struct {
				Code string `json:"code"`
			} `json:"data"`
		}
		_ = json.Unmarshal(r.Error, &e)
		switch {
		case e.Data.Code != "":
			return e.Data.Code
		case e.Code != nil:
			if s, ok := e.Code.(string); ok {
				return s
			}
			return fmt.Sprint("rpc_", e.Code)
		}
		return "http_" + strconv.Itoa(status)
	}
	if status != http.StatusOK || r.Result == nil {
		return "http_" + strconv.Itoa(status)
	}
	if !r.Result.IsError {
		return "ok"
	}
	if len(r.Result.Content) > 0 {
		code, _, _ := strings.Cut(r.Result.Content[0].Text, ":")
		return code
	}
	return "tool_error"
}

// buckets is a Prometheus histogram as scraped: cumulative counts by
// upper bound, per control.
type buckets map[string]map[float64]float64

func scrapeAll(ctx context.Context, urls []string) (buckets, error) {
	all := buckets{}
	for _, u := range urls {
		b, err := scrape(ctx, u)
		if err != nil {
			return nil, err
		}
		for ctl, m := range b {
			if all[ctl] == nil {
				all[ctl] = map[float64]float64{}
			}
			for le, n := range m {
				all[ctl][le] += n
			}
		}
	}
	return all, nil
}

func scrape(ctx context.Context, url string) (buckets, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return nil, err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, fmt.Errorf("metrics: %w", err)
	}
	defer resp.Body.Close()
	out := buckets{}
	sc := bufio.NewScanner(resp.Body)
	const prefix = `warden_control_decision_seconds_bucket{control="`
	for sc.Scan() {
		line := sc.Text()
		rest, ok := strings.CutPrefix(line, prefix)
		if !ok {
			continue
		}
		ctl, rest, _ := strings.Cut(rest, `",le="`)
		le, count, _ := strings.Cut(rest, `"} `)
		bound, err1 := strconv.ParseFloat(le, 64)
		n, err2 := strconv.ParseFloat(count, 64)
		if err1 != nil || err2 != nil {
			continue // +Inf
		}
		if out[ctl] == nil {
			out[ctl] = map[float64]float64{}
		}
		out[ctl][bound] = n
	}
	return out, sc.Err()
}

func (b buckets) minus(o buckets) buckets {
	out := buckets{}
	for ctl, m := range b {
		out[ctl] = map[float64]float64{}
		for le, n := range m {
			out[ctl][le] = n - o[ctl][le]
		}
	}
	return out
}

// quantile is the upper bound of the bucket holding the q-quantile, and
// the count; +Inf when it lies past the last bound.
func (b buckets) quantile(ctl string, q float64, total float64) float64 {
	m := b[ctl]
	les := make([]float64, 0, len(m))
	for le := range m {
		les = append(les, le)
	}
	sort.Float64s(les)
	for _, le := range les {
		if m[le] >= q*total {
			return le
		}
	}
	return -1
}

func (r result) print(w io.Writer, label string, cfg config, dec buckets) {
	if label != "" {
		fmt.Fprintf(w, "%s: ", label)
	}
	fmt.Fprintf(w, "%d clients on %d replica(s) with %d key(s) for %s, a scan every %d calls\n",
		cfg.clients, len(cfg.urls), len(cfg.keys), r.window.Round(time.Second), cfg.scanEvery)
	keys := make([]string, 0, len(r.outcomes))
	for k := range r.outcomes {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	fmt.Fprintln(w, "| call | outcome | count | per second | |")
	fmt.Fprintln(w, "|---|---|---|---|---|")
	for _, k := range keys {
		kind, outcome, _ := strings.Cut(k, " ")
		what := "limit"
		switch {
		case outcome == "ok":
			what = ""
		case !limitsOwn[outcome]:
			what = "**unexpected**"
		}
		fmt.Fprintf(w, "| %s | %s | %d | %.1f | %s |\n", kind, outcome, r.outcomes[k], float64(r.outcomes[k])/r.window.Seconds(), what)
	}
	fmt.Fprintln(w)
	fmt.Fprintln(w, "| latency (client, every outcome) | p50 | p99 | max |")
	fmt.Fprintln(w, "|---|---|---|---|")
	for _, kind := range []string{"cheap", "scan"} {
		if h := r.lat[kind]; h != nil {
			fmt.Fprintf(w, "| %s | %s | %s | %s |\n", kind, h.Quantile(.5).Round(10*time.Microsecond),
				h.Quantile(.99).Round(10*time.Microsecond), h.Max().Round(10*time.Microsecond))
		}
	}
	if len(dec) > 0 {
		fmt.Fprintln(w)
		fmt.Fprintln(w, "| decision (server, all replicas) | decisions | p50 ≤ | p99 ≤ |")
		fmt.Fprintln(w, "|---|---|---|---|")
		for _, ctl := range []string{"rate_limit", "scan_admission"} {
			m := dec[ctl]
			var total float64
			for _, n := range m {
				total = max(total, n)
			}
			if total == 0 {
				continue
			}
			fmt.Fprintf(w, "| %s | %.0f | %s | %s |\n", ctl, total, bound(dec.quantile(ctl, .5, total)), bound(dec.quantile(ctl, .99, total)))
		}
	}
	for outcome, body := range r.first {
		fmt.Fprintf(w, "\nfirst %s: %s\n", outcome, body)
	}
}

func bound(s float64) string {
	if s < 0 {
		return "beyond the last bucket"
	}
	return (time.Duration(s * float64(time.Second))).String()
}

// check reads a stopped deployment's store: no live lease, and the
// ledger, the monthly counters and the audit trail agree on the charges.
func check(ctx context.Context, one func(ctx context.Context, q string, args ...any) (int64, error)) error {
	now := time.Now().UnixMicro()
	var leases, ledger, counters, audited, records, calls int64
	for _, q := range []struct {
		dst  *int64
		sql  string
		args []any
	}{
		{&leases, `SELECT count(*) FROM scan_lease WHERE expires_us > ?`, []any{now}},
		{&ledger, `SELECT count(*) FROM scan_ledger`, nil},
		{&counters, `SELECT coalesce(sum(used), 0) FROM quota_counter`, nil},
		// Each record once: one written twice (its first write's answer
		// lost, then written again) would count its charge twice. A
		// refund's record (quota_refunded, -1) is a record of its own.
		{&audited, `SELECT coalesce(sum(c), 0) FROM (SELECT DISTINCT correlation_id, outcome, quota_charged AS c FROM audit_log) AS r`, nil},
		{&records, `SELECT count(*) FROM audit_log`, nil},
		{&calls, `SELECT count(*) FROM (SELECT DISTINCT correlation_id, outcome FROM audit_log) AS r`, nil},
	} {
		n, err := one(ctx, q.sql, q.args...)
		if err != nil {
			return fmt.Errorf("%s: %w", q.sql, err)
		}
		*q.dst = n
	}
	fmt.Printf("after the run: %d leases still held; %d ledger rows, %d units on the monthly counters, %d charged in %d audit records\n",
		leases, ledger, counters, audited, calls)
	if records != calls {
		fmt.Printf("the audit trail holds %d records twice\n", records-calls)
	}
	if leases != 0 || ledger != counters || ledger != audited {
		return errors.New("the store does not agree with itself")
	}
	fmt.Println("no stranded lease; ledger = counters = audit")
	return nil
}
