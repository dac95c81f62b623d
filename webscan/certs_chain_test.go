package webscan

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"math/big"
	"slices"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// chainCA makes a certificate signed by parent (self-signed when parent is
// nil) valid from nb for life.
func chainCert(t *testing.T, cn string, ca bool, parent *x509.Certificate, parentKey *ecdsa.PrivateKey, nb time.Time, life time.Duration) (*x509.Certificate, *ecdsa.PrivateKey) {
	t.Helper()
	key, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	serial, _ := rand.Int(rand.Reader, big.NewInt(1<<62))
	tmpl := &x509.Certificate{SerialNumber: serial, Subject: pkix.Name{CommonName: cn}, NotBefore: nb, NotAfter: nb.Add(life),
		KeyUsage: x509.KeyUsageDigitalSignature, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}}
	if ca {
		tmpl.IsCA, tmpl.BasicConstraintsValid = true, true
		tmpl.KeyUsage |= x509.KeyUsageCertSign
		tmpl.ExtKeyUsage = nil
	} else {
		tmpl.DNSNames = []string{cn}
	}
	if parent == nil {
		parent, parentKey = tmpl, key
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, parent, &key.PublicKey, parentKey)
	if err != nil {
		t.Fatal(err)
	}
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		t.Fatal(err)
	}
	return cert, key
}

func TestChainProblems(t *testing.T) {
	now := time.Date(2026, 12, 2, 12, 0, 0, 0, time.UTC)
	nb := now.Add(-24 * time.Hour)
	root, rootKey := chainCert(t, "Test Root", true, nil, nil, nb, 10*365*24*time.Hour)
	inter, interKey := chainCert(t, "Test Intermediate", true, root, rootKey, nb, 5*365*24*time.Hour)
	leaf, _ := chainCert(t, "www.example.com", false, inter, interKey, nb, 90*24*time.Hour)
	longLeaf, _ := chainCert(t, "www.example.com", false, inter, interKey, nb, 2*365*24*time.Hour)
	other, _ := chainCert(t, "Someone Else", true, nil, nil, nb, 365*24*time.Hour)
	roots := x509.NewCertPool()
	roots.AddCert(root)

	for _, c := range []struct {
		name    string
		chain   []*x509.Certificate
		trusted bool
		want    []string
	}{
		{"complete", []*x509.Certificate{leaf, inter}, true, nil},
		{"complete_with_root", []*x509.Certificate{leaf, inter, root}, true, nil},
		{"leaf_only", []*x509.Certificate{leaf}, false, []string{"incomplete"}},
		{"root_before_intermediate", []*x509.Certificate{leaf, root, inter}, true, []string{"wrong_order"}},
		{"unrelated_extra", []*x509.Certificate{leaf, inter, other}, true, []string{"unrelated"}},
		{"two_years", []*x509.Certificate{longLeaf, inter}, true, []string{"validity_too_long"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := analyzeChain(c.chain, "www.example.com", now, roots)
			if r.Trusted != c.trusted {
				t.Fatalf("trusted = %v (%s), want %v", r.Trusted, r.TrustError, c.trusted)
			}
			if diff := cmp.Diff(c.want, r.ChainProblems); diff != "" {
				t.Errorf("chain problems (-want +got):\n%s", diff)
			}
			var ids []string
			for _, f := range tlsFindings(TLSResult{Tested: true, Certificate: r}, true) {
				ids = append(ids, f.ID)
			}
			for _, p := range c.want {
				id := map[string]string{"incomplete": "cert_chain_incomplete", "wrong_order": "cert_chain_wrong_order",
					"unrelated": "cert_chain_unrelated", "validity_too_long": "cert_validity_too_long"}[p]
				if !slices.Contains(ids, id) {
					t.Errorf("no %s finding in %v", id, ids)
				}
			}
		})
	}
}
