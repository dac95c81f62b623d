package webscan

import (
	"bytes"
	"compress/gzip"
	"net/http"
	"strings"
	"testing"
	"time"
)

func TestScanLimits(t *testing.T) {
	t.Run("body_capped", func(t *testing.T) {
		big := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/html")
			chunk := strings.Repeat("a", 64<<10)
			for i := 0; i < 40; i++ { // 2.5 MiB, past the 2 MiB cap
				if _, err := w.Write([]byte(chunk)); err != nil {
					return
				}
			}
		})
		f := newFixture(t, fixtureOpts{httpsH: big})
		s := New(f.options())
		rep, err := s.Scan(t.Context(), "https://example.com/")
		if err != nil {
			t.Fatal(err)
		}
		if rep.Result.Metadata.StatusCode != 200 {
			t.Errorf("status %d", rep.Result.Metadata.StatusCode)
		}
		r, err := s.get(t.Context(), http.MethodGet, mustURL(t, "https://example.com/"), nil, s.opts.MaxBodyBytes)
		if err != nil {
			t.Fatal(err)
		}
		if len(r.Body) != maxBodyBytes || !r.Truncated {
			t.Errorf("read %d bytes (truncated %v), want the 2 MiB cap", len(r.Body), r.Truncated)
		}
	})
	t.Run("gzip_bomb_bounded", func(t *testing.T) {
		var bomb bytes.Buffer
		zw := gzip.NewWriter(&bomb)
		zeros := make([]byte, 1<<20)
		for i := 0; i < 32; i++ { // 32 MiB of zeros, about 32 KiB compressed
			zw.Write(zeros)
		}
		zw.Close()
		site := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Encoding", "gzip")
			w.Header().Set("Content-Type", "text/html")
			w.Write(bomb.Bytes())
		})
		f := newFixture(t, fixtureOpts{httpsH: site})
		s := New(f.options())
		r, err := s.get(t.Context(), http.MethodGet, mustURL(t, "https://example.com/"), nil, s.opts.MaxBodyBytes)
		if err != nil {
			t.Fatal(err)
		}
		if len(r.Body) != maxBodyBytes || !r.Truncated {
			t.Errorf("read %d decompressed bytes, want the 2 MiB cap", len(r.Body))
		}
		if _, err := s.Scan(t.Context(), "https://example.com/"); err != nil {
			t.Fatal(err)
		}
	})
	t.Run("slow_paths_time_out_per_request", func(t *testing.T) {
		// Every probe hangs for a minute unless its request is cut; the
		// page itself must still load within the request timeout, which is
		// long enough for a TLS handshake on a loaded machine. About 30
		// probes, 8 at a time, take some 4 s if each is cut at 1 s, and a
		// minute if none is.
		slow := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.URL.Path != "/" {
				select {
				case <-r.Context().Done():
				case <-time.After(time.Minute):
				}
				return
			}
			goodSite().ServeHTTP(w, r)
		})
		f := newFixture(t, fixtureOpts{httpsH: slow})
		start := time.Now()
		rep := f.scan(t, "https://example.com/", func(o *Options) { o.RequestTimeout = time.Second })
		if d := time.Since(start); d > 30*time.Second {
			t.Errorf("scan took %v despite a 1 s request timeout", d)
		}
		if len(rep.Result.Exposure.Exposed) != 0 || rep.Result.Metadata.SecurityTxt.Present {
			t.Errorf("timed-out probes produced results: %+v", rep.Result.Exposure)
		}
	})
	t.Run("scan_timeout", func(t *testing.T) {
		hang := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			select {
			case <-r.Context().Done():
			case <-time.After(5 * time.Second):
			}
		})
		f := newFixture(t, fixtureOpts{httpH: hang, httpsH: hang})
		start := time.Now()
		_, err := New(withTimeout(f.options(), 300*time.Millisecond)).Scan(t.Context(), "https://example.com/")
		if err == nil {
			t.Fatal("no error from a scan that timed out")
		}
		if d := time.Since(start); d > 5*time.Second {
			t.Errorf("scan took %v with a 300 ms timeout", d)
		}
	})
	t.Run("proxy_environment_ignored", func(t *testing.T) {
		// The scanner never builds its own client, so proxy variables cannot
		// redirect it; the injected client decides.
		t.Setenv("HTTPS_PROXY", "http://127.0.0.1:1")
		t.Setenv("HTTP_PROXY", "http://127.0.0.1:1")
		f := newFixture(t, fixtureOpts{httpsH: goodSite()})
		if rep := f.scan(t, "https://example.com/", nil); rep.Result.Grade != "A+" {
			t.Errorf("grade %s", rep.Result.Grade)
		}
	})
}

func withTimeout(o Options, d time.Duration) Options {
	o.Timeout = d
	return o
}

func TestScanTarpitReportsIncomplete(t *testing.T) {
	tarpit := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/", "/robots.txt":
			goodSite().ServeHTTP(w, r)
		default:
			select {
			case <-r.Context().Done():
			case <-time.After(10 * time.Second):
			}
		}
	})
	f := newFixture(t, fixtureOpts{httpsH: tarpit})
	start := time.Now()
	rep := f.scan(t, "https://example.com/", func(o *Options) {
		o.Timeout, o.RequestTimeout = 1500*time.Millisecond, 5*time.Second
	})
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("scan took %v with a 1.5 s limit", d)
	}
	if rep.Result.Exposure.Unanswered != rep.Result.Exposure.Probed {
		t.Errorf("unanswered %d of %d", rep.Result.Exposure.Unanswered, rep.Result.Exposure.Probed)
	}
	if !hasFinding(rep, "scan_incomplete") {
		t.Errorf("findings %v", findingIDs(rep))
	}
	if rep.Result.Headers.Grade != "A+" {
		t.Errorf("the page itself was still scored: %s", rep.Result.Headers.Grade)
	}
}
