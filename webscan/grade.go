package webscan

import (
	"crypto/tls"
	"fmt"
	"slices"
	"strings"
)

// AlgorithmVersion names the scoring algorithm. It changes whenever a
// modifier, threshold or cap changes, so that scores stay comparable.
const AlgorithmVersion = "observatory-like/1"

// minScoreForBonus is the Observatory rule: positive modifiers count only
// when the score after penalties is at least 90.
const minScoreForBonus = 90

// grades from best to worst. T (untrusted certificate) and M (name
// mismatch) are TLS-only grades that count as F overall.
var grades = []string{"A+", "A", "A-", "B+", "B", "B-", "C+", "C", "C-", "D+", "D", "D-", "F"}

// gradeRank returns 0 for A+ up to 12 for F; T and M rank as F.
func gradeRank(g string) int {
	for i, v := range grades {
		if v == g {
			return i
		}
	}
	return len(grades) - 1
}

// worse returns the worse of two grades.
func worse(a, b string) string {
	if gradeRank(b) > gradeRank(a) {
		return b
	}
	return a
}

// scoreTests applies the Observatory arithmetic: start at 100, add the
// penalties; if the result is still at least 90 add the bonuses; floor 0.
func scoreTests(tests []TestResult) (score int, bonus bool) {
	score = 100
	extra := 0
	for _, t := range tests {
		if t.Modifier < 0 {
			score += t.Modifier
		} else {
			extra += t.Modifier
		}
	}
	if score >= minScoreForBonus {
		score += extra
		bonus = extra > 0
	}
	return max(score, 0), bonus
}

// scoreGrade maps a score to a letter with the Observatory chart: the
// score is rounded down to a multiple of 5 and capped at 100.
func scoreGrade(score int) string {
	s := min(score-score%5, 100)
	switch {
	case s >= 100:
		return "A+"
	case s >= 90:
		return "A"
	case s >= 85:
		return "A-"
	case s >= 80:
		return "B+"
	case s >= 70:
		return "B"
	case s >= 65:
		return "B-"
	case s >= 60:
		return "C+"
	case s >= 50:
		return "C"
	case s >= 45:
		return "C-"
	case s >= 40:
		return "D+"
	case s >= 30:
		return "D"
	case s >= 25:
		return "D-"
	}
	return "F"
}

// tlsCaps lists the TLS caps and warnings that crypto/tls can observe.
// hsts is the parsed HSTS header of the https response.
func tlsCaps(r TLSResult, hsts HSTSSummary) []GradeReason {
	var caps []GradeReason
	add := func(g, why string) { caps = append(caps, GradeReason{Source: "tls", Grade: g, Reason: why}) }
	switch {
	case r.Error == "insecure_key":
		add("F", "the server's key is too weak for crypto/tls to complete a handshake (RSA under 1024 bits)")
	case r.Tested && r.Certificate == nil:
		add("F", "no TLS handshake could be completed ("+r.Error+")")
	}
	if c := r.Certificate; c != nil {
		switch {
		case c.Expired:
			add("T", "the certificate expired on "+c.NotAfter.Format("2006-01-02"))
		case c.NotYetValid:
			add("T", "the certificate is not valid until "+c.NotBefore.Format("2006-01-02"))
		}
		if c.SelfSigned {
			add("T", "the certificate is self-signed")
		} else if !c.Trusted {
			add("T", "the certificate chain is not trusted ("+c.TrustError+")")
		}
		if !c.HostnameMatch {
			add("M", "the certificate does not cover the host name")
		}
		switch {
		case strings.HasPrefix(c.SignatureAlgorithm, "MD5") || strings.HasPrefix(c.SignatureAlgorithm, "MD2"):
			add("F", "the certificate is signed with "+c.SignatureAlgorithm)
		case strings.Contains(c.SignatureAlgorithm, "SHA1"):
			add("T", "the certificate is signed with SHA-1")
		}
		switch {
		case c.KeyType == "RSA" && c.KeyBits < 1024:
			add("F", fmt.Sprintf("the certificate key is RSA %d bits (under 1024)", c.KeyBits))
		case c.KeyType == "RSA" && c.KeyBits < 2048:
			add("B", fmt.Sprintf("the certificate key is RSA %d bits (under 2048)", c.KeyBits))
		case c.KeyType == "ECDSA" && c.KeyBits < 224:
			add("B", fmt.Sprintf("the certificate key is ECDSA %d bits (under 224)", c.KeyBits))
		}
		if c.DaysRemaining >= 0 && c.DaysRemaining < 30 && !c.Expired {
			add("A-", fmt.Sprintf("the certificate expires in %d days", c.DaysRemaining))
		}
	}
	offered := map[string]bool{}
	tested := map[string]bool{}
	for _, p := range r.Protocols {
		offered[p.Version], tested[p.Version] = p.Offered, p.Tested
	}
	v10, v11 := tls.VersionName(tls.VersionTLS10), tls.VersionName(tls.VersionTLS11)
	v12, v13 := tls.VersionName(tls.VersionTLS12), tls.VersionName(tls.VersionTLS13)
	if offered["SSL 3.0"] {
		add("C", "SSL 3.0 is offered (POODLE)")
	}
	if offered[v10] || offered[v11] {
		add("B", "TLS 1.0 or 1.1 is offered")
	}
	if tested[v12] && tested[v13] && !offered[v12] && !offered[v13] && len(r.Protocols) > 0 {
		add("C", "neither TLS 1.2 nor TLS 1.3 is offered")
	}
	var rc4, tdesModern, rc4Modern, anyFS, anyAEAD bool
	for _, c := range r.CipherSuites {
		modern := c.Version != v10
		switch c.Weak {
		case "rc4":
			rc4 = true
			rc4Modern = rc4Modern || modern
		case "64bit_block_cipher":
			tdesModern = tdesModern || modern
		}
		anyFS = anyFS || c.ForwardSecrecy
		anyAEAD = anyAEAD || c.AEAD
	}
	for _, w := range []struct{ weak, grade, why string }{
		{"export", "F", "an export-grade suite is accepted (FREAK, Logjam)"},
		{"null_cipher", "F", "a suite without encryption (NULL) is accepted"},
		{"anonymous", "F", "an anonymous suite is accepted: the server is not authenticated"},
		{"des", "C", "single DES is accepted"},
	} {
		if slices.ContainsFunc(r.CipherSuites, func(c CipherResult) bool { return c.Weak == w.weak }) {
			add(w.grade, w.why)
		}
	}
	switch {
	case r.DHBits > 0 && r.DHBits < 1024:
		add("F", fmt.Sprintf("DHE uses a %d-bit group (under 1024)", r.DHBits))
	case r.DHBits > 0 && r.DHBits < 2048:
		add("B", fmt.Sprintf("DHE uses a %d-bit group (under 2048)", r.DHBits))
	}
	if r.Compression != nil && *r.Compression {
		add("C", "TLS compression is enabled (CRIME)")
	}
	if r.SecureRenegotiation == "not_supported" {
		add("B", "secure renegotiation (RFC 5746) is not supported")
	}
	if r.FallbackSCSV == "not_supported" {
		add("A-", "a downgraded handshake is accepted: no TLS_FALLBACK_SCSV (RFC 7507)")
	}
	if rc4Modern {
		add("C", "RC4 is accepted with TLS 1.1 or later")
	} else if rc4 {
		add("B", "RC4 is accepted")
	}
	if tdesModern {
		add("C", "a 64-bit block cipher (3DES) is accepted with TLS 1.1 or later (SWEET32)")
	}
	if len(r.CipherSuites) > 0 && !offered[v13] {
		if !anyFS {
			add("B", "no forward-secret (ECDHE or DHE) cipher suite is accepted")
		}
		if !anyAEAD {
			add("B", "no AEAD (GCM or ChaCha20-Poly1305) cipher suite is accepted")
		}
	}
	if tested[v13] && !offered[v13] {
		add("A-", "TLS 1.3 is not offered")
	}
	switch {
	case !hsts.Present || !hsts.Valid:
		add("A-", "HSTS is missing or invalid")
	case hsts.MaxAge < hstsSixMonths:
		add("A-", "HSTS max-age is under 180 days")
	}
	return caps
}

// tlsGrade folds the caps into one TLS grade. With no cap the grade is A+.
// T and M are returned as such; the overall grade treats them as F.
func tlsGrade(caps []GradeReason) string {
	g := "A+"
	special := ""
	for _, c := range caps {
		switch c.Grade {
		case "T", "M":
			if special == "" {
				special = c.Grade
			}
		default:
			g = worse(g, c.Grade)
		}
	}
	if special != "" {
		return special
	}
	return g
}

// exposureCap maps an exposure severity to a grade cap: critical F, high
// D, medium C; low and info do not cap.
func exposureCap(s Severity) string {
	switch s {
	case SeverityCritical:
		return "F"
	case SeverityHigh:
		return "D"
	case SeverityMedium:
		return "C"
	}
	return ""
}

// referenceTests are the MDN HTTP Observatory's tests, in its order.
var referenceTests = []string{
	"content-security-policy", "cookies", "cross-origin-resource-sharing", "redirection",
	"referrer-policy", "strict-transport-security", "subresource-integrity",
	"x-content-type-options", "x-frame-options", "cross-origin-resource-policy",
}

// referenceAlgorithmVersion is the Observatory algorithm the reference
// score follows.
const referenceAlgorithmVersion = 4

// referenceResult recomputes the header score over the Observatory's
// test set.
func referenceResult(tests []TestResult) ReferenceResult {
	r := ReferenceResult{Name: "mdn-http-observatory", AlgorithmVersion: referenceAlgorithmVersion, Tests: []TestResult{}}
	for _, name := range referenceTests {
		for _, t := range tests {
			if t.Name == name {
				r.Tests = append(r.Tests, t)
			}
		}
	}
	r.Score, _ = scoreTests(r.Tests)
	r.Grade = scoreGrade(r.Score)
	return r
}
