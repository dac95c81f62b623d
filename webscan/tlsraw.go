package webscan

import (
	"context"
	"crypto/tls"
	"slices"
	"strings"
	"sync"

	"github.com/warden-mcp/warden/webscan/internal/hello"
)

// rawProbe sends one hand-made ClientHello to addr and reads the answer.
// ok is false when the server could not be reached or did not answer in
// TLS (unanswered, as opposed to refused).
func (s *Scanner) rawProbe(ctx context.Context, addr string, h hello.Hello, readDH bool) (hello.Answer, bool) {
	ctx, cancel := context.WithTimeout(ctx, s.opts.RequestTimeout)
	defer cancel()
	conn, err := s.opts.Dial(ctx, "tcp", addr)
	if err != nil {
		return hello.Answer{}, false
	}
	defer conn.Close()
	if dl, ok := ctx.Deadline(); ok {
		_ = conn.SetDeadline(dl)
	}
	stop := context.AfterFunc(ctx, func() { conn.Close() })
	defer stop()
	if _, err := conn.Write(h.Marshal()); err != nil {
		return hello.Answer{}, false
	}
	a, err := hello.Read(conn, readDH)
	if err != nil {
		// A server that closes the connection instead of sending an alert
		// refuses too; anything else is no answer.
		if strings.Contains(err.Error(), "EOF") || strings.Contains(err.Error(), "connection reset") {
			return hello.Answer{Alert: true, AlertDesc: hello.AlertHandshakeFailure}, true
		}
		return hello.Answer{}, false
	}
	return a, true
}

// rawChecks are what the hand-made ClientHellos found.
type rawChecks struct {
	sslv3        ProtocolResult
	suites       []CipherResult
	versions     map[uint16]bool // versions the raw probes were answered with
	dhBits       int             // the smallest DHE prime, 0 when none
	renegotiate  string
	compression  bool
	compressTest bool
	fallback     string
	unanswered   int
	tested       []string // names to take off NotTested
}

// probeRaw runs the probes crypto/tls cannot: SSL 3.0, the suites it does
// not implement (enumerated by offering them all and taking away each one
// the server picks), secure renegotiation and compression, and
// TLS_FALLBACK_SCSV.
func (s *Scanner) probeRaw(ctx context.Context, sem chan struct{}, addr, host string, protos []ProtocolResult) rawChecks {
	rc := rawChecks{versions: map[uint16]bool{}}
	offered := map[string]bool{}
	for _, p := range protos {
		offered[p.Version] = p.Offered
	}
	legacy := allSuiteIDs()
	var mu sync.Mutex
	var wg sync.WaitGroup
	run := func(f func()) {
		wg.Go(func() {
			sem <- struct{}{}
			defer func() { <-sem }()
			f()
		})
	}
	miss := func() { mu.Lock(); rc.unanswered++; mu.Unlock() }

	run(func() { // SSL 3.0, offering what SSL 3.0 servers chose
		rc.sslv3 = ProtocolResult{Version: "SSL 3.0", Insecure: true}
		a, ok := s.rawProbe(ctx, addr, hello.Hello{Version: hello.SSL30, NoExtensions: true,
			Suites: []uint16{0x002f, 0x0035, 0x000a, 0x0005, 0x0004, 0x0033, 0x0039, 0x0016, 0x0009}}, false)
		if !ok {
			rc.sslv3.Error = "no_answer"
			miss()
			return
		}
		rc.sslv3.Tested = true
		rc.sslv3.Offered = !a.Alert && a.Version == hello.SSL30
		mu.Lock()
		rc.tested = append(rc.tested, "sslv3")
		mu.Unlock()
	})

	run(func() { // secure renegotiation and compression, in one offer
		suites := append(append(slices.Clone(legacy), rawSuiteIDs...), hello.EmptyRenegotiationInfoSCSV)
		a, ok := s.rawProbe(ctx, addr, hello.Hello{Version: hello.TLS12, Suites: suites, Compression: []byte{1, 0}, ServerName: host}, false)
		mu.Lock()
		defer mu.Unlock()
		switch {
		case !ok:
			rc.unanswered++
		case a.Alert:
			rc.renegotiate = "not_applicable" // no TLS 1.2 or earlier to renegotiate
			rc.tested = append(rc.tested, "secure_renegotiation", "crime_compression")
			rc.compressTest = true
		default:
			rc.renegotiate = "not_supported"
			if a.RenegotiationInfo {
				rc.renegotiate = "supported"
			}
			rc.compression, rc.compressTest = a.Compression != 0, true
			rc.tested = append(rc.tested, "secure_renegotiation", "crime_compression")
		}
	})

	// TLS_FALLBACK_SCSV: offer one version below the highest the server
	// takes; it must refuse with inappropriate_fallback.
	var below uint16
	switch {
	case offered["TLS 1.3"] && offered["TLS 1.2"]:
		below = hello.TLS12
	case offered["TLS 1.2"] && (offered["TLS 1.1"] || offered["TLS 1.0"]):
		below = hello.TLS11
	case offered["TLS 1.1"] && offered["TLS 1.0"]:
		below = hello.TLS10
	}
	if below == 0 {
		mu.Lock() // the probes above are running
		rc.fallback = "not_applicable"
		rc.tested = append(rc.tested, "fallback_scsv")
		mu.Unlock()
	} else {
		run(func() {
			suites := append(append(slices.Clone(legacy), rawSuiteIDs...), hello.FallbackSCSV)
			a, ok := s.rawProbe(ctx, addr, hello.Hello{Version: below, Suites: suites, ServerName: host}, false)
			mu.Lock()
			defer mu.Unlock()
			switch {
			case !ok:
				rc.unanswered++
				return
			case a.Alert && a.AlertDesc == hello.AlertInappropriateFallback:
				rc.fallback = "supported"
			case !a.Alert:
				rc.fallback = "not_supported"
			default:
				rc.fallback = "not_applicable"
			}
			rc.tested = append(rc.tested, "fallback_scsv")
		})
	}

	run(func() { // the suites crypto/tls does not implement, one by one
		remaining := slices.Clone(rawSuiteIDs)
		complete := false
		for range len(rawSuiteIDs) + 1 {
			if ctx.Err() != nil {
				break
			}
			if len(remaining) == 0 {
				complete = true
				break
			}
			a, ok := s.rawProbe(ctx, addr, hello.Hello{Version: hello.TLS12, Suites: remaining, ServerName: host}, true)
			if !ok {
				miss()
				break
			}
			i := slices.Index(remaining, a.Suite)
			if a.Alert || i < 0 {
				complete = true // refused the rest (or answered with a suite not offered)
				break
			}
			remaining = slices.Delete(remaining, i, i+1)
			c := classifySuite(rawSuiteName(a.Suite), a.Suite, versionName(a.Version))
			mu.Lock()
			rc.suites = append(rc.suites, c)
			rc.versions[a.Version] = true
			if a.DHBits > 0 && (rc.dhBits == 0 || a.DHBits < rc.dhBits) {
				rc.dhBits = a.DHBits
			}
			mu.Unlock()
		}
		if complete {
			mu.Lock()
			rc.tested = append(rc.tested, "export_ciphers", "null_and_anonymous_ciphers", "dhe_parameters")
			mu.Unlock()
		}
	})
	wg.Wait()
	return rc
}

// versionName names a wire version as crypto/tls does ("TLS 1.2"), and
// SSL 3.0 as "SSL 3.0".
func versionName(v uint16) string {
	if v == hello.SSL30 {
		return "SSL 3.0"
	}
	return tls.VersionName(v)
}

// applyRaw folds the raw probes into r.
func (r *TLSResult) applyRaw(rc rawChecks) {
	if rc.sslv3.Tested || rc.sslv3.Error != "" {
		r.Protocols = append([]ProtocolResult{rc.sslv3}, r.Protocols...)
	}
	for i := range r.Protocols {
		if v := versionID(r.Protocols[i].Version); v != 0 && rc.versions[v] && !r.Protocols[i].Offered {
			// A server that takes only suites crypto/tls lacks (DHE, say)
			// refused Go's version probe but answered the raw one.
			r.Protocols[i].Offered, r.Protocols[i].Tested, r.Protocols[i].Error = true, true, ""
		}
	}
	r.CipherSuites = append(r.CipherSuites, rc.suites...)
	r.DHBits = rc.dhBits
	r.SecureRenegotiation = rc.renegotiate
	r.FallbackSCSV = rc.fallback
	if rc.compressTest {
		r.Compression = &rc.compression
	}
	r.Unanswered += rc.unanswered
	r.NotTested = slices.DeleteFunc(r.NotTested, func(n string) bool { return slices.Contains(rc.tested, n) })
}
