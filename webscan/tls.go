package webscan

import (
	"context"
	"crypto/tls"
	"errors"
	"strings"
	"sync"
	"sync/atomic"
)

// tlsNotTested lists the checks a scan starts without. The raw ClientHello
// probes (tlsraw.go) take off those they complete; the rest are reported as
// not tested and never counted as passed.
var tlsNotTested = []string{
	"sslv2", "sslv3", "export_ciphers", "null_and_anonymous_ciphers", "dhe_parameters",
	"heartbleed", "ccs_injection", "robot", "ticketbleed", "crime_compression",
	"secure_renegotiation", "fallback_scsv", "certificate_revocation",
}

// probedGroups are offered one at a time to list the accepted key exchanges.
var probedGroups = []tls.CurveID{tls.X25519MLKEM768, tls.X25519, tls.CurveP256, tls.CurveP384, tls.CurveP521}

var probedVersions = []uint16{tls.VersionTLS10, tls.VersionTLS11, tls.VersionTLS12, tls.VersionTLS13}

// handshake dials addr and runs one TLS handshake with cfg. Verification
// is always done afterwards by analyzeChain, never by the handshake.
func (s *Scanner) handshake(ctx context.Context, addr, host string, cfg *tls.Config) (tls.ConnectionState, error) {
	ctx, cancel := context.WithTimeout(ctx, s.opts.RequestTimeout)
	defer cancel()
	conn, err := s.opts.Dial(ctx, "tcp", addr)
	if err != nil {
		return tls.ConnectionState{}, &dialError{err}
	}
	defer conn.Close()
	if dl, ok := ctx.Deadline(); ok {
		_ = conn.SetDeadline(dl)
	}
	cfg.ServerName = host
	cfg.InsecureSkipVerify = true // the chain is verified by analyzeChain with Options.RootCAs
	tc := tls.Client(conn, cfg)
	if err := tc.HandshakeContext(ctx); err != nil {
		return tls.ConnectionState{}, err
	}
	return tc.ConnectionState(), nil
}

// probeTLS runs the main handshake, one handshake per protocol version and
// one per TLS 1.0–1.2 cipher suite, bounded by Options.Concurrency.
func (s *Scanner) probeTLS(ctx context.Context, sem chan struct{}, addr, host string) TLSResult {
	r := TLSResult{Address: addr, Tested: true, NotTested: append([]string{}, tlsNotTested...),
		Protocols: []ProtocolResult{}, CipherSuites: []CipherResult{}, Caps: []GradeReason{}, Groups: []string{}}
	if s.opts.Dial == nil {
		r.Tested, r.Error = false, "no_dialer"
		return r
	}
	st, err := s.handshake(ctx, addr, host, &tls.Config{MinVersion: tls.VersionTLS10, NextProtos: []string{"h2", "http/1.1"}})
	if err != nil && handshakeErrorCode(err) == "handshake_failed" {
		// A server with only legacy suites refuses Go's default offer; retry
		// offering everything crypto/tls implements to read its certificate.
		st, err = s.handshake(ctx, addr, host, &tls.Config{MinVersion: tls.VersionTLS10, CipherSuites: allSuiteIDs(), NextProtos: []string{"h2", "http/1.1"}})
	}
	if err != nil {
		r.Error = handshakeErrorCode(err)
		if r.Error == "connect_failed" || r.Error == "timeout" {
			r.Tested = false
			return r
		}
	} else {
		r.NegotiatedVersion = tls.VersionName(st.Version)
		r.NegotiatedCipher = tls.CipherSuiteName(st.CipherSuite)
		if st.CurveID != 0 {
			r.Group = st.CurveID.String()
		}
		r.ALPN = st.NegotiatedProtocol
		r.Certificate = analyzeChain(st.PeerCertificates, host, s.opts.Now(), s.opts.RootCAs)
		if r.Certificate != nil && len(st.SignedCertificateTimestamps) > 0 {
			r.Certificate.SCTs = true
		}
		if len(st.OCSPResponse) > 0 {
			r.OCSPStapled = true
			r.OCSPStatus = ocspResponseStatus(st.OCSPResponse)
		}
	}

	var wg sync.WaitGroup
	var mu sync.Mutex
	var unans atomic.Int64
	protos := make([]ProtocolResult, len(probedVersions))
	for i, v := range probedVersions {
		protos[i] = ProtocolResult{Version: tls.VersionName(v), Tested: true, Insecure: v < tls.VersionTLS12}
		wg.Go(func() {
			sem <- struct{}{}
			defer func() { <-sem }()
			// Offer every suite crypto/tls implements, so that a server with
			// only legacy suites still completes the version probe.
			_, err := s.handshake(ctx, addr, host, &tls.Config{MinVersion: v, MaxVersion: v, CipherSuites: allSuiteIDs()})
			mu.Lock()
			defer mu.Unlock()
			if err == nil {
				protos[i].Offered = true
			} else if code := handshakeErrorCode(err); code != "handshake_failed" && code != "protocol_version" {
				protos[i].Tested, protos[i].Error = false, code
			}
		})
	}
	wg.Wait()
	r.Protocols = protos

	groups := make([]bool, len(probedGroups))
	for i, g := range probedGroups {
		wg.Go(func() {
			sem <- struct{}{}
			defer func() { <-sem }()
			st, err := s.handshake(ctx, addr, host, &tls.Config{MinVersion: tls.VersionTLS10, CurvePreferences: []tls.CurveID{g}, CipherSuites: allSuiteIDs()})
			groups[i] = err == nil && st.CurveID == g
			if err != nil && unanswered(err) {
				unans.Add(1)
			}
		})
	}
	wg.Wait()
	r.Groups = []string{}
	for i, ok := range groups {
		if ok {
			r.Groups = append(r.Groups, probedGroups[i].String())
		}
	}

	var legacyMin, legacyMax uint16
	for _, p := range protos {
		v := versionID(p.Version)
		if p.Offered && v <= tls.VersionTLS12 {
			if legacyMin == 0 {
				legacyMin = v
			}
			legacyMax = v
		}
	}
	if legacyMax != 0 && !s.opts.SkipCipherProbes {
		suites := append(tls.CipherSuites(), tls.InsecureCipherSuites()...)
		accepted := make([]*CipherResult, len(suites))
		for i, cs := range suites {
			if !supportsLegacy(cs) {
				continue
			}
			wg.Go(func() {
				sem <- struct{}{}
				defer func() { <-sem }()
				st, err := s.handshake(ctx, addr, host, &tls.Config{MinVersion: legacyMin, MaxVersion: legacyMax, CipherSuites: []uint16{cs.ID}})
				if err != nil && unanswered(err) {
					unans.Add(1)
				}
				if err != nil || st.CipherSuite != cs.ID {
					return
				}
				accepted[i] = describeSuite(cs, st.Version)
			})
		}
		wg.Wait()
		for _, a := range accepted {
			if a != nil {
				r.CipherSuites = append(r.CipherSuites, *a)
			}
		}
	} else if s.opts.SkipCipherProbes {
		r.NotTested = append(r.NotTested, "cipher_suites")
	}
	r.Unanswered = int(unans.Load())
	if !s.opts.SkipCipherProbes {
		r.applyRaw(s.probeRaw(ctx, sem, addr, host, protos))
	}
	return r
}

// allSuiteIDs lists every TLS 1.0–1.2 suite crypto/tls implements,
// secure ones first.
func allSuiteIDs() []uint16 {
	var ids []uint16
	for _, cs := range append(tls.CipherSuites(), tls.InsecureCipherSuites()...) {
		if supportsLegacy(cs) {
			ids = append(ids, cs.ID)
		}
	}
	return ids
}

func supportsLegacy(cs *tls.CipherSuite) bool {
	for _, v := range cs.SupportedVersions {
		if v <= tls.VersionTLS12 {
			return true
		}
	}
	return false
}

func versionID(name string) uint16 {
	for _, v := range probedVersions {
		if tls.VersionName(v) == name {
			return v
		}
	}
	return 0
}

// describeSuite classifies an accepted suite.
func describeSuite(cs *tls.CipherSuite, version uint16) *CipherResult {
	c := classifySuite(cs.Name, cs.ID, tls.VersionName(version))
	return &c
}

// classifySuite reads a suite's properties from its IANA name, and the
// worst thing about it, if any.
func classifySuite(n string, id uint16, version string) CipherResult {
	c := CipherResult{Name: n, ID: id, Version: version,
		ForwardSecrecy: strings.HasPrefix(n, "TLS_ECDHE_") || strings.HasPrefix(n, "TLS_DHE_"),
		AEAD:           strings.Contains(n, "_GCM_") || strings.Contains(n, "_CCM") || strings.Contains(n, "CHACHA20_POLY1305")}
	switch {
	case strings.Contains(n, "_EXPORT"):
		c.Weak = "export"
	case strings.Contains(n, "_WITH_NULL_"):
		c.Weak = "null_cipher"
	case strings.Contains(n, "_anon_"):
		c.Weak, c.ForwardSecrecy = "anonymous", false
	case strings.Contains(n, "_WITH_DES_CBC_"):
		c.Weak = "des"
	case strings.Contains(n, "_RC4_"):
		c.Weak = "rc4"
	case strings.Contains(n, "3DES") || strings.Contains(n, "_IDEA_") || strings.Contains(n, "_RC2_"):
		c.Weak = "64bit_block_cipher"
	case !c.ForwardSecrecy:
		c.Weak = "no_forward_secrecy"
	case !c.AEAD:
		c.Weak = "cbc_mode"
	}
	return c
}

// handshakeErrorCode maps a dial or handshake error to a stable code.
func handshakeErrorCode(err error) string {
	if errors.Is(err, context.DeadlineExceeded) || errors.Is(err, context.Canceled) {
		return "timeout"
	}
	var ne interface{ Timeout() bool }
	if errors.As(err, &ne) && ne.Timeout() {
		return "timeout"
	}
	var de *dialError
	if errors.As(err, &de) {
		return "connect_failed"
	}
	msg := err.Error()
	switch {
	case strings.Contains(msg, "RSA key") || strings.Contains(msg, "insecure key"):
		return "insecure_key"
	case strings.Contains(msg, "protocol version"):
		return "protocol_version"
	}
	var re tls.RecordHeaderError
	if errors.As(err, &re) {
		return "not_tls"
	}
	return "handshake_failed"
}

// unanswered reports a probe that got no answer, as opposed to a refusal.
func unanswered(err error) bool {
	c := handshakeErrorCode(err)
	return c == "timeout" || c == "connect_failed"
}

// dialError marks a failure to connect, as opposed to a failed handshake.
type dialError struct{ err error }

func (e *dialError) Error() string { return "connect: " + e.err.Error() }
func (e *dialError) Unwrap() error { return e.err }
