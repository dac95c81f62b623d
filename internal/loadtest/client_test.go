package loadtest

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

func TestRun(t *testing.T) {
	var served atomic.Int64
	mux := http.NewServeMux()
	mux.HandleFunc("/ok", func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		if string(b) != `{"ping":1}` || r.Header.Get("X-Test") != "yes" {
			http.Error(w, "bad request", http.StatusBadRequest)
			return
		}
		served.Add(1)
		_, _ = io.WriteString(w, `{"pong":1}`)
	})
	mux.HandleFunc("/chunked", func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.WriteString(w, `{"pong":`)
		w.(http.Flusher).Flush()
		_, _ = io.WriteString(w, strings.Repeat(" ", 5000)+`1}`)
	})
	mux.HandleFunc("/fail", func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "nope", http.StatusServiceUnavailable)
	})
	srv := httptest.NewServer(mux)
	defer srv.Close()

	tests := []struct {
		path     string
		want     string
		ok, fail bool
	}{
		{"/ok", `"pong":1`, true, false},
		{"/chunked", `1}`, true, false},
		{"/ok", `"pong":2`, false, true}, // body check fails
		{"/fail", "", false, true},
	}
	for _, tt := range tests {
		t.Run(tt.path+tt.want, func(t *testing.T) {
			cfg := Config{
				URL: srv.URL + tt.path, Body: []byte(`{"ping":1}`),
				Header: http.Header{"X-Test": {"yes"}, "Content-Type": {"application/json"}},
				Conns:  4, Warmup: 50 * time.Millisecond, Duration: 200 * time.Millisecond,
				CPUTime: func() (time.Duration, error) { return time.Duration(served.Load()) * time.Microsecond, nil },
			}
			if tt.want != "" {
				cfg.Want = []byte(tt.want)
			}
			res, err := Run(context.Background(), cfg)
			if tt.ok {
				if err != nil || res.Requests == 0 || res.Failures != 0 {
					t.Fatalf("Run = %+v, %v; want successes only", res, err)
				}
				if res.P50 <= 0 || res.P99 < res.P50 || res.Max < res.P99 || res.PerSecond <= 0 {
					t.Errorf("implausible figures: %v", res)
				}
			}
			if tt.fail && (err == nil || res.Failures == 0 || res.Requests != 0 || res.FirstFailure == "") {
				t.Fatalf("Run = %+v, %v; want every request failed", res, err)
			}
		})
	}
}

func TestRunRefusesBadURL(t *testing.T) {
	for _, u := range []string{"", "https://127.0.0.1/x", "127.0.0.1:80"} {
		if _, err := Run(context.Background(), Config{URL: u}); err == nil {
			t.Errorf("Run(%q) succeeded", u)
		}
	}
}

func TestServeRefusesNonLoopback(t *testing.T) {
	for _, addr := range []string{"0.0.0.0:0", "example.com:80", "nonsense"} {
		if err := Serve(context.Background(), addr, http.NotFoundHandler(), io.Discard); err == nil {
			t.Errorf("Serve(%q) succeeded", addr)
		}
	}
}
