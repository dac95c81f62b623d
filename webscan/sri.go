package webscan

import (
	"net/url"
	"strings"
)

// sriTest scores subresource integrity on the page's scripts. base is the
// page URL; scripts on another origin need an integrity attribute and https.
func sriTest(base *url.URL, htmlDoc bool, scripts []script) (TestResult, ScriptSummary) {
	t := TestResult{Name: "subresource-integrity"}
	sum := ScriptSummary{HTML: htmlDoc, Total: len(scripts)}
	if !htmlDoc {
		t.Result, t.Pass = "sri-not-implemented-response-not-html", true
		t.Description = "The page is not HTML."
		return t, sum
	}
	if len(scripts) == 0 {
		t.Result, t.Pass = "sri-not-implemented-but-no-scripts-loaded", true
		t.Description = "The page loads no scripts."
		return t, sum
	}
	var insecureCross, crossNoSRI int
	for _, s := range scripts {
		u, err := base.Parse(s.Src)
		if err != nil {
			continue
		}
		if sameOrigin(base, u) {
			continue
		}
		sum.CrossOrigin++
		hasSRI := strings.TrimSpace(s.Integrity) != ""
		if hasSRI {
			sum.WithIntegrity++
		} else {
			crossNoSRI++
		}
		// A protocol-relative src is insecure when the page itself is http.
		if u.Scheme != "https" || (strings.HasPrefix(s.Src, "//") && base.Scheme != "https") {
			sum.Insecure++
			insecureCross++
		}
	}
	switch {
	case sum.CrossOrigin == 0:
		t.Result = "sri-not-implemented-but-all-scripts-loaded-from-secure-origin"
		t.Description = "All scripts are loaded from the same origin."
	case insecureCross > 0 && sum.WithIntegrity == 0:
		t.Result, t.Modifier = "sri-not-implemented-and-external-scripts-not-loaded-securely", -50
		t.Description = "Scripts from other origins load over http without integrity checks."
	case insecureCross > 0:
		t.Result, t.Modifier = "sri-implemented-but-external-scripts-not-loaded-securely", -20
		t.Description = "Some scripts from other origins load over http."
	case crossNoSRI > 0:
		t.Result, t.Modifier = "sri-not-implemented-but-external-scripts-loaded-securely", -5
		t.Description = "Scripts from other origins load over https but without integrity attributes."
	default:
		t.Result, t.Modifier = "sri-implemented-and-external-scripts-loaded-securely", 5
		t.Description = "Every script from another origin is loaded over https with an integrity attribute."
	}
	t.Pass = t.Modifier >= 0
	return t, sum
}

// sameOrigin compares scheme, host and effective port.
func sameOrigin(a, b *url.URL) bool {
	return strings.EqualFold(a.Scheme, b.Scheme) && strings.EqualFold(a.Hostname(), b.Hostname()) && effPort(a) == effPort(b)
}

func effPort(u *url.URL) string {
	if p := u.Port(); p != "" {
		return p
	}
	switch strings.ToLower(u.Scheme) {
	case "https":
		return "443"
	case "http":
		return "80"
	}
	return ""
}
