package webscan

import (
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/rsa"
	"crypto/x509"
	"encoding/asn1"
	"errors"
	"strings"
	"time"
)

var (
	oidMustStaple = asn1.ObjectIdentifier{1, 3, 6, 1, 5, 5, 7, 1, 24}
	oidSCTList    = asn1.ObjectIdentifier{1, 3, 6, 1, 4, 1, 11129, 2, 4, 2}
)

// analyzeChain describes a served chain (leaf first). It never fails: what
// it cannot establish is reported as not trusted.
func analyzeChain(chain []*x509.Certificate, host string, now time.Time, roots *x509.CertPool) *CertificateResult {
	if len(chain) == 0 {
		return nil
	}
	leaf := chain[0]
	c := &CertificateResult{
		Subject:            leaf.Subject.String(),
		Issuer:             leaf.Issuer.String(),
		DNSNames:           append([]string{}, leaf.DNSNames...),
		NotBefore:          leaf.NotBefore.UTC(),
		NotAfter:           leaf.NotAfter.UTC(),
		Expired:            now.After(leaf.NotAfter),
		NotYetValid:        now.Before(leaf.NotBefore),
		SignatureAlgorithm: leaf.SignatureAlgorithm.String(),
		ChainLength:        len(chain),
	}
	for _, ip := range leaf.IPAddresses {
		c.DNSNames = append(c.DNSNames, ip.String())
	}
	c.DaysRemaining = int(leaf.NotAfter.Sub(now).Hours() / 24)
	c.KeyType, c.KeyBits = publicKeyInfo(leaf)
	for _, cert := range chain {
		c.Chain = append(c.Chain, cert.Subject.String())
	}
	for _, e := range leaf.Extensions {
		if e.Id.Equal(oidMustStaple) {
			c.MustStaple = true
		}
		if e.Id.Equal(oidSCTList) {
			c.SCTs = true
		}
	}
	c.SelfSigned = isSelfSigned(leaf)
	c.HostnameMatch = leaf.VerifyHostname(host) == nil

	// Trust is judged at a moment inside the leaf's validity window, so that
	// an expired but otherwise trusted certificate is reported as expired
	// rather than untrusted.
	at := now
	if c.Expired {
		at = leaf.NotAfter.Add(-time.Second)
	}
	if c.NotYetValid {
		at = leaf.NotBefore.Add(time.Second)
	}
	inter := x509.NewCertPool()
	for _, cert := range chain[1:] {
		inter.AddCert(cert)
	}
	_, err := leaf.Verify(x509.VerifyOptions{Roots: roots, Intermediates: inter, CurrentTime: at})
	c.Trusted = err == nil
	if err != nil {
		c.TrustError = trustErrorCode(err, c.SelfSigned, leaf)
	}
	c.ChainProblems = chainProblems(chain, c)
	return c
}

// maxLeafValidity is the longest validity the CA/Browser Forum's baseline
// requirements allow a publicly trusted TLS certificate (398 days).
const maxLeafValidity = 398 * 24 * time.Hour

// chainProblems reads the served chain's structure, as testssl.sh and
// SSL Labs report it:
//
//   - incomplete: the path from the leaf stops at a certificate whose
//     issuer was not served and that is not a trust anchor, and the chain
//     did not verify (browsers may fetch the missing intermediate; most
//     other clients fail);
//   - wrong_order: a certificate is not followed by its issuer, though the
//     issuer was served (RFC 8446 §4.4.2 asks for the leaf, then each
//     issuer in turn);
//   - weak_signature: an intermediate signed with SHA-1 or MD5;
//   - unrelated: a served certificate that is on no path from the leaf;
//   - validity_too_long: a publicly trusted leaf valid for more than 398
//     days.
func chainProblems(chain []*x509.Certificate, c *CertificateResult) []string {
	var out []string
	issuerOf := func(cert *x509.Certificate) int {
		for j, cand := range chain {
			if cand != cert && string(cand.RawSubject) == string(cert.RawIssuer) && cert.CheckSignatureFrom(cand) == nil {
				return j
			}
		}
		return -1
	}
	// Follow the path from the leaf through served issuers.
	onPath := map[int]bool{0: true}
	last := 0
	for range chain {
		j := issuerOf(chain[last])
		if j < 0 || onPath[j] {
			break
		}
		onPath[j] = true
		last = j
	}
	if !c.Trusted && c.TrustError == "unknown_authority" && !isSelfSigned(chain[last]) {
		out = append(out, "incomplete")
	}
	for i := 0; i+1 < len(chain); i++ {
		if j := issuerOf(chain[i]); j >= 0 && j != i+1 && onPath[i] {
			out = append(out, "wrong_order")
			break
		}
	}
	for i, cert := range chain[1:] {
		if onPath[i+1] && !isSelfSigned(cert) && weakSignature(cert.SignatureAlgorithm) {
			out = append(out, "weak_signature")
			break
		}
	}
	for i := range chain {
		if !onPath[i] {
			out = append(out, "unrelated")
			break
		}
	}
	if c.Trusted && !c.SelfSigned && chain[0].NotAfter.Sub(chain[0].NotBefore) > maxLeafValidity {
		out = append(out, "validity_too_long")
	}
	return out
}

// weakSignature reports the signature algorithms browsers refuse.
func weakSignature(a x509.SignatureAlgorithm) bool {
	switch a {
	case x509.SHA1WithRSA, x509.ECDSAWithSHA1, x509.DSAWithSHA1, x509.MD5WithRSA, x509.MD2WithRSA:
		return true
	}
	return false
}

func isSelfSigned(cert *x509.Certificate) bool {
	// CheckSignatureFrom would insist on CA basic constraints; a self-signed
	// leaf usually has none, so check the signature directly.
	return string(cert.RawIssuer) == string(cert.RawSubject) &&
		cert.CheckSignature(cert.SignatureAlgorithm, cert.RawTBSCertificate, cert.Signature) == nil
}

// trustErrorCode classifies a verification error as a stable code.
func trustErrorCode(err error, selfSigned bool, leaf *x509.Certificate) string {
	if selfSigned {
		return "self_signed"
	}
	switch leaf.SignatureAlgorithm {
	case x509.SHA1WithRSA, x509.ECDSAWithSHA1, x509.DSAWithSHA1, x509.MD5WithRSA, x509.MD2WithRSA:
		return "insecure_signature"
	}
	var ua x509.UnknownAuthorityError
	if errors.As(err, &ua) {
		return "unknown_authority"
	}
	var ci x509.CertificateInvalidError
	if errors.As(err, &ci) {
		switch ci.Reason {
		case x509.Expired:
			return "chain_expired"
		case x509.NotAuthorizedToSign:
			return "not_authorized_to_sign"
		case x509.IncompatibleUsage:
			return "incompatible_usage"
		}
		return "invalid_certificate"
	}
	if strings.Contains(err.Error(), "insecure") {
		return "insecure_signature"
	}
	return "untrusted"
}

// publicKeyInfo returns the key type and size in bits.
func publicKeyInfo(cert *x509.Certificate) (string, int) {
	switch k := cert.PublicKey.(type) {
	case *rsa.PublicKey:
		return "RSA", k.N.BitLen()
	case *ecdsa.PublicKey:
		return "ECDSA", k.Curve.Params().BitSize
	case ed25519.PublicKey:
		return "Ed25519", 256
	}
	return cert.PublicKeyAlgorithm.String(), 0
}

// ocspResponseStatus reads the responseStatus of a DER OCSPResponse
// (RFC 6960 §4.2.1) without parsing the rest.
func ocspResponseStatus(der []byte) string {
	var resp struct {
		Status asn1.Enumerated
		Rest   asn1.RawValue `asn1:"optional,explicit,tag:0"`
	}
	if _, err := asn1.Unmarshal(der, &resp); err != nil {
		return "unparsable"
	}
	switch resp.Status {
	case 0:
		return "successful"
	case 1:
		return "malformed_request"
	case 2:
		return "internal_error"
	case 3:
		return "try_later"
	case 5:
		return "sig_required"
	case 6:
		return "unauthorized"
	}
	return "unknown"
}
