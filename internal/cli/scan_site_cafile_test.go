package cli

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// --ca-file adds the file's roots to this scan's fetch policy (and only
// to it), and refuses a file without a certificate.
func TestScanSiteCAFile(t *testing.T) {
	dir := t.TempDir()
	key, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "dev CA"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour), IsCA: true, BasicConstraintsValid: true}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	good := filepath.Join(dir, "ca.pem")
	os.WriteFile(good, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o600)
	bad := filepath.Join(dir, "bad.pem")
	os.WriteFile(bad, []byte("not a certificate"), 0o600)

	opts, err := siteFlags{caFile: good}.fetchPolicy()
	if err != nil || opts == nil || opts.RootCAs == nil {
		t.Fatalf("fetchPolicy = %+v, %v", opts, err)
	}
	if opts.AllowPrivate || len(opts.AllowPorts) > 0 {
		t.Errorf("--ca-file widened the address policy: %+v", opts)
	}
	cert, _ := x509.ParseCertificate(der)
	if _, err := cert.Verify(x509.VerifyOptions{Roots: opts.RootCAs}); err != nil {
		t.Errorf("the file's CA is not trusted: %v", err)
	}
	for _, f := range []string{bad, filepath.Join(dir, "missing.pem")} {
		if _, err := (siteFlags{caFile: f}).fetchPolicy(); err == nil || !strings.Contains(err.Error(), "--ca-file") {
			t.Errorf("%s: err = %v", f, err)
		}
	}
	if opts, _ := (siteFlags{}).fetchPolicy(); opts != nil {
		t.Errorf("no flag gave a policy %+v", opts)
	}
}
