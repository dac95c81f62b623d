package webscan

import (
	"net/url"
	"strings"
)

// redirectionTest scores the http:// session: it should go to https on
// the same host at the first hop and end on https with a valid certificate.
func redirectionTest(ch Chain, httpsOK, certValid bool) TestResult {
	t := TestResult{Name: "redirection"}
	defer func() { t.Pass = t.Modifier >= 0 }()
	switch {
	case !ch.Tested:
		t.Result = "redirection-not-tested"
		t.Description = "The target names an explicit port, so only its own scheme was fetched."
		return t
	case len(ch.Hops) == 0 || (ch.Hops[0].StatusCode == 0 && httpsOK):
		t.Result = "redirection-not-needed-no-http"
		t.Description = "The site does not answer on http."
		return t
	case ch.Hops[0].StatusCode == 0:
		t.Result, t.Modifier = "redirection-missing", -20
		t.Description = "Neither http nor https answered."
		return t
	}
	first := ch.Hops[0]
	if first.Location == "" || !isRedirect(first.StatusCode) {
		t.Result, t.Modifier = "redirection-missing", -20
		t.Description = "The http site does not redirect to https."
		return t
	}
	start, _ := url.Parse(first.URL)
	firstTarget, err := start.Parse(first.Location)
	last := ch.Hops[len(ch.Hops)-1]
	final, _ := url.Parse(last.URL)
	if last.Location != "" && final != nil {
		if u, err := final.Parse(last.Location); err == nil {
			final = u
		}
	}
	switch {
	case err != nil || final == nil || final.Scheme != "https":
		t.Result, t.Modifier = "redirection-not-to-https", -20
		t.Description = "The http site redirects, but not to https."
	case firstTarget.Scheme != "https":
		t.Result, t.Modifier = "redirection-not-to-https-on-initial-redirection", -10
		t.Description = "The first redirect goes to another http URL before reaching https."
	case !strings.EqualFold(firstTarget.Hostname(), start.Hostname()):
		t.Result, t.Modifier = "redirection-off-host-from-http", -5
		t.Description = "The first redirect leaves the host, so this host's HSTS is never set."
	case !certValid:
		t.Result, t.Modifier = "redirection-invalid-cert", -20
		t.Description = "The site redirects to https, but its certificate is not valid."
	default:
		t.Result = "redirection-to-https"
		t.Description = "The http site redirects to https on the same host."
	}
	return t
}
