package webscan

import (
	"context"
	"net/http"
	"testing"
)

// BenchmarkFullScan scans a local fixture site with every check and every
// probe: both fetch sessions, 4 protocol probes, one handshake per
// TLS 1.0–1.2 suite, the CORS probe, 4 baselines plus about 30 exposure
// paths, security.txt and robots.txt. The figure is recorded in
// docs/PERFORMANCE-webscan.md.
func BenchmarkFullScan(b *testing.B) {
	b.Run("keepalive", func(b *testing.B) { benchScan(b, false) })
	// Without keep-alives every request opens a new TCP+TLS connection, as
	// an SSRF-safe client that pins addresses per request would.
	b.Run("no_keepalive", func(b *testing.B) { benchScan(b, true) })
}

func benchScan(b *testing.B, noKeepAlive bool) {
	site := softNotFound(map[string]string{"/.git/config": gitConfig, "/.env": envFile}, nil)
	f := newFixture(b, fixtureOpts{httpsH: goodSiteWith(site)})
	o := f.options()
	if noKeepAlive {
		o.HTTP.(*http.Client).Transport.(*http.Transport).DisableKeepAlives = true
	}
	s := New(o)
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		rep, err := s.Scan(ctx, "https://example.com/")
		if err != nil {
			b.Fatal(err)
		}
		if len(rep.Result.Exposure.Exposed) != 2 || len(rep.Result.TLS.CipherSuites) == 0 {
			b.Fatalf("incomplete scan: %d exposed, %d suites", len(rep.Result.Exposure.Exposed), len(rep.Result.TLS.CipherSuites))
		}
	}
}
