package webscan

import (
	"context"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"testing"
	"time"
)

// startOpenSSL serves TLS with Debian's openssl s_server on loopback,
// accepting the given OpenSSL cipher list for TLS 1.2 and earlier.
func startOpenSSL(t *testing.T, ciphers string, extra ...string) string {
	t.Helper()
	bin, err := exec.LookPath("openssl")
	if err != nil {
		t.Skip("openssl is not installed")
	}
	dir := t.TempDir()
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "localhost"}, DNSNames: []string{"localhost"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(24 * time.Hour)}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	certFile, keyFile := filepath.Join(dir, "cert.pem"), filepath.Join(dir, "key.pem")
	os.WriteFile(certFile, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o600)
	os.WriteFile(keyFile, pem.EncodeToMemory(&pem.Block{Type: "RSA PRIVATE KEY", Bytes: x509.MarshalPKCS1PrivateKey(key)}), 0o600)
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := strconv.Itoa(l.Addr().(*net.TCPAddr).Port)
	l.Close()
	stdin, keep, _ := os.Pipe() // s_server reads commands from stdin: keep it open
	t.Cleanup(func() { keep.Close(); stdin.Close() })
	args := append([]string{"s_server", "-quiet", "-accept", "127.0.0.1:" + port, "-cert", certFile, "-key", keyFile, "-cipher", ciphers}, extra...)
	cmd := exec.Command(bin, args...)
	cmd.Stdin = stdin
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	addr := "127.0.0.1:" + port
	for range 100 {
		if c, err := net.Dial("tcp", addr); err == nil {
			c.Close()
			return addr
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatal("openssl s_server did not start")
	return ""
}

func suiteNames(cs []CipherResult) []string {
	var out []string
	for _, c := range cs {
		out = append(out, c.Name)
	}
	return out
}

// An OpenSSL server with suites crypto/tls does not implement: the raw
// probes list them, read the DHE group, and settle the checks crypto/tls
// cannot make.
func TestRawProbesListSuitesGoCannotNegotiate(t *testing.T) {
	addr := startOpenSSL(t, "ECDHE-RSA-AES128-GCM-SHA256:DHE-RSA-AES128-SHA:CAMELLIA128-SHA:DHE-RSA-CHACHA20-POLY1305")
	s := New(Options{Dial: (&net.Dialer{}).DialContext, RequestTimeout: 5 * time.Second})
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	r := s.probeTLS(ctx, make(chan struct{}, 4), addr, "localhost")
	names := suiteNames(r.CipherSuites)
	for _, want := range []string{"TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256", "TLS_DHE_RSA_WITH_AES_128_CBC_SHA",
		"TLS_RSA_WITH_CAMELLIA_128_CBC_SHA", "TLS_DHE_RSA_WITH_CHACHA20_POLY1305_SHA256"} {
		if !slices.Contains(names, want) {
			t.Errorf("%s not listed; got %v", want, names)
		}
	}
	if len(names) != 4 {
		t.Errorf("suites %v, want the four the server accepts", names)
	}
	if r.DHBits < 2048 {
		t.Errorf("DH group %d bits, want OpenSSL's automatic 2048 or more", r.DHBits)
	}
	if r.SecureRenegotiation != "supported" || r.FallbackSCSV != "supported" || r.Compression == nil || *r.Compression {
		t.Errorf("renegotiation %q, fallback SCSV %q, compression %v", r.SecureRenegotiation, r.FallbackSCSV, r.Compression)
	}
	if len(r.Protocols) == 0 || r.Protocols[0].Version != "SSL 3.0" || !r.Protocols[0].Tested || r.Protocols[0].Offered {
		t.Errorf("SSL 3.0 probe: %+v", r.Protocols)
	}
	for _, gone := range []string{"sslv3", "export_ciphers", "null_and_anonymous_ciphers", "dhe_parameters", "secure_renegotiation", "fallback_scsv", "crime_compression"} {
		if slices.Contains(r.NotTested, gone) {
			t.Errorf("%s is still listed as not tested", gone)
		}
	}
	for _, kept := range []string{"heartbleed", "robot", "sslv2"} {
		if !slices.Contains(r.NotTested, kept) {
			t.Errorf("%s is no longer listed as not tested", kept)
		}
	}
}

// A server that takes broken suites (anonymous, NULL) is graded F and
// each is named in a finding.
func TestRawProbesFindBrokenSuites(t *testing.T) {
	addr := startOpenSSL(t, "ADH-AES128-SHA:NULL-SHA256:AES128-SHA:@SECLEVEL=0", "-no_tls1_3")
	s := New(Options{Dial: (&net.Dialer{}).DialContext, RequestTimeout: 5 * time.Second})
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	r := s.probeTLS(ctx, make(chan struct{}, 4), addr, "localhost")
	names := suiteNames(r.CipherSuites)
	for _, want := range []string{"TLS_DH_anon_WITH_AES_128_CBC_SHA", "TLS_RSA_WITH_NULL_SHA256"} {
		if !slices.Contains(names, want) {
			t.Errorf("%s not listed; got %v", want, names)
		}
	}
	// The certificate is self-signed (T), and the suites cap at F.
	caps := tlsCaps(r, HSTSSummary{})
	for _, want := range []string{"a suite without encryption (NULL) is accepted", "an anonymous suite is accepted: the server is not authenticated"} {
		if !slices.ContainsFunc(caps, func(c GradeReason) bool { return c.Grade == "F" && c.Reason == want }) {
			t.Errorf("no F cap %q: %+v", want, caps)
		}
	}
	ids := map[string]bool{}
	for _, f := range tlsFindings(r, true) {
		ids[f.ID] = true
	}
	if !ids["tls_insecure_ciphers"] {
		t.Errorf("no tls_insecure_ciphers finding: %v", ids)
	}
	if r.DHBits > 0 && r.DHBits < 2048 && !ids["tls_weak_dh"] {
		t.Errorf("a %d-bit DH group without tls_weak_dh: %v", r.DHBits, ids)
	}
}
