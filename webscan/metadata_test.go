package webscan

import (
	"os"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func TestParseSecurityTxt(t *testing.T) {
	signed, err := os.ReadFile("testdata/security.txt")
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		in   string
		want SecurityTxtFile
	}{
		{"signed", string(signed), SecurityTxtFile{Contact: []string{"mailto:security@example.com", "https://example.com/security"},
			Expires: time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC), Signed: true,
			Encryption: []string{"https://example.com/pgp.asc"}, PreferredLanguages: []string{"en", "fr"},
			Canonical: []string{"https://example.com/.well-known/security.txt"}}},
		{"missing_fields", "Policy: https://example.com/policy\n", SecurityTxtFile{Policy: []string{"https://example.com/policy"},
			Problems: []string{"missing_contact", "missing_expires"}}},
		{"bad_expires", "Contact: mailto:a@b.c\nExpires: next year\n", SecurityTxtFile{Contact: []string{"mailto:a@b.c"}, Problems: []string{"invalid_expires"}}},
		{"two_expires", "Contact: tel:+1-201-555-0123\nExpires: 2030-01-01T00:00:00Z\nexpires: 2031-01-01T00:00:00Z\n", SecurityTxtFile{Contact: []string{"tel:+1-201-555-0123"},
			Expires: time.Date(2031, 1, 1, 0, 0, 0, 0, time.UTC), Problems: []string{"multiple_expires"}}},
		{"every_field", "Contact: mailto:s@example.com\nExpires: 2030-01-01T00:00:00Z\nAcknowledgments: https://example.com/hall\n" +
			"Hiring: https://example.com/jobs\nPolicy: https://example.com/policy\nCSAF: https://example.com/.well-known/csaf/provider-metadata.json\n" +
			"Preferred-Languages: en\nX-Custom: kept out\n",
			SecurityTxtFile{Contact: []string{"mailto:s@example.com"}, Expires: time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC),
				Acknowledgments: []string{"https://example.com/hall"}, Hiring: []string{"https://example.com/jobs"},
				Policy: []string{"https://example.com/policy"}, CSAF: []string{"https://example.com/.well-known/csaf/provider-metadata.json"},
				PreferredLanguages: []string{"en"}}},
		{"rfc_violations", "Contact: security@example.com\nContact: http://example.com/report\nEncryption: http://example.com/key\n" +
			"Expires: 2030-01-01T00:00:00Z\nPreferred-Languages: en\nPreferred-Languages: de\nthis is not a field\nContact : mailto:a@b.c\n",
			SecurityTxtFile{Contact: []string{"security@example.com", "http://example.com/report"}, Expires: time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC),
				Encryption: []string{"http://example.com/key"}, PreferredLanguages: []string{"en", "de"},
				Problems: []string{"contact_not_uri", "insecure_uri", "invalid_line", "multiple_preferred_languages"}}},
		{"crlf_and_comments", "# hi\r\nContact: mailto:a@b.c\r\nExpires: 2030-01-01T00:00:00Z\r\n", SecurityTxtFile{Contact: []string{"mailto:a@b.c"}, Expires: time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, ParseSecurityTxt([]byte(tt.in))); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

func TestParseRobots(t *testing.T) {
	body, err := os.ReadFile("testdata/robots.txt")
	if err != nil {
		t.Fatal(err)
	}
	n, sens := ParseRobots(body)
	if n != 5 {
		t.Errorf("entries = %d, want 5", n)
	}
	if diff := cmp.Diff([]string{"/admin/", "/wp-admin/", "/backup.sql"}, sens); diff != "" {
		t.Errorf("sensitive (-want +got):\n%s", diff)
	}
}

func TestDiscloseVersion(t *testing.T) {
	for v, want := range map[string]bool{"Apache/2.4.41 (Ubuntu)": true, "nginx": false, "PHP/8.1": true, "cloudflare": false, "Microsoft-IIS/10.0": true} {
		if got := discloseVersion(v); got != want {
			t.Errorf("%q: %v", v, got)
		}
	}
}

func TestMetadataFindings(t *testing.T) {
	a := &analysis{}
	f := a.metadataFindings(MetadataResult{
		Banners:     map[string]string{"Server": "nginx/1.18.0", "Via": "varnish"},
		Generator:   "Drupal 10",
		SecurityTxt: SecurityTxt{Present: true, Expired: true, Expires: time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC), Problems: []string{"not_in_well_known"}},
	})
	var ids []string
	for _, x := range f {
		ids = append(ids, x.ID)
	}
	want := []string{"version_disclosed_server", "security_txt_expired", "security_txt_invalid"}
	if diff := cmp.Diff(want, ids); diff != "" {
		t.Errorf("ids (-want +got):\n%s", diff)
	}
	if strings.Contains(f[0].Evidence, "varnish") {
		t.Error("Via without a version reported")
	}
}
