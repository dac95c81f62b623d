package webscan

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func TestScoreGrade(t *testing.T) {
	tests := []struct {
		score int
		want  string
	}{
		{160, "A+"}, {100, "A+"}, {99, "A"}, {90, "A"}, {89, "A-"}, {85, "A-"}, {84, "B+"}, {80, "B+"},
		{75, "B"}, {70, "B"}, {65, "B-"}, {60, "C+"}, {55, "C"}, {50, "C"}, {45, "C-"}, {40, "D+"},
		{35, "D"}, {30, "D"}, {25, "D-"}, {24, "F"}, {0, "F"},
	}
	for _, tt := range tests {
		if got := scoreGrade(tt.score); got != tt.want {
			t.Errorf("scoreGrade(%d) = %s, want %s", tt.score, got, tt.want)
		}
	}
}

func TestScoreTests(t *testing.T) {
	tr := func(mods ...int) []TestResult {
		var out []TestResult
		for _, m := range mods {
			out = append(out, TestResult{Modifier: m})
		}
		return out
	}
	tests := []struct {
		name  string
		in    []TestResult
		score int
		bonus bool
	}{
		{"bonus_counts_at_90", tr(-10, 5, 10), 105, true},
		{"bonus_dropped_below_90", tr(-15, 5, 10), 85, false},
		{"floor_zero", tr(-50, -50, -25), 0, false},
		{"no_modifiers", tr(), 100, false},
	}
	for _, tt := range tests {
		score, bonus := scoreTests(tt.in)
		if score != tt.score || bonus != tt.bonus {
			t.Errorf("%s: got %d %v, want %d %v", tt.name, score, bonus, tt.score, tt.bonus)
		}
	}
}

func TestTLSCaps(t *testing.T) {
	good := HSTSSummary{Present: true, Valid: true, MaxAge: 63072000}
	protos := func(offered ...string) []ProtocolResult {
		var out []ProtocolResult
		for _, v := range []string{"TLS 1.0", "TLS 1.1", "TLS 1.2", "TLS 1.3"} {
			p := ProtocolResult{Version: v, Tested: true}
			for _, o := range offered {
				p.Offered = p.Offered || o == v
			}
			out = append(out, p)
		}
		return out
	}
	okCert := func(mod func(*CertificateResult)) *CertificateResult {
		c := &CertificateResult{Trusted: true, HostnameMatch: true, KeyType: "ECDSA", KeyBits: 256, SignatureAlgorithm: "ECDSA-SHA256", DaysRemaining: 80}
		if mod != nil {
			mod(c)
		}
		return c
	}
	tests := []struct {
		name string
		r    TLSResult
		hsts HSTSSummary
		want string
	}{
		{"perfect", TLSResult{Certificate: okCert(nil), Protocols: protos("TLS 1.2", "TLS 1.3")}, good, "A+"},
		{"no_hsts", TLSResult{Certificate: okCert(nil), Protocols: protos("TLS 1.2", "TLS 1.3")}, HSTSSummary{}, "A-"},
		{"no_tls13", TLSResult{Certificate: okCert(nil), Protocols: protos("TLS 1.2")}, good, "A-"},
		{"tls10", TLSResult{Certificate: okCert(nil), Protocols: protos("TLS 1.0", "TLS 1.2", "TLS 1.3")}, good, "B"},
		{"only_tls11", TLSResult{Certificate: okCert(nil), Protocols: protos("TLS 1.1")}, good, "C"},
		{"rsa_512_from_stored_cert", TLSResult{Certificate: okCert(func(c *CertificateResult) { c.KeyType, c.KeyBits = "RSA", 512 }), Protocols: protos("TLS 1.2", "TLS 1.3")}, good, "F"},
		{"refused_key", TLSResult{Error: "insecure_key", Protocols: protos()}, good, "F"},
		{"rsa_1024", TLSResult{Certificate: okCert(func(c *CertificateResult) { c.KeyType, c.KeyBits = "RSA", 1024 }), Protocols: protos("TLS 1.2", "TLS 1.3")}, good, "B"},
		{"md5", TLSResult{Certificate: okCert(func(c *CertificateResult) { c.SignatureAlgorithm = "MD5-RSA" }), Protocols: protos("TLS 1.2", "TLS 1.3")}, good, "F"},
		{"sha1", TLSResult{Certificate: okCert(func(c *CertificateResult) { c.SignatureAlgorithm = "SHA1-RSA" }), Protocols: protos("TLS 1.2", "TLS 1.3")}, good, "T"},
		{"untrusted", TLSResult{Certificate: okCert(func(c *CertificateResult) { c.Trusted = false }), Protocols: protos("TLS 1.2", "TLS 1.3")}, good, "T"},
		{"mismatch", TLSResult{Certificate: okCert(func(c *CertificateResult) { c.HostnameMatch = false }), Protocols: protos("TLS 1.2", "TLS 1.3")}, good, "M"},
		{"rc4_modern", TLSResult{Certificate: okCert(nil), Protocols: protos("TLS 1.2", "TLS 1.3"), CipherSuites: []CipherResult{{Name: "TLS_ECDHE_RSA_WITH_RC4_128_SHA", Version: "TLS 1.2", ForwardSecrecy: true, Weak: "rc4"}}}, good, "C"},
		{"rc4_tls10_only", TLSResult{Certificate: okCert(nil), Protocols: protos("TLS 1.0", "TLS 1.2", "TLS 1.3"), CipherSuites: []CipherResult{{Name: "TLS_RSA_WITH_RC4_128_SHA", Version: "TLS 1.0", Weak: "rc4"}}}, good, "B"},
		{"no_fs_no_aead", TLSResult{Certificate: okCert(nil), Protocols: protos("TLS 1.2"), CipherSuites: []CipherResult{{Name: "TLS_RSA_WITH_AES_128_CBC_SHA", Version: "TLS 1.2", Weak: "no_forward_secrecy"}}}, good, "B"},
		{"expiring", TLSResult{Certificate: okCert(func(c *CertificateResult) { c.DaysRemaining = 5 }), Protocols: protos("TLS 1.2", "TLS 1.3")}, good, "A-"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			caps := tlsCaps(tt.r, tt.hsts)
			if got := tlsGrade(caps); got != tt.want {
				t.Errorf("grade = %s, want %s; caps %+v", got, tt.want, caps)
			}
			for _, c := range caps {
				if c.Reason == "" || c.Source != "tls" {
					t.Errorf("cap without reason: %+v", c)
				}
			}
		})
	}
}

func TestOverallGrade(t *testing.T) {
	h := HeadersResult{Score: 120, Grade: "A+"}
	tlsB := TLSResult{Tested: true, Caps: []GradeReason{{Source: "tls", Grade: "B", Reason: "TLS 1.0 or 1.1 is offered"}}}
	exp := ExposureResult{Exposed: []ExposedPath{{Path: "/.git/config", Kind: "git_config", Severity: SeverityMedium}}}
	g, reasons := overallGrade(h, tlsB, exp, true, true)
	if g != "C" {
		t.Errorf("grade = %s, want C", g)
	}
	want := []GradeReason{
		{Source: "headers", Grade: "A+", Reason: "header score 120 (observatory-like/1)"},
		{Source: "tls", Grade: "B", Applied: true, Reason: "TLS 1.0 or 1.1 is offered"},
		{Source: "exposure", Grade: "C", Applied: true, Reason: "git_config exposed at /.git/config (medium)"},
	}
	if diff := cmp.Diff(want, reasons); diff != "" {
		t.Errorf("reasons (-want +got):\n%s", diff)
	}
	g, reasons = overallGrade(h, TLSResult{Tested: true}, ExposureResult{}, true, true)
	if g != "A+" || len(reasons) != 1 || !reasons[0].Applied {
		t.Errorf("uncapped: %s %+v", g, reasons)
	}
	g, _ = overallGrade(h, TLSResult{Error: "no_dialer"}, ExposureResult{}, true, true)
	if g != "A" {
		t.Errorf("untested TLS gives %s, want A (no A+ without TLS evidence)", g)
	}
	g, _ = overallGrade(h, TLSResult{Tested: true, Caps: []GradeReason{{Source: "tls", Grade: "M", Reason: "x"}}}, ExposureResult{}, true, true)
	if g != "F" {
		t.Errorf("M cap gives %s, want F", g)
	}
	g, _ = overallGrade(h, TLSResult{}, ExposureResult{}, false, true)
	if g != "F" {
		t.Errorf("no https gives %s, want F", g)
	}
}

func TestOCSPResponseStatus(t *testing.T) {
	tests := []struct {
		der  []byte
		want string
	}{
		{[]byte{0x30, 0x03, 0x0a, 0x01, 0x00}, "successful"},
		{[]byte{0x30, 0x03, 0x0a, 0x01, 0x03}, "try_later"},
		{[]byte{0x30, 0x03, 0x0a, 0x01, 0x09}, "unknown"},
		{[]byte{0x01, 0x02}, "unparsable"},
	}
	for _, tt := range tests {
		if got := ocspResponseStatus(tt.der); got != tt.want {
			t.Errorf("%x: %s, want %s", tt.der, got, tt.want)
		}
	}
}

func TestAnalyzeChain(t *testing.T) {
	now := time.Now()
	good := makeCert(t, goodCertSpec())
	leaf := parseLeaf(t, good)
	c := analyzeChain(leafChain(leaf), "www.example.com", now, getPKI().pool)
	if !c.Trusted || !c.HostnameMatch || c.SelfSigned || c.Expired || c.KeyType != "ECDSA" || c.ChainLength != 1 {
		t.Errorf("good chain: %+v", c)
	}
	if c := analyzeChain(leafChain(leaf), "example.org", now, getPKI().pool); c.HostnameMatch {
		t.Error("example.org matched")
	}
	// Without the test root the same chain is untrusted, with a stable code.
	if c := analyzeChain(leafChain(leaf), "example.com", now, nil); c.Trusted || c.TrustError != "unknown_authority" {
		t.Errorf("system roots: %+v", c)
	}
	// An expired leaf is reported as expired and still trusted at its own validity time.
	exp := parseLeaf(t, makeCert(t, certSpec{names: []string{"example.com"}, notBefore: now.Add(-48 * time.Hour), notAfter: now.Add(-time.Hour)}))
	if c := analyzeChain(leafChain(exp), "example.com", now, getPKI().pool); !c.Expired || !c.Trusted || c.DaysRemaining > 0 {
		t.Errorf("expired: %+v", c)
	}
	self := parseLeaf(t, makeCert(t, certSpec{names: []string{"example.com"}, notBefore: now.Add(-time.Hour), notAfter: now.Add(time.Hour), selfSigned: true}))
	if c := analyzeChain(leafChain(self), "example.com", now, getPKI().pool); !c.SelfSigned || c.Trusted || c.TrustError != "self_signed" {
		t.Errorf("self-signed: %+v", c)
	}
	if analyzeChain(nil, "example.com", now, nil) != nil {
		t.Error("empty chain analysed")
	}
}
