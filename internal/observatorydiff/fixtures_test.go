package observatorydiff

import (
	"fmt"
	"net/http"
	"strings"
)

// site is one fixture site, served as <name>.fx.test (or, when
// preloaded, <name>.fx-observatory.dev).
type site struct {
	name string
	// preloaded serves the site under a domain on the HSTS preload list.
	preloaded bool
	// variant marks a single-rule variant: the perfect site with exactly
	// one header or attribute changed.
	variant bool
	// hdr are the headers of the page (http and https alike).
	hdr http.Header
	// body is the page; empty means a minimal HTML page without scripts.
	body string
	// http says what http://host/ does: "" redirects to the same URL on
	// https; "serve" serves the page; "http-first" redirects to another
	// http URL first; "off-host" redirects to https on another host.
	http string
	// hops is the number of redirects of the whole chain from http://host/
	// (0 or 1: one redirect, http to https); above 1 the https side adds
	// same-host redirects (a login or locale chain).
	hops int
	// cors reflects the request's Origin with Allow-Credentials: true.
	cors string
}

const minimalPage = "<!doctype html><html><head><title>fixture</title></head><body>ok</body></html>"

// perfect are the headers of a site that earns every Observatory bonus.
func perfect() http.Header {
	return http.Header{
		"Content-Security-Policy":      {"default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'"},
		"Strict-Transport-Security":    {"max-age=63072000; includeSubDomains"},
		"X-Content-Type-Options":       {"nosniff"},
		"X-Frame-Options":              {"DENY"},
		"Referrer-Policy":              {"no-referrer"},
		"Cross-Origin-Resource-Policy": {"same-origin"},
		"Cross-Origin-Opener-Policy":   {"same-origin"},
		"Cross-Origin-Embedder-Policy": {"require-corp"},
		"Set-Cookie":                   {"__Host-sessionid=1; Path=/; Secure; HttpOnly; SameSite=Lax"},
		"Content-Type":                 {"text/html; charset=utf-8"},
	}
}

// variant returns the perfect site with one change.
func variant(name string, change func(h http.Header)) site {
	h := perfect()
	change(h)
	return site{name: name, variant: true, hdr: h}
}

func set(k string, v ...string) func(http.Header) {
	return func(h http.Header) {
		if len(v) == 0 {
			h.Del(k)
			return
		}
		h[http.CanonicalHeaderKey(k)] = v
	}
}

func csp(v string) func(http.Header) { return set("Content-Security-Policy", v) }

func scripts(tags ...string) string {
	return "<!doctype html><html><head><title>fixture</title>" + strings.Join(tags, "") + "</head><body>ok</body></html>"
}

// fixtures is the table both tools scan.
func fixtures() []site {
	sites := []site{
		{name: "no-headers", hdr: http.Header{"Content-Type": {"text/html"}}},
		{name: "perfect", hdr: perfect()},
		{name: "other", hdr: perfect()}, // the target of off-host redirects
		{name: "no-redirect", hdr: perfect(), http: "serve"},
		{name: "redirect-http-first", hdr: perfect(), http: "http-first"},
		{name: "redirect-off-host", hdr: perfect(), http: "off-host"},

		// CSP.
		variant("csp-unsafe-inline", csp("default-src 'none'; script-src 'self' 'unsafe-inline'; form-action 'self'; frame-ancestors 'none'")),
		variant("csp-unsafe-eval", csp("default-src 'none'; script-src 'self' 'unsafe-eval'; form-action 'self'; frame-ancestors 'none'")),
		variant("csp-wildcard-script", csp("default-src 'none'; script-src *; frame-ancestors 'none'")),
		variant("csp-wildcard-object", csp("default-src 'self'; object-src *; frame-ancestors 'none'")),
		variant("csp-https-scheme-script", csp("default-src 'none'; script-src https:; frame-ancestors 'none'")),
		variant("csp-data-script", csp("default-src 'none'; script-src 'self' data:; frame-ancestors 'none'")),
		variant("csp-blob-script", csp("default-src 'none'; script-src 'self' blob:; frame-ancestors 'none'")),
		variant("csp-report-uri-http", csp("default-src 'none'; form-action 'self'; frame-ancestors 'none'; report-uri http://reports.fx.test/csp")),
		variant("csp-duplicate-directive", csp("default-src 'none'; script-src 'self'; script-src *; frame-ancestors 'none'")),
		variant("csp-duplicate-report-uri", csp("default-src 'none'; frame-ancestors 'none'; report-uri /a; report-uri /b")),
		variant("csp-strict-dynamic-alone", csp("default-src 'none'; script-src 'strict-dynamic'; frame-ancestors 'none'")),
		variant("csp-strict-dynamic-nonce", csp("default-src 'none'; script-src 'nonce-abc123' 'strict-dynamic' https: 'unsafe-inline'; frame-ancestors 'none'")),
		variant("csp-nonce-unsafe-inline", csp("default-src 'none'; script-src 'nonce-abc123' 'unsafe-inline'; frame-ancestors 'none'")),
		variant("csp-empty-frame-ancestors", func(h http.Header) {
			csp("default-src 'none'; form-action 'self'; frame-ancestors")(h)
			h.Del("X-Frame-Options")
		}),
		variant("csp-missing-style-src", csp("script-src 'self'; object-src 'none'; frame-ancestors 'none'")),
		variant("csp-style-unsafe-inline", csp("default-src 'none'; style-src 'self' 'unsafe-inline'; frame-ancestors 'none'")),
		variant("csp-style-unsafe-eval", csp("default-src 'none'; style-src 'self' 'unsafe-eval'; frame-ancestors 'none'")),
		variant("csp-default-none-no-form-action", csp("default-src 'none'; frame-ancestors 'none'")),
		variant("csp-default-self", csp("default-src 'self'; object-src 'none'; frame-ancestors 'none'")),
		variant("csp-report-only", func(h http.Header) {
			h["Content-Security-Policy-Report-Only"] = h["Content-Security-Policy"]
			h.Del("Content-Security-Policy")
		}),
		variant("csp-missing", set("Content-Security-Policy")),
		variant("csp-unparsable", csp("a")),
		variant("csp-frame-ancestors-wildcard", func(h http.Header) {
			csp("default-src 'none'; frame-ancestors *")(h)
			h.Del("X-Frame-Options")
		}),
		{name: "csp-meta-only", hdr: with(perfect(), set("Content-Security-Policy")),
			body: `<!doctype html><html><head><meta http-equiv="Content-Security-Policy" content="default-src 'none'; frame-ancestors 'none'"><title>x</title></head><body>ok</body></html>`},
		{name: "csp-meta-frame-ancestors", hdr: with(perfect(), set("Content-Security-Policy"), set("X-Frame-Options")),
			body: `<!doctype html><html><head><meta http-equiv="Content-Security-Policy" content="default-src 'self'; frame-ancestors 'none'"><title>x</title></head><body>ok</body></html>`},
	}
	// Insecure schemes in every directive.
	for _, d := range []string{"script-src", "style-src", "object-src", "connect-src", "font-src", "frame-src", "child-src", "worker-src", "manifest-src", "form-action", "base-uri", "frame-ancestors", "img-src", "media-src", "default-src"} {
		base := map[string]string{"default-src": "'self'", "object-src": "'none'", "frame-ancestors": "'none'"}
		base[d] = "http://insecure.fx.test"
		var parts []string
		for _, k := range []string{"default-src", "object-src", "frame-ancestors"} {
			parts = append(parts, k+" "+base[k])
			delete(base, k)
		}
		for k, v := range base {
			parts = append(parts, k+" "+v)
		}
		pol := strings.Join(parts, "; ")
		sites = append(sites, variant("csp-http-"+d, csp(pol)))
	}
	sites = append(sites, variant("csp-ftp-img", csp("default-src 'self'; object-src 'none'; frame-ancestors 'none'; img-src ftp://files.fx.test")))

	// Cookies.
	cookie := func(name, c string, hsts string) site {
		return variant(name, func(h http.Header) {
			h["Set-Cookie"] = []string{c}
			if hsts == "" {
				h.Del("Strict-Transport-Security")
			} else {
				h.Set("Strict-Transport-Security", hsts)
			}
		})
	}
	long, short := "max-age=63072000", "max-age=300"
	sites = append(sites,
		cookie("cookie-session-bare-long-hsts", "sessionid=1", long),
		cookie("cookie-session-bare-short-hsts", "sessionid=1", short),
		cookie("cookie-session-bare-no-hsts", "sessionid=1", ""),
		cookie("cookie-plain-no-secure-long-hsts", "theme=dark; SameSite=Lax", long),
		cookie("cookie-plain-no-secure-short-hsts", "theme=dark; SameSite=Lax", short),
		cookie("cookie-plain-no-secure-no-hsts", "theme=dark; SameSite=Lax", ""),
		cookie("cookie-session-no-httponly", "sessionid=1; Secure; SameSite=Lax", long),
		cookie("cookie-samesite-none-no-secure", "theme=dark; SameSite=None", long),
		cookie("cookie-samesite-none-secure", "theme=dark; SameSite=None; Secure", long),
		cookie("cookie-samesite-invalid", "theme=dark; Secure; SameSite=Sometimes", long),
		cookie("cookie-csrf-no-samesite", "csrftoken=1; Secure", long),
		cookie("cookie-secure-no-samesite", "theme=dark; Secure", long),
	)

	// CORS.
	sites = append(sites,
		site{name: "cors-reflect-credentials", variant: true, hdr: perfect(), cors: "reflect"},
		variant("cors-wildcard", set("Access-Control-Allow-Origin", "*")),
	)

	// Subresource integrity.
	const sri = ` integrity="sha384-oqVuAfXRKap7fdgcCY5uykM6+R9GqQ8K/uxy9rx7HNQlGYl1kPzQho1wx4JwY8wC" crossorigin="anonymous"`
	body := func(name, b string) site {
		return site{name: name, hdr: with(perfect(), csp("default-src 'self'; object-src 'none'; frame-ancestors 'none'")), body: b}
	}
	sites = append(sites,
		body("sri-https-with-integrity", scripts(`<script src="https://cdn.elsewhere.test/a.js"`+sri+`></script>`)),
		body("sri-https-without-integrity", scripts(`<script src="https://cdn.elsewhere.test/a.js"></script>`)),
		body("sri-http-with-integrity", scripts(`<script src="http://cdn.elsewhere.test/a.js"`+sri+`></script>`)),
		body("sri-http-without-integrity", scripts(`<script src="http://cdn.elsewhere.test/a.js"></script>`)),
		body("sri-mixed", scripts(`<script src="https://cdn.elsewhere.test/a.js"`+sri+`></script>`, `<script src="http://cdn.elsewhere.test/b.js"></script>`)),
		body("sri-mixed-reversed", scripts(`<script src="http://cdn.elsewhere.test/b.js"></script>`, `<script src="https://cdn.elsewhere.test/a.js"`+sri+`></script>`)),
		body("sri-protocol-relative", scripts(`<script src="//cdn.elsewhere.test/a.js"`+sri+`></script>`)),
		body("sri-sibling-subdomain", scripts(`<script src="https://cdn.fx.test/a.js"></script>`)),
		body("sri-same-origin", scripts(`<script src="/a.js"></script>`)),
		body("sri-same-origin-integrity", scripts(`<script src="/a.js"`+sri+`></script>`)),
		body("sri-inline-only", scripts(`<script>1</script>`)),
	)

	// Referrer policy.
	sites = append(sites,
		variant("referrer-unsafe-url", set("Referrer-Policy", "unsafe-url")),
		variant("referrer-invalid", set("Referrer-Policy", "sometimes")),
		variant("referrer-fallback-list", set("Referrer-Policy", "no-referrer, unknown-value")),
		variant("referrer-last-wins", set("Referrer-Policy", "no-referrer, unsafe-url")),
		variant("referrer-missing", set("Referrer-Policy")),
		site{name: "referrer-meta", variant: true, hdr: with(perfect(), set("Referrer-Policy")),
			body: `<!doctype html><html><head><meta name="referrer" content="strict-origin"><title>x</title></head><body>ok</body></html>`},
	)

	// Cross-origin policies, with case variants.
	for _, v := range []string{"same-origin", "Same-Origin", "same-site", "SAME-SITE", "cross-origin", "bogus"} {
		sites = append(sites, variant("corp-"+strings.ToLower(v)+caseTag(v), set("Cross-Origin-Resource-Policy", v)))
	}
	for _, v := range []string{"Same-Origin", "unsafe-none", "bogus"} {
		sites = append(sites, variant("coop-"+strings.ToLower(v)+caseTag(v), set("Cross-Origin-Opener-Policy", v)))
	}
	for _, v := range []string{"Require-Corp", "credentialless", "bogus"} {
		sites = append(sites, variant("coep-"+strings.ToLower(v)+caseTag(v), set("Cross-Origin-Embedder-Policy", v)))
	}

	// HSTS.
	sites = append(sites,
		variant("hsts-missing", set("Strict-Transport-Security")),
		variant("hsts-short", set("Strict-Transport-Security", "max-age=86400")),
		variant("hsts-exactly-six-months", set("Strict-Transport-Security", "max-age=15552000")),
		variant("hsts-no-max-age", set("Strict-Transport-Security", "includeSubDomains")),
		variant("hsts-twice", set("Strict-Transport-Security", "max-age=63072000", "max-age=300")),
		variant("hsts-duplicate-includesubdomains", set("Strict-Transport-Security", "max-age=63072000; includeSubDomains; includeSubDomains")),
		variant("hsts-quoted", set("Strict-Transport-Security", `max-age="63072000"`)),
		variant("hsts-preload-directive", set("Strict-Transport-Security", "max-age=63072000; includeSubDomains; preload")),
	)

	// X-Frame-Options and X-Content-Type-Options without CSP frame-ancestors.
	noFA := "default-src 'none'; form-action 'self'"
	sites = append(sites,
		variant("xfo-deny", csp(noFA)),
		variant("xfo-sameorigin", func(h http.Header) { csp(noFA)(h); h.Set("X-Frame-Options", "sameorigin") }),
		variant("xfo-allow-from", func(h http.Header) { csp(noFA)(h); h.Set("X-Frame-Options", "ALLOW-FROM https://a.test/") }),
		variant("xfo-invalid", func(h http.Header) { csp(noFA)(h); h.Set("X-Frame-Options", "maybe") }),
		variant("xfo-missing", func(h http.Header) { csp(noFA)(h); h.Del("X-Frame-Options") }),
		variant("xcto-missing", set("X-Content-Type-Options")),
		variant("xcto-invalid", set("X-Content-Type-Options", "sniff")),
	)

	// Redirect chains of 1 to 10 hops.
	for n := 1; n <= 10; n++ {
		sites = append(sites, site{name: fmt.Sprintf("redirect-%d-hops", n), hdr: perfect(), hops: n})
	}

	// Hosts on the HSTS preload list (under .dev, listed with its
	// subdomains): the list's bonus, with and without a header of their
	// own, and the cookie test that reads HSTS.
	sites = append(sites,
		preloaded(variant("perfect", func(http.Header) {})),
		preloaded(variant("hsts-missing", set("Strict-Transport-Security"))),
		preloaded(variant("hsts-short", set("Strict-Transport-Security", "max-age=86400"))),
		preloaded(variant("cookie-no-secure", func(h http.Header) {
			set("Strict-Transport-Security", "max-age=86400")(h)
			h.Set("Set-Cookie", "theme=dark; Path=/; SameSite=Lax")
		})),
	)
	return sites
}

// preloaded serves s, renamed, under the preloaded fixture domain.
func preloaded(s site) site {
	s.name, s.preloaded = "preloaded-"+s.name, true
	return s
}

// caseTag keeps fixture names unique across case variants.
func caseTag(v string) string {
	if v == strings.ToLower(v) {
		return ""
	}
	return "-mixedcase"
}

func with(h http.Header, changes ...func(http.Header)) http.Header {
	for _, c := range changes {
		c(h)
	}
	return h
}
