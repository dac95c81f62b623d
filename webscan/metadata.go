package webscan

import (
	"bufio"
	"bytes"
	"context"
	"mime"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"time"
)

// bannerHeaders are the response headers that commonly disclose software.
var bannerHeaders = []string{"Server", "X-Powered-By", "X-AspNet-Version", "X-AspNetMvc-Version", "X-Generator", "Via"}

// reVersion finds a version number such as 2.4.41 or 8.1.
var reVersion = lazyRegexp(`\d+\.\d+(\.\d+)*`)

// discloseVersion reports whether a banner names a software version.
func discloseVersion(v string) bool { return reVersion().MatchString(v) }

// SecurityTxtFile is a parsed RFC 9116 security.txt.
type SecurityTxtFile struct {
	Contact  []string
	Expires  time.Time
	Signed   bool
	Problems []string
	// The optional fields of RFC 9116 §2.5 (and CSAF, registered since),
	// each at most maxSecurityTxtValues values.
	Acknowledgments    []string
	Canonical          []string
	Encryption         []string
	Hiring             []string
	Policy             []string
	PreferredLanguages []string
	CSAF               []string
}

// maxSecurityTxtValues bounds the values kept per field.
const maxSecurityTxtValues = 10

// ParseSecurityTxt parses an RFC 9116 file. Problems lists violations as
// short codes, each once, in the order first met:
//
//   - missing_contact, missing_expires, multiple_expires, invalid_expires;
//   - contact_not_uri: a Contact that is not a URI (an e-mail address
//     without mailto:, say), §2.5.3;
//   - insecure_uri: a web URI in any field that is not https, §2.5;
//   - multiple_preferred_languages: Preferred-Languages more than once,
//     §2.5.8;
//   - invalid_line: a line that is neither a comment nor "Field: value",
//     §4 (the ABNF).
//
// The text of a PGP cleartext signature is parsed too.
func ParseSecurityTxt(body []byte) SecurityTxtFile {
	var f SecurityTxtFile
	if len(body) > 32<<10 {
		body = body[:32<<10]
	}
	f.Signed = bytes.HasPrefix(bytes.TrimSpace(body), []byte("-----BEGIN PGP SIGNED MESSAGE-----"))
	problem := func(code string) {
		if !slices.Contains(f.Problems, code) {
			f.Problems = append(f.Problems, code)
		}
	}
	keep := func(list *[]string, v string, uri bool) {
		if uri && insecureWebURI(v) {
			problem("insecure_uri")
		}
		if len(*list) < maxSecurityTxtValues {
			*list = append(*list, truncate(v, 200))
		}
	}
	expires, languages := 0, 0
	sc := bufio.NewScanner(bytes.NewReader(body))
	sc.Buffer(make([]byte, 4096), 32<<10)
	header := f.Signed // the cleartext signature's armour headers ("Hash: SHA256")
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if header {
			header = line != "" // the headers end at the first empty line
			continue
		}
		if line == "" || strings.HasPrefix(line, "#") || strings.HasPrefix(line, "-----BEGIN PGP SIGNED MESSAGE") {
			continue
		}
		if strings.HasPrefix(line, "-----BEGIN PGP SIGNATURE") {
			break
		}
		k, v, ok := strings.Cut(line, ":")
		if !ok || strings.TrimSpace(k) == "" || strings.ContainsAny(k, " \t") {
			problem("invalid_line")
			continue
		}
		v = strings.TrimSpace(v)
		switch strings.ToLower(k) {
		case "contact":
			if !isURI(v) {
				problem("contact_not_uri")
			}
			keep(&f.Contact, v, true)
		case "expires":
			expires++
			t, err := time.Parse(time.RFC3339, v)
			if err != nil {
				problem("invalid_expires")
				continue
			}
			f.Expires = t
		case "acknowledgments", "acknowledgements":
			keep(&f.Acknowledgments, v, true)
		case "canonical":
			keep(&f.Canonical, v, true)
		case "encryption":
			keep(&f.Encryption, v, true)
		case "hiring":
			keep(&f.Hiring, v, true)
		case "policy":
			keep(&f.Policy, v, true)
		case "csaf":
			keep(&f.CSAF, v, true)
		case "preferred-languages":
			languages++
			for tag := range strings.SplitSeq(v, ",") {
				if tag = strings.TrimSpace(tag); tag != "" {
					keep(&f.PreferredLanguages, tag, false)
				}
			}
		}
	}
	if len(f.Contact) == 0 {
		problem("missing_contact")
	}
	if expires == 0 {
		problem("missing_expires")
	}
	if expires > 1 {
		problem("multiple_expires")
	}
	if languages > 1 {
		problem("multiple_preferred_languages")
	}
	return f
}

// isURI reports whether v has a URI scheme (RFC 3986 §3.1) and something
// after it: mailto:, tel:, https: and the like.
func isURI(v string) bool {
	scheme, rest, ok := strings.Cut(v, ":")
	if !ok || scheme == "" || rest == "" || !isAlpha(scheme[0]) {
		return false
	}
	for i := 1; i < len(scheme); i++ {
		c := scheme[i]
		if !isAlpha(c) && (c < '0' || c > '9') && c != '+' && c != '-' && c != '.' {
			return false
		}
	}
	return true
}

func isAlpha(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }

// insecureWebURI reports a web URI that is not https (RFC 9116 §2.5: a
// web URI MUST begin with "https://").
func insecureWebURI(v string) bool {
	return len(v) >= 5 && strings.EqualFold(v[:5], "http:")
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
			st = SecurityTxt{Present: true, URL: u.String(), Contact: f.Contact, Expires: f.Expires, Signed: f.Signed, Problems: f.Problems,
				Acknowledgments: f.Acknowledgments, Canonical: f.Canonical, Encryption: f.Encryption, Hiring: f.Hiring,
				Policy: f.Policy, PreferredLanguages: f.PreferredLanguages, CSAF: f.CSAF}
			if len(f.Canonical) > 0 && !slices.Contains(f.Canonical, u.String()) {
				// §2.5.2: the URIs the file is meant to be served from; one
				// served elsewhere may be a copy an attacker placed.
				st.Problems = append(st.Problems, "canonical_mismatch")
			}
			if mt, params, err := mime.ParseMediaType(r.Header.Get("Content-Type")); err != nil || mt != "text/plain" ||
				(params["charset"] != "" && !strings.EqualFold(params["charset"], "utf-8")) {
				// §3: "text/plain" with charset utf-8 (a missing charset
				// is tolerated, as most servers omit it).
				st.Problems = append(st.Problems, "content_type")
			}
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
