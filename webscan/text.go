package webscan

import (
	"bufio"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"
	"unicode"
)

// clean makes text that came from the scanned site safe for a terminal:
// control characters (including ANSI escape sequences) become U+FFFD.
func clean(s string) string {
	return strings.Map(func(r rune) rune {
		if unicode.IsControl(r) || r == '\u2028' || r == '\u2029' || unicode.Is(unicode.Bidi_Control, r) {
			return '\uFFFD'
		}
		return r
	}, s)
}

// parenthesised returns " (s)", or "" when s is empty.
func parenthesised(s string) string {
	if s == "" {
		return ""
	}
	return " (" + clean(s) + ")"
}

// WriteText writes a human report for a terminal: the grade and why, what
// is wrong and how to fix it, then the TLS, header, metadata and exposure
// sections. Text that came from the site is stripped of control characters.
func WriteText(w io.Writer, r *Report) error {
	bw := bufio.NewWriter(w)
	p := func(format string, a ...any) { fmt.Fprintf(bw, format, a...) }
	res := &r.Result
	p("Warden website scan: %s\n", clean(r.Target))
	p("Grade: %s   (header score %d, %s)\n", res.Grade, res.Score, res.AlgorithmVersion)
	p("Scan %s at %s, %d ms\n\n", r.ScanID, r.StartedAt.Format("2006-01-02 15:04:05Z07:00"), res.Timings.TotalMS)
	for _, w := range r.PolicyWarnings {
		p("WARNING: %s\n", clean(w.Message))
	}
	if len(r.PolicyWarnings) > 0 {
		p("\n")
	}

	p("Why this grade:\n")
	for _, g := range res.Reasons {
		mark := ""
		if g.Applied {
			mark = "  <- sets the grade"
		}
		p("  - %-8s %-3s %s%s\n", g.Source, g.Grade, clean(g.Reason), mark)
	}

	p("\nWhat is wrong (%d findings):\n", len(r.Findings))
	if len(r.Findings) == 0 {
		p("  nothing found\n")
	}
	for _, f := range r.Findings {
		p("  [%s] %s: %s\n", strings.ToUpper(string(f.Severity)), f.Category, clean(f.Title))
		if f.Detail != "" {
			p("      %s\n", clean(f.Detail))
		}
		if f.Evidence != "" {
			p("      Evidence: %s\n", clean(f.Evidence))
		}
		p("      Fix: %s\n", clean(f.Recommendation))
	}

	t := res.TLS
	switch {
	case !t.Tested:
		p("\nTLS: not tested%s\n", parenthesised(t.Error))
	default:
		p("\nTLS%s:\n", parenthesised(t.Address))
		p("  grade %s; negotiated %s %s %s\n", t.Grade, t.NegotiatedVersion, t.NegotiatedCipher, t.Group)
		var vs []string
		for _, v := range t.Protocols {
			state := "no"
			if v.Offered {
				state = "yes"
			} else if !v.Tested {
				state = "untested"
			}
			vs = append(vs, v.Version+"="+state)
		}
		p("  protocols: %s\n", strings.Join(vs, ", "))
		p("  TLS 1.0-1.2 suites accepted: %d\n", len(t.CipherSuites))
		if c := t.Certificate; c != nil {
			p("  certificate: %s, issued by %s, %s %d bits, expires %s (%d days), trusted=%v, name match=%v\n",
				clean(c.Subject), clean(c.Issuer), c.KeyType, c.KeyBits, c.NotAfter.Format("2006-01-02"), c.DaysRemaining, c.Trusted, c.HostnameMatch)
		}
		p("  OCSP stapled: %v\n", t.OCSPStapled)
	}
	if t.DHBits > 0 {
		p("  DHE group: %d bits\n", t.DHBits)
	}
	if t.SecureRenegotiation != "" || t.FallbackSCSV != "" {
		p("  secure renegotiation: %s; TLS_FALLBACK_SCSV: %s\n", orDash(t.SecureRenegotiation), orDash(t.FallbackSCSV))
	}
	if t.Compression != nil && *t.Compression {
		p("  TLS compression: enabled (CRIME)\n")
	}
	if len(t.NotTested) > 0 {
		p("  not tested: %s\n", strings.Join(t.NotTested, ", "))
	}

	h := res.Headers
	p("\nHeaders%s: score %d, grade %s, bonus %s\n", parenthesised(h.URL), h.Score, h.Grade, map[bool]string{true: "counted", false: "not counted"}[h.BonusApplied])
	for _, x := range h.Tests {
		p("  %+4d  %-31s %s\n", x.Modifier, x.Name, x.Result)
	}

	m := res.Metadata
	p("\nMetadata: status %d", m.StatusCode)
	if m.Title != "" {
		p(", title %q", clean(m.Title))
	}
	p("\n")
	for _, k := range slices.Sorted(maps.Keys(m.Banners)) {
		p("  %s: %s\n", k, clean(m.Banners[k]))
	}
	p("  security.txt: %v, robots.txt: %v\n", m.SecurityTxt.Present, m.Robots.Present)
	switch c := res.CAA; {
	case !c.Tested && c.Error != "":
		p("  CAA: not tested (%s)\n", clean(c.Error))
	case !c.Tested:
		p("  CAA: not tested\n")
	case len(c.Records) == 0:
		p("  CAA: none (any certificate authority may issue)\n")
	default:
		p("  CAA at %s: issue %s\n", clean(c.Domain), clean(strings.Join(c.Issuers, ", ")))
	}

	e := res.Exposure
	p("\nExposed paths: %d confirmed of %d probed\n", len(e.Exposed), e.Probed)
	for _, x := range e.Exposed {
		p("  %s (%s, %s)\n", clean(x.Path), x.Kind, x.Severity)
	}
	for _, ch := range []struct {
		name string
		c    Chain
	}{{"http", res.Redirects.HTTP}, {"https", res.Redirects.HTTPS}} {
		if !ch.c.Tested {
			continue
		}
		p("\nRedirects from %s:\n", ch.name)
		for _, hop := range ch.c.Hops {
			p("  %d %s\n", hop.StatusCode, clean(hop.URL))
		}
		if ch.c.Error != "" {
			p("  stopped: %s (%s)\n", ch.c.Error, ch.c.ErrorDetail)
		}
	}
	return bw.Flush()
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
