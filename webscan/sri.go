package webscan

import (
	"net/url"
	"strings"
)

// sriTest scores subresource integrity on the page's scripts. base is the
// page URL; scripts on another origin need an integrity attribute and
// https. Each script is judged alone and the worst result wins, so one
// script with integrity never softens the penalty of another without it.
//
// Two readings are stricter than the Observatory's (docs/microdefend.md,
// deviations): a script on a sibling subdomain is on another origin (the
// Observatory accepts any script on the same registrable domain), and a
// protocol-relative script is judged by the scheme it loads with (https on
// an https page), where the Observatory counts it as insecure everywhere.
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
	type outcome struct {
		result, desc string
		modifier     int
	}
	var worst *outcome
	worse := func(o outcome) {
		if worst == nil || o.modifier < worst.modifier {
			worst = &o
		}
	}
	sameSecure := false
	for _, s := range scripts {
		u, err := base.Parse(s.Src)
		if err != nil {
			continue
		}
		hasSRI := strings.TrimSpace(s.Integrity) != ""
		secure := u.Scheme == "https"
		if sameOrigin(base, u) {
			sameSecure = sameSecure || (hasSRI && secure)
			continue
		}
		sum.CrossOrigin++
		if hasSRI {
			sum.WithIntegrity++
		}
		if !secure {
			sum.Insecure++
		}
		switch {
		case !hasSRI && !secure:
			worse(outcome{"sri-not-implemented-and-external-scripts-not-loaded-securely", "A script from another origin loads over http without an integrity check.", -50})
		case hasSRI && !secure:
			worse(outcome{"sri-implemented-but-external-scripts-not-loaded-securely", "A script from another origin loads over http (its integrity attribute cannot protect the page from a network attacker who strips it).", -20})
		case !hasSRI:
			worse(outcome{"sri-not-implemented-but-external-scripts-loaded-securely", "Scripts from other origins load over https but without integrity attributes.", -5})
		}
	}
	switch {
	case worst != nil:
		t.Result, t.Modifier, t.Description = worst.result, worst.modifier, worst.desc
	case sum.CrossOrigin > 0:
		t.Result, t.Modifier = "sri-implemented-and-external-scripts-loaded-securely", 5
		t.Description = "Every script from another origin is loaded over https with an integrity attribute."
	case sameSecure:
		t.Result, t.Modifier = "sri-implemented-and-all-scripts-loaded-securely", 5
		t.Description = "Every script is loaded from the same origin over https, with integrity attributes."
	default:
		t.Result = "sri-not-implemented-but-all-scripts-loaded-from-secure-origin"
		t.Description = "All scripts are loaded from the same origin."
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
