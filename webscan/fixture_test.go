package webscan

import (
	"context"
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"fmt"
	"io"
	"log"
	"math/big"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"sync"
	"testing"
	"time"
)

// The fixture harness: every site lives on loopback httptest servers and
// is reached as example.com (and www.example.com) on ports 80 and 443 via
// a test-only dialer that maps those names to the servers. Nothing here
// changes production behaviour: the scanner only sees the injected Doer,
// Dial and RootCAs.

// testPKI is a certificate authority generated once per test binary.
type testPKI struct {
	caCert *x509.Certificate
	caKey  crypto.Signer
	pool   *x509.CertPool
}

var (
	pkiOnce sync.Once
	pki     testPKI
	rsaOnce sync.Once
	rsa1024 *rsa.PrivateKey
	rsaErr  error
)

func getPKI() testPKI {
	pkiOnce.Do(func() {
		key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
		if err != nil {
			panic(err)
		}
		tmpl := &x509.Certificate{
			SerialNumber:          big.NewInt(1),
			Subject:               pkix.Name{CommonName: "Warden Test Root"},
			NotBefore:             time.Now().Add(-24 * time.Hour),
			NotAfter:              time.Now().Add(10 * 365 * 24 * time.Hour),
			KeyUsage:              x509.KeyUsageCertSign | x509.KeyUsageDigitalSignature,
			BasicConstraintsValid: true,
			IsCA:                  true,
		}
		der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, key.Public(), key)
		if err != nil {
			panic(err)
		}
		cert, _ := x509.ParseCertificate(der)
		pool := x509.NewCertPool()
		pool.AddCert(cert)
		pki = testPKI{caCert: cert, caKey: key, pool: pool}
	})
	return pki
}

// certSpec describes a leaf certificate to generate.
type certSpec struct {
	names      []string
	notBefore  time.Time
	notAfter   time.Time
	selfSigned bool
	rsaBits    int // 0 means ECDSA P-256
	ocsp       bool
	sigAlg     x509.SignatureAlgorithm // 0 means the default for the key
	// intermediate signs the leaf with an intermediate CA; sendChain
	// controls whether the server sends that intermediate.
	intermediate, sendChain bool
}

func goodCertSpec() certSpec {
	return certSpec{names: []string{"example.com", "www.example.com"}, notBefore: time.Now().Add(-time.Hour), notAfter: time.Now().Add(90 * 24 * time.Hour)}
}

func makeCert(t testing.TB, s certSpec) tls.Certificate {
	t.Helper()
	p := getPKI()
	var key crypto.Signer
	if s.rsaBits == 1024 {
		rsaOnce.Do(func() { rsa1024, rsaErr = rsa.GenerateKey(rand.Reader, 1024) })
		if rsaErr != nil {
			t.Skipf("cannot generate an RSA-1024 key: %v", rsaErr)
		}
		key = rsa1024
	} else {
		k, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
		if err != nil {
			t.Fatal(err)
		}
		key = k
	}
	serial, _ := rand.Int(rand.Reader, big.NewInt(1<<62))
	tmpl := &x509.Certificate{
		SerialNumber: serial,
		Subject:      pkix.Name{CommonName: s.names[0]},
		DNSNames:     s.names,
		NotBefore:    s.notBefore,
		NotAfter:     s.notAfter,
		KeyUsage:     x509.KeyUsageDigitalSignature | x509.KeyUsageKeyEncipherment,
		ExtKeyUsage:  []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
	}
	tmpl.SignatureAlgorithm = s.sigAlg
	parent, signer := p.caCert, p.caKey
	var chain [][]byte
	if s.intermediate {
		ik, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
		if err != nil {
			t.Fatal(err)
		}
		itmpl := &x509.Certificate{SerialNumber: big.NewInt(2), Subject: pkix.Name{CommonName: "Warden Test Intermediate"},
			NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(365 * 24 * time.Hour),
			KeyUsage: x509.KeyUsageCertSign, BasicConstraintsValid: true, IsCA: true}
		ider, err := x509.CreateCertificate(rand.Reader, itmpl, p.caCert, ik.Public(), p.caKey)
		if err != nil {
			t.Fatal(err)
		}
		icert, _ := x509.ParseCertificate(ider)
		parent, signer = icert, ik
		if s.sendChain {
			chain = append(chain, ider)
		}
	}
	if s.selfSigned {
		parent, signer = tmpl, key
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, parent, key.Public(), signer)
	if err != nil {
		t.Fatal(err)
	}
	c := tls.Certificate{Certificate: append([][]byte{der}, chain...), PrivateKey: key}
	if s.ocsp {
		c.OCSPStaple = []byte{0x30, 0x03, 0x0a, 0x01, 0x00} // OCSPResponse{responseStatus: successful}
	}
	return c
}

// fixture is one test site.
type fixture struct {
	plain *httptest.Server // answers as http://example.com
	tls   *httptest.Server // answers as https://example.com
}

// fixtureOpts configures newFixture.
type fixtureOpts struct {
	cert    certSpec
	tlsCfg  func(*tls.Config)
	httpH   http.Handler // nil: redirect to https on the same host
	httpsH  http.Handler
	noHTTP  bool
	noHTTPS bool
}

func newFixture(t testing.TB, o fixtureOpts) *fixture {
	t.Helper()
	f := &fixture{}
	if !o.noHTTP {
		h := o.httpH
		if h == nil {
			h = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				http.Redirect(w, r, "https://"+r.Host+r.URL.RequestURI(), http.StatusMovedPermanently)
			})
		}
		f.plain = httptest.NewServer(h)
		t.Cleanup(f.plain.Close)
	}
	if !o.noHTTPS {
		if o.cert.names == nil {
			o.cert = goodCertSpec()
		}
		f.tls = httptest.NewUnstartedServer(o.httpsH)
		cfg := &tls.Config{Certificates: []tls.Certificate{makeCert(t, o.cert)}, MinVersion: tls.VersionTLS12}
		if o.tlsCfg != nil {
			o.tlsCfg(cfg)
		}
		f.tls.TLS = cfg
		f.tls.Config.ErrorLog = log.New(io.Discard, "", 0) // failed probe handshakes are expected
		f.tls.StartTLS()
		t.Cleanup(f.tls.Close)
	}
	return f
}

// dial maps example.com:80/443 (and www.) to the fixture servers. Any
// other address fails, as a production SSRF guard would refuse it.
func (f *fixture) dial(ctx context.Context, network, addr string) (net.Conn, error) {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, err
	}
	if host != "example.com" && host != "www.example.com" {
		return nil, fmt.Errorf("fixture: refusing to dial %s", addr)
	}
	var target string
	switch {
	case (port == "80" || port == "8080") && f.plain != nil:
		target = f.plain.Listener.Addr().String()
	case (port == "443" || port == "8443") && f.tls != nil:
		target = f.tls.Listener.Addr().String()
	default:
		return nil, fmt.Errorf("fixture: connection refused for %s", addr)
	}
	var d net.Dialer
	return d.DialContext(ctx, network, target)
}

// options returns scanner options wired to the fixture.
func (f *fixture) options() Options {
	tr := &http.Transport{
		DialContext:         f.dial,
		TLSClientConfig:     &tls.Config{RootCAs: getPKI().pool},
		Proxy:               nil,
		ForceAttemptHTTP2:   false,
		MaxIdleConnsPerHost: 16,
	}
	client := &http.Client{
		Transport:     tr,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
		Timeout:       10 * time.Second,
	}
	return Options{HTTP: client, Dial: f.dial, RootCAs: getPKI().pool}
}

// scan runs a scan of https://example.com/ (or the given URL) on f.
func (f *fixture) scan(t testing.TB, rawURL string, mod func(*Options)) *Report {
	t.Helper()
	o := f.options()
	if mod != nil {
		mod(&o)
	}
	rep, err := New(o).Scan(context.Background(), rawURL)
	if err != nil {
		t.Fatalf("Scan(%q): %v", rawURL, err)
	}
	return rep
}

func parseLeaf(t testing.TB, c tls.Certificate) *x509.Certificate {
	t.Helper()
	leaf, err := x509.ParseCertificate(c.Certificate[0])
	if err != nil {
		t.Fatal(err)
	}
	return leaf
}

func leafChain(c *x509.Certificate) []*x509.Certificate { return []*x509.Certificate{c} }

func mustURL(t testing.TB, s string) *url.URL {
	t.Helper()
	u, err := url.Parse(s)
	if err != nil {
		t.Fatal(err)
	}
	return u
}
