package webscan

import (
	"crypto/sha256"
	"encoding/base64"
	"html/template"
	"io"
	"strconv"
	"strings"
)

// reportCSS is inlined into the HTML report; the page's own CSP allows it
// by hash, so the report loads nothing and runs no script.
const reportCSS = `
:root{--ok:#1a7f37;--warn:#9a6700;--bad:#cf222e;--muted:#57606a;--line:#d0d7de;--bg:#f6f8fa}
*{box-sizing:border-box}
body{font:15px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;margin:0;color:#1f2328;background:#fff}
main{max-width:1100px;margin:0 auto;padding:28px 32px 48px}
header{display:flex;gap:28px;align-items:center;border-bottom:1px solid var(--line);padding-bottom:20px}
header>div{min-width:0}
.grade{width:120px;height:120px;border-radius:18px;display:flex;align-items:center;justify-content:center;font-size:56px;font-weight:700;color:#fff;flex:none}
.g-A{background:var(--ok)}.g-B{background:#4c8c2b}.g-C{background:var(--warn)}.g-D{background:#bc4c00}.g-F{background:var(--bad)}
h1{font-size:22px;margin:0 0 4px}
h2{font-size:18px;margin:32px 0 10px;padding-bottom:6px;border-bottom:1px solid var(--line)}
.meta{color:var(--muted);font-size:13px}
.warning{border:1px solid var(--warn);background:#fff8c5;border-radius:8px;padding:10px 14px;margin:16px 0 0}
table{border-collapse:collapse;width:100%;font-size:14px}
th,td{text-align:left;padding:6px 8px;border-bottom:1px solid var(--line);vertical-align:top}
th{background:var(--bg);font-weight:600}
td.num{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}
.pass{color:var(--ok);font-weight:600}.fail{color:var(--bad);font-weight:600}.neutral{color:var(--muted)}
.sev{display:inline-block;min-width:64px;text-align:center;border-radius:10px;padding:1px 8px;font-size:12px;font-weight:600;color:#fff}
.sev-critical{background:#82071e}.sev-high{background:var(--bad)}.sev-medium{background:#bc4c00}.sev-low{background:var(--warn)}.sev-info{background:var(--muted)}
.finding{border:1px solid var(--line);border-radius:8px;padding:10px 14px;margin:10px 0}
.finding h3{font-size:15px;margin:0 0 4px}
.finding p{margin:4px 0}
code,.ev{font-family:ui-monospace,SFMono-Regular,Menlo,monospace;font-size:13px}
.key{word-break:normal;overflow-wrap:normal}
.val,.ev{word-break:normal;overflow-wrap:anywhere}
.ev{background:var(--bg);padding:4px 8px;border-radius:6px;display:block}
.fix{color:#0a3069}
.cols{display:grid;grid-template-columns:minmax(0,1fr) minmax(0,1fr);gap:24px;align-items:start}
.cols+table{margin-top:16px}
ul.reasons{margin:8px 0 0;padding-left:20px}
.applied{font-weight:600}
@media (max-width:720px){
main{padding:16px 14px 32px}
header{flex-direction:column;align-items:flex-start;gap:12px}
.grade{width:80px;height:80px;font-size:38px;border-radius:14px}
.cols{grid-template-columns:minmax(0,1fr)}
table{font-size:13px}
th,td{padding:5px 4px}
}
`

var reportFuncs = template.FuncMap{
	"gradeClass": func(g string) string {
		if g == "" {
			return "g-F"
		}
		switch g[0] {
		case 'A', 'B', 'C', 'D':
			return "g-" + g[:1]
		}
		return "g-F"
	},
	"signed": func(n int) string {
		if n > 0 {
			return "+" + strconv.Itoa(n)
		}
		return strconv.Itoa(n)
	},
	"passClass": func(t TestResult) string {
		switch {
		case t.Modifier > 0:
			return "pass"
		case t.Modifier < 0:
			return "fail"
		}
		return "neutral"
	},
	"join": strings.Join,
	// refPoints is what the Observatory-equivalent score counts for the
	// test: its modifier there, or "—" for Warden's own tests.
	"refPoints": func(ref ReferenceResult, name string) string {
		for _, t := range ref.Tests {
			if t.Name == name {
				if t.Modifier > 0 {
					return "+" + strconv.Itoa(t.Modifier)
				}
				return strconv.Itoa(t.Modifier)
			}
		}
		return "—"
	},
	// key prints an identifier (a result key, a cipher suite, a finding
	// id, a path) so that it wraps only between its parts: after a
	// hyphen, as browsers do anyway, and after an underscore or a slash,
	// where it offers a break.
	"key": func(s string) template.HTML {
		var b strings.Builder
		b.WriteString(`<code class="key">`)
		for len(s) > 0 {
			i := strings.IndexAny(s[1:], "_/") + 1 // never after a leading "/"
			if i == 0 {
				b.WriteString(template.HTMLEscapeString(s))
				break
			}
			b.WriteString(template.HTMLEscapeString(s[:i+1]))
			b.WriteString("<wbr>")
			s = s[i+1:]
		}
		b.WriteString(`</code>`)
		return template.HTML(b.String())
	},
	"yesno": func(b bool) string {
		if b {
			return "yes"
		}
		return "no"
	},
}

var reportTmpl = template.Must(template.New("report").Funcs(reportFuncs).Parse(`<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src '{{.CSSHash}}'; base-uri 'none'; form-action 'none'">
<meta name="referrer" content="no-referrer">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Warden scan: {{.R.Target}}</title>
<style>{{.CSS}}</style></head>
<body><main>
{{with .R}}
<header>
  <div class="grade {{gradeClass .Result.Grade}}" aria-label="grade">{{.Result.Grade}}</div>
  <div>
    <h1 class="val">{{.Target}}</h1>
    <div class="meta">Header score {{.Result.Score}} ({{.Result.AlgorithmVersion}}) · TLS grade {{if .Result.TLS.Grade}}{{.Result.TLS.Grade}}{{else}}not tested{{end}} · {{len .Findings}} findings · {{.Result.Exposure.Probed}} paths probed · {{.Result.Timings.TotalMS}} ms</div>
    <div class="meta">Scan {{.ScanID}} · {{.StartedAt.Format "2006-01-02 15:04:05 MST"}}</div>
    <ul class="reasons">{{range .Result.Reasons}}<li{{if .Applied}} class="applied"{{end}}>{{.Source}}: {{.Grade}} — {{.Reason}}{{if .Applied}} (sets the grade){{end}}</li>{{end}}</ul>
  </div>
</header>
{{range .PolicyWarnings}}<div class="warning" role="alert"><strong>Warning:</strong> {{.Message}}</div>{{end}}

<h2>Checks</h2>
<table><tr><th>Check</th><th>Result</th><th>Findings</th></tr>
{{range $.Summary}}<tr><td>{{.Name}}</td><td class="{{.Class}}">{{.Result}}</td><td>{{if .Findings}}{{.Findings}} (worst: <span class="sev sev-{{.Worst}}">{{.Worst}}</span>){{else}}none{{end}}</td></tr>
{{end}}</table>

<h2>What to fix</h2>
{{if not .Findings}}<p>Nothing found.</p>{{end}}
{{range .Findings}}<div class="finding">
  <h3><span class="sev sev-{{.Severity}}">{{.Severity}}</span> {{.Title}}</h3>
  <p class="meta">{{.Category}} · {{key .ID}}</p>
  {{if .Detail}}<p class="val">{{.Detail}}</p>{{end}}
  {{if .Evidence}}<span class="ev">{{.Evidence}}</span>{{end}}
  <p class="fix"><strong>Fix:</strong> {{.Recommendation}}</p>
</div>{{end}}

<h2>Header checks</h2>
{{$ref := .Result.Reference}}<table><tr><th>Test</th><th>Result</th><th>Points<br><span class="meta">Obs.</span></th><th>Explanation</th></tr>
{{range .Result.Headers.Tests}}<tr><td>{{key .Name}}</td><td class="{{passClass .}}">{{key .Result}}</td><td class="num">{{signed .Modifier}}<br><span class="meta">{{refPoints $ref .Name}}</span></td><td>{{.Description}}</td></tr>
{{end}}</table>
<p class="meta">Score {{.Result.Headers.Score}}, grade {{.Result.Headers.Grade}}; bonus points {{if .Result.Headers.BonusApplied}}counted{{else}}not counted (they count only when the score after penalties is at least 90){{end}}. Under each test's points, what the MDN HTTP Observatory's arithmetic counts for it (— for tests it does not score; its score {{$ref.Score}}, grade {{$ref.Grade}}); where Warden reads a header more strictly, docs/microdefend.md lists the deviation and its reason.</p>

<h2>TLS</h2>
{{with .Result.TLS}}
{{if .Tested}}
<div class="cols"><table>
<tr><th colspan="2">Connection ({{.Address}})</th></tr>
<tr><td>Negotiated</td><td>{{.NegotiatedVersion}} {{with .NegotiatedCipher}}{{key .}}{{end}}</td></tr>
<tr><td>Key exchange group</td><td>{{.Group}}</td></tr>
<tr><td>ALPN</td><td>{{.ALPN}}</td></tr>
<tr><td>OCSP stapled</td><td>{{yesno .OCSPStapled}} {{.OCSPStatus}}</td></tr>
{{with .DHBits}}<tr><td>DHE group</td><td class="{{if lt . 2048}}fail{{else}}pass{{end}}">{{.}} bits</td></tr>
{{end}}{{with .SecureRenegotiation}}<tr><td>Secure renegotiation</td><td class="{{if eq . "not_supported"}}fail{{else}}neutral{{end}}">{{key .}}</td></tr>
{{end}}{{with .FallbackSCSV}}<tr><td>TLS_FALLBACK_SCSV</td><td class="{{if eq . "not_supported"}}fail{{else}}neutral{{end}}">{{key .}}</td></tr>
{{end}}{{with .Compression}}<tr><td>TLS compression</td><td class="{{if .}}fail{{else}}pass{{end}}">{{if .}}enabled (CRIME){{else}}off{{end}}</td></tr>
{{end}}{{range .Protocols}}<tr><td>{{.Version}}</td><td class="{{if .Offered}}{{if .Insecure}}fail{{else}}pass{{end}}{{else}}neutral{{end}}">{{if .Offered}}offered{{else if .Tested}}not offered{{else}}not tested ({{.Error}}){{end}}</td></tr>
{{end}}</table>
{{with .Certificate}}<table>
<tr><th colspan="2">Certificate</th></tr>
<tr><td>Subject</td><td class="val">{{.Subject}}</td></tr>
<tr><td>Issuer</td><td class="val">{{.Issuer}}</td></tr>
<tr><td>Names</td><td class="val">{{join .DNSNames ", "}}</td></tr>
<tr><td>Valid until</td><td>{{.NotAfter.Format "2006-01-02"}} ({{.DaysRemaining}} days)</td></tr>
<tr><td>Trusted</td><td class="{{if .Trusted}}pass{{else}}fail{{end}}">{{yesno .Trusted}} {{.TrustError}}</td></tr>
<tr><td>Matches host</td><td class="{{if .HostnameMatch}}pass{{else}}fail{{end}}">{{yesno .HostnameMatch}}</td></tr>
<tr><td>Key</td><td>{{.KeyType}} {{.KeyBits}} bits</td></tr>
<tr><td>Signature</td><td>{{.SignatureAlgorithm}}</td></tr>
<tr><td>Chain length</td><td>{{.ChainLength}}</td></tr>
</table>{{end}}</div>
{{if .CipherSuites}}<table><tr><th>Accepted TLS 1.0–1.2 suite</th><th>Version</th><th>Forward secrecy</th><th>AEAD</th><th>Weakness</th></tr>
{{range .CipherSuites}}<tr><td>{{key .Name}}</td><td>{{.Version}}</td><td>{{yesno .ForwardSecrecy}}</td><td>{{yesno .AEAD}}</td><td class="{{if .Weak}}fail{{end}}">{{with .Weak}}{{key .}}{{end}}</td></tr>
{{end}}</table>{{end}}
{{else}}<p>Not tested{{with .Error}} ({{.}}){{end}}.</p>{{end}}
{{if .NotTested}}<p class="meta">Not tested, because crypto/tls cannot probe them (never counted as passed): {{join .NotTested ", "}}.</p>{{end}}
{{end}}

<h2>Exposed files</h2>
{{with .Result.Exposure}}
<p class="meta">{{.Probed}} paths probed on <span class="val">{{.Origin}}</span>, each confirmed by content against {{len .Baseline}} random-path baselines.</p>
{{if .Exposed}}<table><tr><th>Path</th><th>Kind</th><th>Severity</th><th>Evidence (redacted)</th></tr>
{{range .Exposed}}<tr><td>{{key .Path}}</td><td>{{key .Kind}}</td><td><span class="sev sev-{{.Severity}}">{{.Severity}}</span></td><td><span class="ev">{{.Evidence}}</span></td></tr>
{{end}}</table>{{else}}<p>None confirmed.</p>{{end}}
{{end}}

<h2>Metadata and redirects</h2>
<div class="cols">
{{with .Result.Metadata}}<table>
<tr><td>Status</td><td>{{.StatusCode}}</td></tr>
<tr><td>Title</td><td class="val">{{.Title}}</td></tr>
{{if .Generator}}<tr><td>Generator</td><td>{{.Generator}}</td></tr>{{end}}
{{range $k, $v := .Banners}}<tr><td>{{$k}}</td><td><code class="val">{{$v}}</code></td></tr>{{end}}
<tr><td>security.txt</td><td>{{if .SecurityTxt.Present}}present{{if .SecurityTxt.Expired}}, expired{{end}}{{else}}missing{{end}}</td></tr>
<tr><td>robots.txt</td><td>{{if .Robots.Present}}{{.Robots.Entries}} entries{{else}}missing{{end}}</td></tr>
{{end}}{{with .Result.CAA}}<tr><td>CAA</td><td>{{if not .Tested}}not tested{{else if .Records}}at <span class="val">{{.Domain}}</span>: {{range $i, $c := .Issuers}}{{if $i}}, {{end}}<span class="val">{{$c}}</span>{{end}}{{else}}none: any CA may issue{{end}}</td></tr>
</table>{{end}}
<table><tr><th>Session</th><th>Hop</th><th>Status</th></tr>
{{range .Result.Redirects.HTTP.Hops}}<tr><td>http</td><td><code class="val">{{.URL}}</code></td><td class="num">{{.StatusCode}}</td></tr>{{end}}
{{range .Result.Redirects.HTTPS.Hops}}<tr><td>https</td><td><code class="val">{{.URL}}</code></td><td class="num">{{.StatusCode}}</td></tr>{{end}}
</table></div>
<p class="meta">Generated by Warden webscan. This page loads no external resources.</p>
{{end}}
</main></body></html>
`))

// WriteHTML writes the report as one self-contained HTML page: inline CSS,
// no scripts, no external resources, a restrictive CSP of its own, and all
// site-supplied text escaped by html/template.
func WriteHTML(w io.Writer, r *Report) error {
	sum := sha256.Sum256([]byte(reportCSS))
	return reportTmpl.Execute(w, struct {
		R       *Report
		CSS     template.CSS
		CSSHash string
		Summary []checkRow
	}{r, template.CSS(reportCSS), "sha256-" + base64.StdEncoding.EncodeToString(sum[:]), summarize(r)})
}

// checkRow is one line of the report's summary table.
type checkRow struct {
	Name, Result, Class string
	Findings            int
	Worst               Severity
}

// summarize gives one row per check family: its own verdict and the count
// and worst severity of its findings.
func summarize(r *Report) []checkRow {
	res := &r.Result
	tlsResult, tlsClass := "not tested", "neutral"
	if res.TLS.Tested {
		tlsResult, tlsClass = "grade "+res.TLS.Grade, verdictClass(res.TLS.Grade)
	}
	cookies := "none set"
	if n := len(res.Headers.Cookies); n > 0 {
		cookies = strconv.Itoa(n) + " cookie"
		if n > 1 {
			cookies += "s"
		}
	}
	expResult, expClass := "not tested", "neutral"
	if res.Exposure.Tested {
		expResult = strconv.Itoa(len(res.Exposure.Exposed)) + " exposed of " + strconv.Itoa(res.Exposure.Probed) + " probed"
		expClass = map[bool]string{true: "pass", false: "fail"}[len(res.Exposure.Exposed) == 0]
		if res.Exposure.Unanswered > 0 {
			expResult += ", " + strconv.Itoa(res.Exposure.Unanswered) + " unanswered"
		}
	}
	rows := []checkRow{
		{Name: "TLS and certificate", Result: tlsResult, Class: tlsClass},
		{Name: "HTTP security headers", Result: "score " + strconv.Itoa(res.Headers.Score) + ", grade " + res.Headers.Grade, Class: verdictClass(res.Headers.Grade)},
		{Name: "Cookies", Result: cookies, Class: "neutral"},
		{Name: "Metadata", Result: map[bool]string{true: "security.txt present", false: "no security.txt"}[res.Metadata.SecurityTxt.Present], Class: "neutral"},
		{Name: "Exposed files", Result: expResult, Class: expClass},
	}
	cats := []Category{CategoryTLS, CategoryHeaders, CategoryCookies, CategoryMetadata, CategoryExposure}
	for _, f := range r.Findings {
		for i, c := range cats {
			if f.Category != c {
				continue
			}
			rows[i].Findings++
			if rows[i].Worst == "" || f.Severity.Rank() > rows[i].Worst.Rank() {
				rows[i].Worst = f.Severity
			}
		}
	}
	return rows
}

func verdictClass(grade string) string {
	switch {
	case grade == "":
		return "neutral"
	case grade[0] == 'A' || grade[0] == 'B':
		return "pass"
	}
	return "fail"
}
