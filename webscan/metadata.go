package webscan

import (
	"bufio"
	"bytes"
	"context"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"sync"
	"time"
)

// bannerHeaders are the response headers that commonly disclose software.
var bannerHeaders = []string{"Server", "X-Powered-By", "X-AspNet-Version", "X-AspNetMvc-Version", "X-Generator", "Via"}

// reVersion finds a version number such as 2.4.41 or 8.1.
var reVersion = regexp.MustCompile(`\d+\.\d+(\.\d+)*`)

// discloseVersion reports whether a banner names a software version.
func discloseVersion(v string) bool { return reVersion.MatchString(v) }

// SecurityTxtFile is a parsed RFC 9116 security.txt.
type SecurityTxtFile struct {
	Contact  []string
	Expires  time.Time
	Signed   bool
	Problems []string
}

// ParseSecurityTxt parses an RFC 9116 file. Problems lists violations as
// short codes: missing_contact, missing_expires, multiple_expires,
// invalid_expires. The text of a PGP cleartext signature is parsed too.
func ParseSecurityTxt(body []byte) SecurityTxtFile {
	var f SecurityTxtFile
	if len(body) > 32<<10 {
		body = body[:32<<10]
	}
	f.Signed = bytes.HasPrefix(bytes.TrimSpace(body), []byte("-----BEGIN PGP SIGNED MESSAGE-----"))
	expires := 0
	sc := bufio.NewScanner(bytes.NewReader(body))
	sc.Buffer(make([]byte, 4096), 32<<10)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		if strings.HasPrefix(line, "-----BEGIN PGP SIGNATURE") {
			break
		}
		k, v, ok := strings.Cut(line, ":")
		if !ok {
			continue
		}
		v = strings.TrimSpace(v)
		switch strings.ToLower(strings.TrimSpace(k)) {
		case "contact":
			if len(f.Contact) < 10 {
				f.Contact = append(f.Contact, truncate(v, 200))
			}
		case "expires":
			expires++
			t, err := time.Parse(time.RFC3339, v)
			if err != nil {
				f.Problems = append(f.Problems, "invalid_expires")
				continue
			}
			f.Expires = t
		}
	}
	if len(f.Contact) == 0 {
		f.Problems = append(f.Problems, "missing_contact")
	}
	if expires == 0 {
		f.Problems = append(f.Problems, "missing_expires")
	}
	if expires > 1 {
		f.Problems = append(f.Problems, "multiple_expires")
	}
	return f
}

// sensitiveRobotWords mark robots.txt paths that point at something worth
// hiding (and so worth finding).
var sensitiveRobotWords = []string{
	"admin", "backup", "config", ".git", "private", "secret", "internal", "staging",
	"phpmyadmin", "dump", ".env", "sql", "debug", "console", "credentials", "passwd", "db/",
	"database", "old/", "tmp/", "test/", "dev/", "cgi-bin", "wp-admin", "manage",
}

// ParseRobots returns the number of Allow/Disallow entries and those whose
// path contains a sensitive word (at most 20).
func ParseRobots(body []byte) (entries int, sensitive []string) {
	if len(body) > 64<<10 {
		body = body[:64<<10]
	}
	for line := range strings.SplitSeq(string(body), "\n") {
		line, _, _ = strings.Cut(line, "#")
		k, v, ok := strings.Cut(strings.TrimSpace(line), ":")
		if !ok {
			continue
		}
		k = strings.ToLower(strings.TrimSpace(k))
		if k != "disallow" && k != "allow" {
			continue
		}
		v = strings.TrimSpace(v)
		if v == "" {
			continue
		}
		entries++
		l := strings.ToLower(v)
		for _, w := range sensitiveRobotWords {
			if strings.Contains(l, w) {
				if len(sensitive) < 20 {
					sensitive = append(sensitive, truncate(v, 120))
				}
				break
			}
		}
	}
	return entries, sensitive
}

// collectMetadata fetches security.txt and robots.txt from origin.
func (s *Scanner) collectMetadata(ctx context.Context, origin *url.URL) (SecurityTxt, RobotsResult) {
	var st SecurityTxt
	var rb RobotsResult
	var wg sync.WaitGroup
	at := func(p string) *url.URL {
		u := *origin
		u.Path, u.RawPath, u.RawQuery = p, "", ""
		return &u
	}
	plain := func(r *response) bool {
		return r != nil && r.StatusCode == http.StatusOK && !looksHTML(r.Body, r.Header.Get("Content-Type")) && len(r.Body) > 0
	}
	wg.Go(func() {
		for _, p := range []string{"/.well-known/security.txt", "/security.txt"} {
			u := at(p)
			r, err := s.get(ctx, http.MethodGet, u, http.Header{"Accept": {"text/plain"}}, 32<<10)
			if err != nil || !plain(r) {
				continue
			}
			f := ParseSecurityTxt(r.Body)
			if len(f.Contact) == 0 && f.Expires.IsZero() && !bytes.Contains(bytes.ToLower(r.Body), []byte("contact:")) {
				continue // not a security.txt, just some text
			}
			st = SecurityTxt{Present: true, URL: u.String(), Contact: f.Contact, Expires: f.Expires, Signed: f.Signed, Problems: f.Problems}
			now := s.opts.Now()
			switch {
			case f.Expires.IsZero():
			case now.After(f.Expires):
				st.Expired = true
			case f.Expires.After(now.AddDate(1, 0, 1)):
				// RFC 9116 §2.5.5 recommends less than a year ahead.
				st.Problems = append(st.Problems, "expires_too_far")
			}
			if u.Scheme != "https" {
				st.Problems = append(st.Problems, "not_https") // §3: MUST be served over https
			}
			if p == "/security.txt" {
				st.Problems = append(st.Problems, "not_in_well_known")
			}
			return
		}
	})
	wg.Go(func() {
		r, err := s.get(ctx, http.MethodGet, at("/robots.txt"), http.Header{"Accept": {"text/plain"}}, 64<<10)
		if err != nil || !plain(r) {
			return
		}
		rb.Present = true
		rb.Entries, rb.Sensitive = ParseRobots(r.Body)
	})
	wg.Wait()
	return st, rb
}
