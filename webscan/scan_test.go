package webscan

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/warden-mcp/warden/errcode"
)

func findingIDs(r *Report) []string {
	var ids []string
	for _, f := range r.Findings {
		ids = append(ids, f.ID)
	}
	slices.Sort(ids)
	return ids
}

func hasFinding(r *Report, id string) bool {
	return slices.Contains(findingIDs(r), id)
}

func testResults(r *Report) map[string]string {
	m := map[string]string{}
	for _, t := range r.Result.Headers.Tests {
		m[t.Name] = t.Result
	}
	return m
}

func TestScanGoodSite(t *testing.T) {
	f := newFixture(t, fixtureOpts{httpsH: goodSite(), cert: func() certSpec { c := goodCertSpec(); c.ocsp = true; return c }()})
	rep := f.scan(t, "https://example.com/", nil)

	if rep.Status != "completed" || len(rep.ScanID) != 32 {
		t.Errorf("status %q scan_id %q", rep.Status, rep.ScanID)
	}
	if rep.Result.Grade != "A+" {
		t.Errorf("grade = %s, want A+; reasons %+v", rep.Result.Grade, rep.Result.Reasons)
	}
	want := map[string]string{
		"content-security-policy":       "csp-implemented-with-no-unsafe-default-src-none",
		"cookies":                       "cookies-secure-with-httponly-sessions-and-samesite",
		"cross-origin-embedder-policy":  "cross-origin-embedder-policy-implemented",
		"cross-origin-opener-policy":    "cross-origin-opener-policy-implemented",
		"cross-origin-resource-policy":  "cross-origin-resource-policy-implemented",
		"cross-origin-resource-sharing": "cross-origin-resource-sharing-not-implemented",
		"redirection":                   "redirection-to-https",
		"referrer-policy":               "referrer-policy-private",
		"strict-transport-security":     "hsts-implemented-max-age-at-least-six-months",
		"subresource-integrity":         "sri-implemented-and-external-scripts-loaded-securely",
		"x-content-type-options":        "x-content-type-options-nosniff",
		"x-frame-options":               "x-frame-options-implemented-via-csp",
	}
	if diff := cmp.Diff(want, testResults(rep)); diff != "" {
		t.Errorf("test results (-want +got):\n%s", diff)
	}
	if rep.Result.Score != 160 || !rep.Result.Headers.BonusApplied {
		t.Errorf("score = %d bonus %v, want 160 with bonus", rep.Result.Score, rep.Result.Headers.BonusApplied)
	}
	for _, f := range rep.Findings {
		if f.Severity.Rank() > SeverityInfo.Rank() {
			t.Errorf("unexpected finding on the good site: %+v", f)
		}
	}
	tr := rep.Result.TLS
	if tr.Grade != "A+" || !tr.Tested || !tr.OCSPStapled || tr.OCSPStatus != "successful" {
		t.Errorf("tls grade %s tested %v ocsp %v/%s caps %+v", tr.Grade, tr.Tested, tr.OCSPStapled, tr.OCSPStatus, tr.Caps)
	}
	offered := map[string]bool{}
	for _, p := range tr.Protocols {
		offered[p.Version] = p.Offered
	}
	if diff := cmp.Diff(map[string]bool{"SSL 3.0": false, "TLS 1.0": false, "TLS 1.1": false, "TLS 1.2": true, "TLS 1.3": true}, offered); diff != "" {
		t.Errorf("protocols (-want +got):\n%s", diff)
	}
	if len(tr.CipherSuites) == 0 {
		t.Error("no TLS 1.2 cipher suite recorded")
	}
	if diff := cmp.Diff([]string{"X25519MLKEM768", "X25519", "CurveP256", "CurveP384", "CurveP521"}, tr.Groups); diff != "" {
		t.Errorf("groups (-want +got):\n%s", diff)
	}
	aead := false
	for _, c := range tr.CipherSuites {
		aead = aead || c.AEAD
		if !c.ForwardSecrecy {
			t.Errorf("suite without forward secrecy accepted: %+v", c)
		}
	}
	if !aead {
		t.Error("no AEAD suite recorded")
	}
	if c := tr.Certificate; c == nil || !c.Trusted || !c.HostnameMatch || c.KeyType != "ECDSA" || c.KeyBits != 256 {
		t.Errorf("certificate %+v", tr.Certificate)
	}
	if !slices.Contains(tr.NotTested, "heartbleed") || slices.Contains(tr.NotTested, "sslv3") {
		t.Errorf("not_tested = %v", tr.NotTested)
	}
	if tr.SecureRenegotiation != "supported" || tr.FallbackSCSV != "supported" || tr.Compression == nil || *tr.Compression {
		t.Errorf("renegotiation %q, fallback SCSV %q, compression %v", tr.SecureRenegotiation, tr.FallbackSCSV, tr.Compression)
	}
	hops := rep.Result.Redirects.HTTP.Hops
	if len(hops) != 2 || hops[0].StatusCode != 301 || hops[1].URL != "https://example.com/" {
		t.Errorf("http chain %+v", hops)
	}
	if !rep.Result.Metadata.SecurityTxt.Present || rep.Result.Metadata.Title != "Example shop" {
		t.Errorf("metadata %+v", rep.Result.Metadata)
	}
	if len(rep.Result.Exposure.Exposed) != 0 || rep.Result.Exposure.Probed < 25 {
		t.Errorf("exposure %+v", rep.Result.Exposure)
	}
	// The cookie value never reaches the report.
	b, _ := json.Marshal(rep)
	if strings.Contains(string(b), "s3cr3t-session-value") {
		t.Error("report contains a cookie value")
	}
}

func TestScanBadHeaders(t *testing.T) {
	f := newFixture(t, fixtureOpts{httpH: badHeadersSite(), httpsH: badHeadersSite()})
	rep := f.scan(t, "https://example.com/", nil)
	want := map[string]string{
		"content-security-policy":       "csp-implemented-with-unsafe-inline",
		"cookies":                       "cookies-session-without-secure-flag",
		"cross-origin-embedder-policy":  "cross-origin-embedder-policy-not-implemented",
		"cross-origin-opener-policy":    "cross-origin-opener-policy-not-implemented",
		"cross-origin-resource-policy":  "cross-origin-resource-policy-not-implemented",
		"cross-origin-resource-sharing": "cross-origin-resource-sharing-implemented-with-universal-access",
		"redirection":                   "redirection-missing",
		"referrer-policy":               "referrer-policy-not-implemented",
		"strict-transport-security":     "hsts-not-implemented",
		"subresource-integrity":         "sri-not-implemented-and-external-scripts-not-loaded-securely",
		"x-content-type-options":        "x-content-type-options-not-implemented",
		"x-frame-options":               "x-frame-options-not-implemented",
	}
	if diff := cmp.Diff(want, testResults(rep)); diff != "" {
		t.Errorf("test results (-want +got):\n%s", diff)
	}
	if rep.Result.Score != 0 || rep.Result.Grade != "F" {
		t.Errorf("score %d grade %s, want 0 F", rep.Result.Score, rep.Result.Grade)
	}
	for _, id := range []string{"csp_unsafe_inline", "csp_unsafe_eval", "cors_reflected_with_credentials", "cookie_session_not_secure",
		"https_redirect_missing", "hsts_missing", "clickjacking_unprotected", "xcto_missing", "sri_insecure_scripts",
		"version_disclosed_server", "version_disclosed_x_powered_by", "generator_version_disclosed", "robots_sensitive_paths", "security_txt_missing"} {
		if !hasFinding(rep, id) {
			t.Errorf("missing finding %s; have %v", id, findingIDs(rep))
		}
	}
	if got := rep.Result.Metadata.Robots.Sensitive; !slices.Equal(got, []string{"/admin/", "/backup/"}) {
		t.Errorf("robots sensitive = %v", got)
	}
	if !rep.Result.Headers.CORS.Reflected || !rep.Result.Headers.CORS.AllowCredentials {
		t.Errorf("cors %+v", rep.Result.Headers.CORS)
	}
	for i := 1; i < len(rep.Findings); i++ {
		if rep.Findings[i].Severity.Rank() > rep.Findings[i-1].Severity.Rank() {
			t.Fatalf("findings not sorted by severity at %d", i)
		}
	}
}

func TestScanCertificateProblems(t *testing.T) {
	now := time.Now()
	tests := []struct {
		name      string
		cert      certSpec
		tlsGrade  string
		finding   string
		wantGrade string
	}{
		{"expired", certSpec{names: []string{"example.com"}, notBefore: now.Add(-100 * 24 * time.Hour), notAfter: now.Add(-24 * time.Hour)}, "T", "cert_expired", "F"},
		{"self_signed", certSpec{names: []string{"example.com"}, notBefore: now.Add(-time.Hour), notAfter: now.Add(90 * 24 * time.Hour), selfSigned: true}, "T", "cert_self_signed", "F"},
		{"wrong_host", certSpec{names: []string{"other.example.org"}, notBefore: now.Add(-time.Hour), notAfter: now.Add(90 * 24 * time.Hour)}, "M", "cert_hostname_mismatch", "F"},
		{"weak_rsa_1024", certSpec{names: []string{"example.com"}, notBefore: now.Add(-time.Hour), notAfter: now.Add(90 * 24 * time.Hour), rsaBits: 1024}, "B", "cert_weak_key", "B"},
		{"sha1_signature", certSpec{names: []string{"example.com"}, notBefore: now.Add(-time.Hour), notAfter: now.Add(90 * 24 * time.Hour), sigAlg: x509.ECDSAWithSHA1}, "T", "cert_weak_signature", "F"},
		{"missing_intermediate", certSpec{names: []string{"example.com"}, notBefore: now.Add(-time.Hour), notAfter: now.Add(90 * 24 * time.Hour), intermediate: true}, "T", "cert_untrusted", "F"},
		{"expiring_soon", certSpec{names: []string{"example.com"}, notBefore: now.Add(-time.Hour), notAfter: now.Add(10 * 24 * time.Hour)}, "A-", "cert_expiring_soon", "A-"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t, fixtureOpts{httpsH: goodSite(), cert: tt.cert})
			rep := f.scan(t, "https://example.com/", nil)
			if got := rep.Result.TLS.Grade; got != tt.tlsGrade {
				t.Errorf("tls grade = %s, want %s; caps %+v", got, tt.tlsGrade, rep.Result.TLS.Caps)
			}
			if !hasFinding(rep, tt.finding) {
				t.Errorf("missing %s; have %v", tt.finding, findingIDs(rep))
			}
			if tt.name == "missing_intermediate" {
				for _, f := range rep.Findings {
					if f.ID == "cert_untrusted" && !strings.Contains(f.Detail, "intermediate certificate is missing") {
						t.Errorf("detail %q does not point at the missing intermediate", f.Detail)
					}
				}
			}
			if rep.Result.Grade != tt.wantGrade {
				t.Errorf("grade = %s, want %s; reasons %+v", rep.Result.Grade, tt.wantGrade, rep.Result.Reasons)
			}
			// The TLS cap is listed among the reasons; when the header grade
			// was better, it is the one applied.
			found := false
			for _, r := range rep.Result.Reasons {
				if r.Source == "tls" && r.Grade == tt.tlsGrade {
					found = true
					if tt.wantGrade == tt.tlsGrade && !r.Applied {
						t.Errorf("cap %+v not marked applied", r)
					}
				}
			}
			if !found {
				t.Errorf("no tls reason with grade %s: %+v", tt.tlsGrade, rep.Result.Reasons)
			}
		})
	}
}

func TestScanIntermediateChain(t *testing.T) {
	spec := goodCertSpec()
	spec.intermediate, spec.sendChain = true, true
	f := newFixture(t, fixtureOpts{httpsH: goodSite(), cert: spec})
	rep := f.scan(t, "https://example.com/", nil)
	c := rep.Result.TLS.Certificate
	if c == nil || !c.Trusted || c.ChainLength != 2 || c.Chain[1] != "CN=Warden Test Intermediate" {
		t.Fatalf("certificate %+v", c)
	}
	if rep.Result.Grade != "A+" {
		t.Errorf("grade %s", rep.Result.Grade)
	}
}

func TestScanLegacyTLS(t *testing.T) {
	f := newFixture(t, fixtureOpts{httpsH: goodSite(),
		cert: certSpec{names: []string{"example.com"}, notBefore: time.Now().Add(-time.Hour), notAfter: time.Now().Add(90 * 24 * time.Hour), rsaBits: 1024},
		tlsCfg: func(c *tls.Config) {
			c.MinVersion, c.MaxVersion = tls.VersionTLS10, tls.VersionTLS12
			c.CipherSuites = []uint16{tls.TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256, tls.TLS_RSA_WITH_AES_128_CBC_SHA, tls.TLS_RSA_WITH_3DES_EDE_CBC_SHA, tls.TLS_ECDHE_RSA_WITH_3DES_EDE_CBC_SHA}
		}})
	rep := f.scan(t, "https://example.com/", nil)
	tr := rep.Result.TLS
	var offered []string
	for _, p := range tr.Protocols {
		if p.Offered {
			offered = append(offered, p.Version)
		}
	}
	if diff := cmp.Diff([]string{"TLS 1.0", "TLS 1.1", "TLS 1.2"}, offered); diff != "" {
		t.Errorf("offered (-want +got):\n%s", diff)
	}
	var suites []string
	for _, c := range tr.CipherSuites {
		suites = append(suites, c.Name)
	}
	slices.Sort(suites)
	wantSuites := []string{"TLS_ECDHE_RSA_WITH_3DES_EDE_CBC_SHA", "TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256", "TLS_RSA_WITH_3DES_EDE_CBC_SHA", "TLS_RSA_WITH_AES_128_CBC_SHA"}
	if diff := cmp.Diff(wantSuites, suites); diff != "" {
		t.Errorf("suites (-want +got):\n%s", diff)
	}
	if tr.Grade != "C" {
		t.Errorf("tls grade = %s, want C; caps %+v", tr.Grade, tr.Caps)
	}
	for _, id := range []string{"tls_legacy_protocols", "tls13_missing", "tls_weak_ciphers", "tls_no_forward_secrecy_suites", "cert_weak_key"} {
		if !hasFinding(rep, id) {
			t.Errorf("missing %s; have %v", id, findingIDs(rep))
		}
	}
	if rep.Result.Grade != "C" {
		t.Errorf("grade = %s, want C", rep.Result.Grade)
	}
}

func TestScanExposure(t *testing.T) {
	secretHook := func(_ context.Context, text string) []SecretFinding {
		if strings.Contains(text, "hunter2") {
			return []SecretFinding{{Type: "password_assignment", Fingerprint: "sha256:1f2e3d4c", Line: 3}}
		}
		return nil
	}
	t.Run("exposed_files_behind_soft_404", func(t *testing.T) {
		site := softNotFound(map[string]string{"/.git/config": gitConfig, "/.env": envFile, "/": goodPage},
			map[string]string{"/": "text/html"})
		f := newFixture(t, fixtureOpts{httpsH: site})
		rep := f.scan(t, "https://example.com/", func(o *Options) { o.SecretScan = secretHook })
		var got []string
		for _, e := range rep.Result.Exposure.Exposed {
			got = append(got, e.Path+" "+e.Kind)
		}
		slices.Sort(got)
		if diff := cmp.Diff([]string{"/.env env_file", "/.git/config git_config"}, got); diff != "" {
			t.Errorf("exposed (-want +got):\n%s", diff)
		}
		if rep.Result.Grade != "D" {
			t.Errorf("grade = %s, want D (capped by the high-severity .env)", rep.Result.Grade)
		}
		b, _ := json.Marshal(rep)
		for _, secret := range []string{"hunter2", "ghp_s3cretT0kenValue", "c2VjcmV0LWFwcC1rZXktdmFsdWU"} {
			if strings.Contains(string(b), secret) {
				t.Errorf("report leaks %q", secret)
			}
		}
		var env Finding
		for _, f := range rep.Findings {
			if f.ID == "exposed_env_file" {
				env = f
			}
		}
		if !strings.Contains(env.Evidence, "DB_PASSWORD=***") || !strings.Contains(env.Evidence, "password_assignment sha256:1f2e3d4c") {
			t.Errorf("env evidence = %q", env.Evidence)
		}
		for _, b := range rep.Result.Exposure.Baseline {
			if b.StatusCode != 200 {
				t.Errorf("baseline %+v, want the soft-404 200", b)
			}
		}
	})
	t.Run("catch_all_same_content_is_suppressed", func(t *testing.T) {
		site := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/plain")
			w.Write([]byte(envFile))
		})
		f := newFixture(t, fixtureOpts{httpsH: site})
		rep := f.scan(t, "https://example.com/", nil)
		if n := len(rep.Result.Exposure.Exposed); n != 0 {
			t.Errorf("exposed = %+v, want none", rep.Result.Exposure.Exposed)
		}
		if !slices.Contains(rep.Result.Exposure.Suppressed, "/.env") {
			t.Errorf("suppressed = %v, want /.env", rep.Result.Exposure.Suppressed)
		}
	})
	t.Run("html_page_quoting_git_config", func(t *testing.T) {
		blog := "<html><body><pre>[core]\n\trepositoryformatversion = 0\n</pre></body></html>"
		site := softNotFound(map[string]string{"/.git/config": blog}, map[string]string{"/.git/config": "text/html"})
		f := newFixture(t, fixtureOpts{httpsH: site})
		rep := f.scan(t, "https://example.com/", nil)
		if n := len(rep.Result.Exposure.Exposed); n != 0 {
			t.Errorf("exposed = %+v, want none", rep.Result.Exposure.Exposed)
		}
	})
	t.Run("binary_artefacts_by_magic", func(t *testing.T) {
		files := map[string]string{
			"/backup.zip":         "PK\x03\x04\x14\x00\x00\x00rest-of-zip",
			"/.DS_Store":          "\x00\x00\x00\x01Bud1\x00\x00\x10\x00",
			"/actuator/heapdump":  "JAVA PROFILE 1.0.2\x00\x00\x00\x00\x04",
			"/example.com.tar.gz": "\x1f\x8b\x08\x00\x00\x00\x00\x00",
			"/server-status":      "<html><title>Apache Status</title><h1>Apache Server Status for example.com</h1><dl><dt>Server Version: Apache/2.4.41</dt>",
			"/.aws/credentials":   "[default]\naws_access_key_id = AKIAIOSFODNN7EXAMPLE\naws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY\n",
			"/id_rsa":             "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAA\n-----END OPENSSH PRIVATE KEY-----\n",
			"/backup.zip.fake":    "not probed",
		}
		types := map[string]string{"/backup.zip": "application/zip", "/.DS_Store": "application/octet-stream", "/actuator/heapdump": "application/octet-stream",
			"/example.com.tar.gz": "application/gzip", "/server-status": "text/html"}
		f := newFixture(t, fixtureOpts{httpsH: softNotFound(files, types)})
		rep := f.scan(t, "https://example.com/", nil)
		var got []string
		for _, e := range rep.Result.Exposure.Exposed {
			got = append(got, e.Kind)
		}
		slices.Sort(got)
		want := []string{"aws_credentials", "backup_archive", "backup_archive", "ds_store", "private_key", "server_status", "spring_heapdump"}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("kinds (-want +got):\n%s", diff)
		}
		if rep.Result.Grade != "F" {
			t.Errorf("grade = %s, want F (critical exposure)", rep.Result.Grade)
		}
		b, _ := json.Marshal(rep)
		if strings.Contains(string(b), "wJalrXUtnFEMI") || strings.Contains(string(b), "b3BlbnNzaC1rZXkt") {
			t.Error("report leaks key material")
		}
	})
}

func TestScanRedirects(t *testing.T) {
	t.Run("chain_through_www_on_http", func(t *testing.T) {
		httpH := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.Host == "example.com" {
				http.Redirect(w, r, "http://www.example.com/", http.StatusMovedPermanently)
				return
			}
			http.Redirect(w, r, "https://www.example.com/", http.StatusFound)
		})
		f := newFixture(t, fixtureOpts{httpH: httpH, httpsH: goodSite()})
		rep := f.scan(t, "http://example.com/", nil)
		want := []Hop{
			{URL: "http://example.com/", StatusCode: 301, Location: "http://www.example.com/"},
			{URL: "http://www.example.com/", StatusCode: 302, Location: "https://www.example.com/"},
			{URL: "https://www.example.com/", StatusCode: 200},
		}
		if diff := cmp.Diff(want, rep.Result.Redirects.HTTP.Hops); diff != "" {
			t.Errorf("hops (-want +got):\n%s", diff)
		}
		if got := testResults(rep)["redirection"]; got != "redirection-not-to-https-on-initial-redirection" {
			t.Errorf("redirection = %s", got)
		}
		if !hasFinding(rep, "https_redirect_not_first") {
			t.Errorf("findings %v", findingIDs(rep))
		}
	})
	t.Run("loop_stops_at_limit", func(t *testing.T) {
		n := 0
		loop := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			n++
			http.Redirect(w, r, "/next", http.StatusFound)
		})
		f := newFixture(t, fixtureOpts{httpH: loop, httpsH: goodSite()})
		rep := f.scan(t, "https://example.com/", nil)
		ch := rep.Result.Redirects.HTTP
		if ch.Error != "redirect_limit" || len(ch.Hops) != 11 {
			t.Errorf("chain %+v, want redirect_limit after 11 hops", ch)
		}
		if n != 11 {
			t.Errorf("requests to the loop = %d, want 11", n)
		}
	})
	t.Run("explicit_port_scans_one_scheme", func(t *testing.T) {
		f := newFixture(t, fixtureOpts{httpsH: goodSite()})
		rep := f.scan(t, "https://EXAMPLE.com:8443/#frag", nil)
		if rep.Target != "https://example.com:8443/" {
			t.Errorf("target %s", rep.Target)
		}
		if rep.Result.Redirects.HTTP.Tested || testResults(rep)["redirection"] != "redirection-not-tested" {
			t.Errorf("http session %+v", rep.Result.Redirects.HTTP)
		}
		if rep.Result.TLS.Address != "example.com:8443" || rep.Result.Exposure.Origin != "https://example.com:8443/" {
			t.Errorf("tls %s exposure %s", rep.Result.TLS.Address, rep.Result.Exposure.Origin)
		}
	})
	t.Run("error_page_and_preload_directive", func(t *testing.T) {
		site := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Strict-Transport-Security", "max-age=15552000; preload")
			http.Error(w, "down for maintenance", http.StatusServiceUnavailable)
		})
		f := newFixture(t, fixtureOpts{httpsH: site})
		rep := f.scan(t, "https://example.com/", nil)
		for _, id := range []string{"page_status_unexpected", "hsts_preload_ineligible"} {
			if !hasFinding(rep, id) {
				t.Errorf("missing %s in %v", id, findingIDs(rep))
			}
		}
	})
	t.Run("explicit_http_port_is_capped", func(t *testing.T) {
		f := newFixture(t, fixtureOpts{httpH: goodSite(), noHTTPS: true})
		rep := f.scan(t, "http://example.com:8080/", nil)
		if rep.Result.Redirects.HTTPS.Tested || rep.Result.TLS.Error != "not_https" || rep.Result.Grade != "F" {
			t.Errorf("https %+v tls %q grade %s", rep.Result.Redirects.HTTPS, rep.Result.TLS.Error, rep.Result.Grade)
		}
	})
	t.Run("https_only_site", func(t *testing.T) {
		f := newFixture(t, fixtureOpts{httpsH: goodSite(), noHTTP: true})
		rep := f.scan(t, "https://example.com/", nil)
		if got := testResults(rep)["redirection"]; got != "redirection-not-needed-no-http" {
			t.Errorf("redirection = %s", got)
		}
		if rep.Result.Grade != "A+" || rep.Result.Redirects.HTTP.Error != "fetch_failed" {
			t.Errorf("grade %s, http chain %+v", rep.Result.Grade, rep.Result.Redirects.HTTP)
		}
	})
	t.Run("http_only_site", func(t *testing.T) {
		f := newFixture(t, fixtureOpts{httpH: goodSite(), noHTTPS: true})
		rep := f.scan(t, "http://example.com/", nil)
		if rep.Result.Grade != "F" || !hasFinding(rep, "https_redirect_missing") || !hasFinding(rep, "tls_unavailable") {
			t.Errorf("grade %s findings %v", rep.Result.Grade, findingIDs(rep))
		}
		if got := testResults(rep)["strict-transport-security"]; got != "hsts-not-implemented-no-https" {
			t.Errorf("hsts = %s", got)
		}
	})
}

func TestScanErrors(t *testing.T) {
	f := newFixture(t, fixtureOpts{httpsH: goodSite()})
	tests := []struct {
		name, url, code string
		opts            func(*Options)
	}{
		{"too_long", "https://example.com/" + strings.Repeat("a", 3000), CodeURLTooLong, nil},
		{"bad_scheme", "ftp://example.com/", CodeInvalidScheme, nil},
		{"bare_host", "example.com", CodeInvalidScheme, nil},
		{"credentials", "https://user:pw@example.com/", CodeCredentialsInURL, nil},
		{"empty_userinfo", "https://@example.com/", CodeCredentialsInURL, nil},
		{"no_host", "https:///path", CodeInvalidTarget, nil},
		{"bad_url", "http://exa mple.com/", CodeInvalidTarget, nil},
		{"zone", "http://[fe80::1%25lo]/", CodeInvalidTarget, nil},
		{"not_configured", "https://example.com/", CodeNotConfigured, func(o *Options) { o.HTTP = nil }},
		{"unreachable", "https://www.example.org/", CodeSiteUnreachable, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o := f.options()
			if tt.opts != nil {
				tt.opts(&o)
			}
			_, err := New(o).Scan(context.Background(), tt.url)
			if errcode.CodeOf(err) != tt.code {
				t.Fatalf("err = %v, want code %s", err, tt.code)
			}
			if !errors.Is(err, errcode.New(tt.code, "")) {
				t.Errorf("errors.Is does not match the code")
			}
		})
	}
	t.Run("canceled", func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		_, err := New(f.options()).Scan(ctx, "https://example.com/")
		if code := errcode.CodeOf(err); code != CodeScanCanceled && code != CodeSiteUnreachable {
			t.Fatalf("err = %v", err)
		}
	})
}

func TestScanWithoutDialer(t *testing.T) {
	f := newFixture(t, fixtureOpts{httpsH: goodSite()})
	rep := f.scan(t, "https://example.com/", func(o *Options) { o.Dial = nil })
	if rep.Result.TLS.Tested || rep.Result.TLS.Error != "no_dialer" || rep.Result.TLS.Grade != "" || len(rep.Result.TLS.Caps) != 0 {
		t.Errorf("tls %+v, want not tested", rep.Result.TLS)
	}
	if rep.Result.Grade != "A" || !slices.Contains(rep.Result.TLS.NotTested, "heartbleed") {
		t.Errorf("grade %s, not_tested %v", rep.Result.Grade, rep.Result.TLS.NotTested)
	}
}

func TestScanLegacyOnlySuites(t *testing.T) {
	f := newFixture(t, fixtureOpts{httpsH: goodSite(),
		cert: certSpec{names: []string{"example.com"}, notBefore: time.Now().Add(-time.Hour), notAfter: time.Now().Add(90 * 24 * time.Hour), rsaBits: 1024},
		tlsCfg: func(c *tls.Config) {
			c.MaxVersion = tls.VersionTLS12
			c.CipherSuites = []uint16{tls.TLS_RSA_WITH_3DES_EDE_CBC_SHA}
			c.CurvePreferences = []tls.CurveID{tls.CurveP256}
		}})
	rep := f.scan(t, "https://example.com/", nil)
	tr := rep.Result.TLS
	if tr.Certificate == nil || tr.NegotiatedCipher != "TLS_RSA_WITH_3DES_EDE_CBC_SHA" {
		t.Fatalf("certificate not read from a 3DES-only server: %+v", tr)
	}
	if len(tr.CipherSuites) != 1 || tr.CipherSuites[0].Weak != "64bit_block_cipher" {
		t.Errorf("suites %+v", tr.CipherSuites)
	}
	if tr.Grade != "C" {
		t.Errorf("tls grade %s, want C; caps %+v", tr.Grade, tr.Caps)
	}
	// RSA key exchange uses no group, so no group probe succeeds.
	if len(tr.Groups) != 0 {
		t.Errorf("groups %v, want none for an RSA-key-exchange-only server", tr.Groups)
	}
}

func TestScanSecurityTxt(t *testing.T) {
	tests := []struct {
		name     string
		files    map[string]string
		types    map[string]string
		expired  bool
		problems []string
		finding  string
	}{
		{"expired_at_fallback_path", map[string]string{"/security.txt": "Contact: mailto:a@example.com\nExpires: 2020-01-01T00:00:00Z\n"}, nil,
			true, []string{"not_in_well_known"}, "security_txt_expired"},
		{"too_far_and_no_contact", map[string]string{"/.well-known/security.txt": "Expires: 2099-01-01T00:00:00Z\n"}, nil,
			false, []string{"missing_contact", "expires_too_far"}, "security_txt_invalid"},
		{"html_is_not_security_txt", map[string]string{}, nil, false, nil, "security_txt_missing"},
		{"canonical_elsewhere_and_wrong_type", map[string]string{"/.well-known/security.txt": "Contact: mailto:a@example.com\n" +
			"Expires: " + time.Now().AddDate(0, 6, 0).UTC().Format(time.RFC3339) + "\nCanonical: https://example.org/.well-known/security.txt\n"},
			map[string]string{"/.well-known/security.txt": "application/octet-stream"},
			false, []string{"canonical_mismatch", "content_type"}, "security_txt_invalid"},
		{"canonical_here", map[string]string{"/.well-known/security.txt": "Contact: mailto:a@example.com\n" +
			"Expires: " + time.Now().AddDate(0, 6, 0).UTC().Format(time.RFC3339) + "\nCanonical: https://example.org/a\nCanonical: https://example.com/.well-known/security.txt\n"},
			map[string]string{"/.well-known/security.txt": "text/plain; charset=utf-8"},
			false, nil, "security_txt_present"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t, fixtureOpts{httpsH: softNotFound(tt.files, tt.types)})
			rep := f.scan(t, "https://example.com/", nil)
			st := rep.Result.Metadata.SecurityTxt
			if st.Expired != tt.expired {
				t.Errorf("expired = %v", st.Expired)
			}
			if diff := cmp.Diff(tt.problems, st.Problems); diff != "" {
				t.Errorf("problems (-want +got):\n%s", diff)
			}
			if tt.finding == "security_txt_present" {
				for _, id := range findingIDs(rep) {
					if strings.HasPrefix(id, "security_txt_") {
						t.Errorf("finding %s for a valid file", id)
					}
				}
			} else if !hasFinding(rep, tt.finding) {
				t.Errorf("missing %s in %v", tt.finding, findingIDs(rep))
			}
		})
	}
}

// TestFindingsGolden snapshots the findings and test results of two fixture
// sites, so that any scoring change is deliberate (refresh with -update).
func TestFindingsGolden(t *testing.T) {
	sites := []struct {
		name string
		opts fixtureOpts
	}{
		{"bad_headers", fixtureOpts{httpH: badHeadersSite(), httpsH: badHeadersSite()}},
		{"good", fixtureOpts{httpsH: goodSite()}},
	}
	for _, s := range sites {
		t.Run(s.name, func(t *testing.T) {
			rep := newFixture(t, s.opts).scan(t, "https://example.com/", nil)
			var b strings.Builder
			fmt.Fprintf(&b, "grade %s score %d tls %s\n", rep.Result.Grade, rep.Result.Score, rep.Result.TLS.Grade)
			for _, r := range rep.Result.Reasons {
				fmt.Fprintf(&b, "reason %s %s applied=%v %s\n", r.Source, r.Grade, r.Applied, r.Reason)
			}
			for _, x := range rep.Result.Headers.Tests {
				fmt.Fprintf(&b, "test %s %s %+d\n", x.Name, x.Result, x.Modifier)
			}
			for _, f := range rep.Findings {
				ev := strings.ReplaceAll(f.Evidence, rep.Result.Headers.CORS.ProbeOrigin, "<probe-origin>")
				fmt.Fprintf(&b, "finding %s %s %s | %s\n", f.Severity, f.Category, f.ID, ev)
			}
			golden := filepath.Join("testdata", s.name+".golden")
			if *update {
				if err := os.WriteFile(golden, []byte(b.String()), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(string(want), b.String()); diff != "" {
				t.Errorf("%s (-want +got):\n%s", golden, diff)
			}
		})
	}
}
