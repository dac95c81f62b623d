package webscan

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"sync"
)

// exposureRule is one family of sensitive files. A path is reported only
// when its content matches (magic bytes or structure, never the status code
// alone) and the same matcher does not match the random-path baseline.
type exposureRule struct {
	Kind     string
	Title    string
	Severity Severity
	// Paths are probed relative to the origin; "{host}" is replaced by the
	// host name.
	Paths []string
	// Match inspects the body and Content-Type and returns safe evidence:
	// evidence never contains a secret value.
	Match func(body []byte, contentType string) (evidence string, ok bool)
	// Text marks rules whose content is text, which is passed to the
	// SecretScan hook when confirmed.
	Text           bool
	Recommendation string
}

var (
	reGitCore = lazyRegexp(`(?m)^\s*\[core\]`)
	reGitHead = lazyRegexp(`^(ref: refs/[\w./-]{1,200}|[0-9a-f]{40}|[0-9a-f]{64})$`)
	reEnvLine = lazyRegexp(`(?m)^\s*(?:export\s+)?([A-Z][A-Z0-9_]{1,63})\s*=`)
	// reEnvSecretLine is one NAME=value line that holds a credential: a
	// name ending in URL, DSN, KEY, SECRET, TOKEN, PASSWORD or PASS with a
	// non-empty value, or any value that is a URL with a scheme.
	reEnvSecretLine = lazyRegexp(`(?m)^\s*(?:export\s+)?(?:[A-Z][A-Z0-9_]{0,62}(?:URL|DSN|KEY|SECRET|TOKEN|PASSWORD|PASS)\s*=\s*\S|[A-Z][A-Z0-9_]{1,63}\s*=\s*["']?[a-z][a-z0-9+.-]{1,20}://\S)`)
	reSQL           = lazyRegexp(`(?i)\b(CREATE TABLE|INSERT INTO|DROP TABLE|LOCK TABLES)\b`)
	rePrivateKey    = lazyRegexp(`-----BEGIN ((?:RSA |EC |DSA |OPENSSH |ENCRYPTED )?PRIVATE KEY)-----`)
	reAWSKey        = lazyRegexp(`(?mi)^\s*aws_access_key_id\s*=`)
	reCompose       = lazyRegexp(`(?m)^services:\s*$`)
	reComposeSvc    = lazyRegexp(`(?m)^\s+(image|build):`)
	reHtpasswd      = lazyRegexp(`^[^:\s]{1,64}:(\$apr1\$|\$2[aby]\$|\{SHA\}|\$5\$|\$6\$|[./0-9A-Za-z]{13}$)`)
	reNpmAuth       = lazyRegexp(`(?m)(_authToken|_auth|_password)\s*=`)
	reCrossAll      = lazyRegexp(`allow-access-from\s+domain=["']\*["']`)
	reDockerFrom    = lazyRegexp(`(?m)^FROM\s+\S+`)
	reDockerCmd     = lazyRegexp(`(?m)^(RUN|COPY|ADD|CMD|ENTRYPOINT|WORKDIR|ENV)\s`)
	reURLCreds      = lazyRegexp(`://[^/\s:@]+:[^/\s@]+@`)
)

// looksHTML reports a body or Content-Type that is an HTML page: the usual
// shape of a soft 404.
func looksHTML(body []byte, ct string) bool {
	if isHTML(ct) {
		return true
	}
	head := bytes.ToLower(body[:min(len(body), 1024)])
	return bytes.Contains(head, []byte("<html")) || bytes.Contains(head, []byte("<body")) || bytes.Contains(head, []byte("<!doctype html"))
}

func textRule(f func(body []byte) (string, bool)) func([]byte, string) (string, bool) {
	return func(b []byte, ct string) (string, bool) {
		if looksHTML(b, ct) {
			return "", false
		}
		return f(b)
	}
}

func magicRule(desc string, magics ...string) func([]byte, string) (string, bool) {
	return func(b []byte, ct string) (string, bool) {
		if isHTML(ct) {
			return "", false
		}
		for _, m := range magics {
			if bytes.HasPrefix(b, []byte(m)) {
				return desc + " (magic bytes " + hex.EncodeToString([]byte(m)[:min(len(m), 4)]) + ")", true
			}
		}
		return "", false
	}
}

func containsAll(b []byte, subs ...string) bool {
	for _, s := range subs {
		if !bytes.Contains(b, []byte(s)) {
			return false
		}
	}
	return true
}

// exposureRules is the probe list: about 30 high-value paths.
var exposureRules = []exposureRule{
	{Kind: "git_config", Title: "Git repository configuration", Severity: SeverityMedium, Paths: []string{"/.git/config"}, Text: true,
		Recommendation: "Block access to /.git/ on the web server and deploy without the repository metadata.",
		Match: textRule(func(b []byte) (string, bool) {
			if !reGitCore().Match(b) || !(bytes.Contains(b, []byte("repositoryformatversion")) || bytes.Contains(b, []byte("filemode"))) {
				return "", false
			}
			ev := "[core] section with repositoryformatversion"
			if reURLCreds().Match(b) {
				ev += "; a remote URL embeds credentials (***)"
			}
			return ev, true
		})},
	{Kind: "git_head", Title: "Git HEAD file", Severity: SeverityMedium, Paths: []string{"/.git/HEAD"},
		Recommendation: "Block access to /.git/ on the web server and deploy without the repository metadata.",
		Match: textRule(func(b []byte) (string, bool) {
			s := strings.TrimSpace(string(b))
			if !reGitHead().MatchString(s) {
				return "", false
			}
			return truncate(s, 80), true
		})},
	{Kind: "env_file", Title: "Environment file", Severity: SeverityHigh, Paths: []string{"/.env", "/.env.production"}, Text: true,
		Recommendation: "Remove the .env file from the web root, block dotfiles, and rotate every credential it held.",
		Match: textRule(func(b []byte) (string, bool) {
			m := reEnvLine().FindAllSubmatch(b, 50)
			// Two NAME= lines, or one whose name or value marks a credential
			// (DATABASE_URL=postgres://…, API_KEY=…): a one-line .env is
			// still an exposed secret.
			if len(m) == 0 || len(m) == 1 && !reEnvSecretLine().Match(b) {
				return "", false
			}
			names := make([]string, 0, 5)
			for _, x := range m[:min(len(m), 5)] {
				names = append(names, string(x[1])+"=***")
			}
			return fmt.Sprintf("%d variables: %s", len(m), strings.Join(names, ", ")), true
		})},
	{Kind: "svn_entries", Title: "Subversion metadata", Severity: SeverityMedium, Paths: []string{"/.svn/entries"},
		Recommendation: "Block access to /.svn/ and deploy from an export, not a working copy.",
		Match: textRule(func(b []byte) (string, bool) {
			first, _, _ := bytes.Cut(b, []byte("\n"))
			if bytes.Contains(b, []byte("<wc-entries")) {
				return "XML wc-entries document", true
			}
			if n := strings.TrimSpace(string(first)); n != "" && strings.Trim(n, "0123456789") == "" && bytes.Contains(b, []byte("\ndir\n")) {
				return "svn entries format " + n, true
			}
			return "", false
		})},
	{Kind: "svn_wc_db", Title: "Subversion working-copy database", Severity: SeverityMedium, Paths: []string{"/.svn/wc.db"},
		Recommendation: "Block access to /.svn/ and deploy from an export, not a working copy.",
		Match:          magicRule("SQLite database", "SQLite format 3\x00")},
	{Kind: "ds_store", Title: "macOS .DS_Store file", Severity: SeverityLow, Paths: []string{"/.DS_Store"},
		Recommendation: "Delete .DS_Store files from the web root; they list directory contents.",
		Match:          magicRule("Finder metadata", "\x00\x00\x00\x01Bud1")},
	{Kind: "backup_archive", Title: "Backup archive", Severity: SeverityHigh,
		Paths:          []string{"/backup.zip", "/backup.tar.gz", "/{host}.zip", "/{host}.tar.gz"},
		Recommendation: "Move backups out of the web root and check whether they contain credentials.",
		Match:          magicRule("archive", "PK\x03\x04", "\x1f\x8b\x08", "7z\xbc\xaf\x27\x1c", "Rar!\x1a\x07")},
	{Kind: "sql_dump", Title: "SQL database dump", Severity: SeverityHigh, Paths: []string{"/backup.sql", "/dump.sql"}, Text: true,
		Recommendation: "Remove database dumps from the web root and treat the data as disclosed.",
		Match: textRule(func(b []byte) (string, bool) {
			m := reSQL().FindAll(b, 20)
			if len(m) < 2 && !(len(m) == 1 && (bytes.Contains(b, []byte("-- MySQL dump")) || bytes.Contains(b, []byte("PostgreSQL database dump")))) {
				return "", false
			}
			return fmt.Sprintf("%d SQL statements such as %s", len(m), strings.ToUpper(string(m[0]))), true
		})},
	{Kind: "phpinfo", Title: "phpinfo() page", Severity: SeverityMedium, Paths: []string{"/phpinfo.php"},
		Recommendation: "Delete phpinfo pages: they disclose configuration and environment variables.",
		Match: func(b []byte, _ string) (string, bool) {
			if containsAll(b, "PHP Version", "PHP License") || containsAll(b, "PHP Version", "PHP Extension") {
				return "phpinfo() output", true
			}
			return "", false
		}},
	{Kind: "server_status", Title: "Apache server-status page", Severity: SeverityLow, Paths: []string{"/server-status"},
		Recommendation: "Restrict mod_status to trusted addresses.",
		Match: func(b []byte, _ string) (string, bool) {
			if containsAll(b, "Apache Server Status", "Server Version") {
				return "Apache Server Status page", true
			}
			return "", false
		}},
	{Kind: "spring_actuator_env", Title: "Spring Boot actuator /env", Severity: SeverityMedium, Paths: []string{"/actuator/env"}, Text: true,
		Recommendation: "Do not expose actuator endpoints publicly; restrict management.endpoints.web.exposure.",
		Match: func(b []byte, ct string) (string, bool) {
			if isHTML(ct) || !bytes.HasPrefix(bytes.TrimSpace(b), []byte("{")) || !containsAll(b, `"propertySources"`, `"activeProfiles"`) {
				return "", false
			}
			return "actuator environment JSON with propertySources", true
		}},
	{Kind: "spring_heapdump", Title: "Java heap dump", Severity: SeverityCritical, Paths: []string{"/actuator/heapdump"},
		Recommendation: "Disable the heapdump actuator endpoint; a heap dump contains live secrets and session data.",
		Match:          magicRule("heap dump", "JAVA PROFILE 1.0", "\x1f\x8b\x08")},
	{Kind: "go_pprof", Title: "Go pprof debug endpoint", Severity: SeverityMedium, Paths: []string{"/debug/pprof/"},
		Recommendation: "Serve net/http/pprof only on a private listener.",
		Match: func(b []byte, _ string) (string, bool) {
			if containsAll(b, "Types of profiles available", "goroutine") {
				return "pprof index page", true
			}
			return "", false
		}},
	{Kind: "private_key", Title: "Private key", Severity: SeverityCritical, Paths: []string{"/id_rsa", "/server.key"}, Text: true,
		Recommendation: "Remove the key from the web root, revoke it and issue a new one.",
		Match: textRule(func(b []byte) (string, bool) {
			m := rePrivateKey().FindSubmatch(b)
			if m == nil {
				return "", false
			}
			return "-----BEGIN " + string(m[1]) + "----- (key material not shown)", true
		})},
	{Kind: "aws_credentials", Title: "AWS credentials file", Severity: SeverityCritical, Paths: []string{"/.aws/credentials"}, Text: true,
		Recommendation: "Remove the file, deactivate the access keys in IAM and review CloudTrail for their use.",
		Match: textRule(func(b []byte) (string, bool) {
			if !reAWSKey().Match(b) {
				return "", false
			}
			return "aws_access_key_id=***", true
		})},
	{Kind: "docker_compose", Title: "docker-compose file", Severity: SeverityMedium, Paths: []string{"/docker-compose.yml"}, Text: true,
		Recommendation: "Keep deployment files out of the web root; they describe services and often hold passwords.",
		Match: textRule(func(b []byte) (string, bool) {
			if reCompose().Match(b) && reComposeSvc().Match(b) {
				return "services: block with image/build entries", true
			}
			return "", false
		})},
	{Kind: "php_config_backup", Title: "PHP configuration backup", Severity: SeverityHigh, Paths: []string{"/wp-config.php.bak"}, Text: true,
		Recommendation: "Delete editor and backup copies of configuration files and rotate the database password.",
		Match: textRule(func(b []byte) (string, bool) {
			if bytes.Contains(b, []byte("<?php")) && (bytes.Contains(b, []byte("DB_PASSWORD")) || bytes.Contains(b, []byte("define("))) {
				return "PHP source with define() / DB_PASSWORD=***", true
			}
			return "", false
		})},
	{Kind: "editor_swap", Title: "Vim swap file", Severity: SeverityMedium, Paths: []string{"/.index.php.swp"},
		Recommendation: "Delete editor swap files from the web root.",
		Match:          magicRule("vim swap file", "b0VIM ")},
	{Kind: "htpasswd", Title: "Apache password file", Severity: SeverityHigh, Paths: []string{"/.htpasswd"}, Text: true,
		Recommendation: "Block access to .ht* files and change the passwords it lists.",
		Match: textRule(func(b []byte) (string, bool) {
			n := 0
			for line := range strings.SplitSeq(strings.TrimSpace(string(b)), "\n") {
				if !reHtpasswd().MatchString(strings.TrimSpace(line)) {
					return "", false
				}
				n++
			}
			if n == 0 {
				return "", false
			}
			return fmt.Sprintf("%d user:hash lines (hashes not shown)", n), true
		})},
	{Kind: "npmrc", Title: "npm configuration with credentials", Severity: SeverityHigh, Paths: []string{"/.npmrc"}, Text: true,
		Recommendation: "Remove .npmrc from the web root and revoke the registry token.",
		Match: textRule(func(b []byte) (string, bool) {
			m := reNpmAuth().FindSubmatch(b)
			if m == nil {
				return "", false
			}
			return string(m[1]) + "=***", true
		})},
	{Kind: "elmah", Title: "ELMAH error log", Severity: SeverityMedium, Paths: []string{"/elmah.axd"},
		Recommendation: "Restrict elmah.axd to administrators (allowRemoteAccess=false).",
		Match: func(b []byte, _ string) (string, bool) {
			if containsAll(b, "Error Log for", "ELMAH") {
				return "ELMAH error log page", true
			}
			return "", false
		}},
	{Kind: "sftp_config", Title: "Editor SFTP configuration", Severity: SeverityHigh, Paths: []string{"/.vscode/sftp.json"}, Text: true,
		Recommendation: "Remove editor deployment settings from the web root and change the server password.",
		Match: textRule(func(b []byte) (string, bool) {
			if containsAll(b, `"host"`, `"username"`) && (bytes.Contains(b, []byte(`"password"`)) || bytes.Contains(b, []byte(`"privateKeyPath"`))) {
				return `JSON with "host", "username" and "password": "***"`, true
			}
			return "", false
		})},
	{Kind: "crossdomain_wildcard", Title: "Permissive crossdomain.xml", Severity: SeverityLow, Paths: []string{"/crossdomain.xml"},
		Recommendation: "Remove crossdomain.xml or list only trusted domains.",
		Match: func(b []byte, _ string) (string, bool) {
			if bytes.Contains(b, []byte("<cross-domain-policy")) && reCrossAll().Match(b) {
				return `<allow-access-from domain="*"/>`, true
			}
			return "", false
		}},
	{Kind: "dockerfile", Title: "Dockerfile", Severity: SeverityLow, Paths: []string{"/Dockerfile"}, Text: true,
		Recommendation: "Keep build files out of the web root.",
		Match: textRule(func(b []byte) (string, bool) {
			if reDockerFrom().Match(b) && reDockerCmd().Match(b) {
				return "FROM line followed by build instructions", true
			}
			return "", false
		})},
}

// ExposurePaths returns every path the exposure probe requests, with
// "{host}" left as a placeholder.
func ExposurePaths() []string {
	var p []string
	for _, r := range exposureRules {
		p = append(p, r.Paths...)
	}
	return p
}

type probeJob struct {
	rule *exposureRule
	path string
}

// baselineSuffixes are the random paths requested first; together they
// catch catch-all handlers keyed on dotfiles or on extensions.
var baselineSuffixes = []string{"", ".", ".php", ".zip"}

func randomToken() string {
	b := make([]byte, 12)
	_, _ = rand.Read(b)
	return "wdn" + hex.EncodeToString(b)
}

// probeExposure requests the baseline and then every candidate path on
// origin, bounded by Options.Concurrency.
func (s *Scanner) probeExposure(ctx context.Context, sem chan struct{}, origin *url.URL) ExposureResult {
	res := ExposureResult{Origin: origin.String(), Tested: true, Baseline: []BaselineResult{}, Exposed: []ExposedPath{}}
	tok := randomToken()
	type base struct {
		path string
		r    *response
	}
	var jobs []probeJob
	for i := range exposureRules {
		for _, p := range exposureRules[i].Paths {
			jobs = append(jobs, probeJob{rule: &exposureRules[i], path: strings.ReplaceAll(p, "{host}", origin.Hostname())})
		}
	}
	bases := make([]base, len(baselineSuffixes))
	results := make([]*response, len(jobs))
	var wg sync.WaitGroup
	fetch := func(path string) *response {
		sem <- struct{}{}
		defer func() { <-sem }()
		u := *origin
		u.Path, u.RawPath, u.RawQuery = path, "", ""
		r, err := s.get(ctx, http.MethodGet, &u, http.Header{"Accept": {"*/*"}}, probeBodyBytes)
		if err != nil {
			return nil
		}
		return r
	}
	for i, suf := range baselineSuffixes {
		p := "/" + tok + suf
		if suf == "." {
			p = "/." + tok
		}
		wg.Go(func() { bases[i] = base{p, fetch(p)} })
	}
	for i, j := range jobs {
		wg.Go(func() { results[i] = fetch(j.path) })
	}
	wg.Wait()
	for _, b := range bases {
		br := BaselineResult{Path: b.path}
		if b.r != nil {
			br.StatusCode, br.Length = b.r.StatusCode, len(b.r.Body)
		}
		res.Baseline = append(res.Baseline, br)
	}
	res.Probed = len(jobs)
	for i, j := range jobs {
		r := results[i]
		if r == nil {
			res.Unanswered++
			continue
		}
		if r.StatusCode != http.StatusOK && r.StatusCode != http.StatusPartialContent {
			continue
		}
		ct := r.Header.Get("Content-Type")
		ev, ok := j.rule.Match(r.Body, ct)
		if !ok {
			continue
		}
		suppressed := false
		for _, b := range bases {
			if b.r == nil || b.r.StatusCode != r.StatusCode {
				continue
			}
			same := bytes.Equal(bytes.ReplaceAll(b.r.Body, []byte(b.path), []byte(j.path)), r.Body)
			if _, bm := j.rule.Match(b.r.Body, b.r.Header.Get("Content-Type")); bm || same {
				suppressed = true
				break
			}
		}
		if suppressed {
			res.Suppressed = append(res.Suppressed, j.path)
			continue
		}
		ep := ExposedPath{Path: j.path, Kind: j.rule.Kind, Severity: j.rule.Severity, StatusCode: r.StatusCode, Evidence: ev}
		if j.rule.Text && s.opts.SecretScan != nil {
			ep.Secrets = s.opts.SecretScan(ctx, string(r.Body))
		}
		res.Exposed = append(res.Exposed, ep)
	}
	return res
}

// exposureRuleByKind returns the rule of a kind.
func exposureRuleByKind(kind string) *exposureRule {
	for i := range exposureRules {
		if exposureRules[i].Kind == kind {
			return &exposureRules[i]
		}
	}
	return nil
}

// lazyRegexp compiles pattern when it is first used: most processes
// never scan a website, and compiling every pattern at start-up was most
// of this package's initialisation.
func lazyRegexp(pattern string) func() *regexp.Regexp {
	return sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(pattern) })
}
