package webscan

import (
	"io"
	"net/http"
	"strings"
	"time"
)

const goodCSP = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'"

const goodPage = `<!doctype html><html><head><title>Example shop</title>
<script src="/static/app.js"></script>
<script src="https://cdn.example.net/lib.js" integrity="sha384-oqVuAfXRKap7fdgcCY5uykM6+R9GqQ8K/uxy9rx7HNQlGYl1kPzQho1wx4JwY8wC" crossorigin="anonymous"></script>
</head><body><h1>Welcome</h1></body></html>`

// goodSite is a well-configured site: strict headers, hardened cookies,
// security.txt, nothing exposed.
func goodSite() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h.Set("Strict-Transport-Security", "max-age=63072000; includeSubDomains; preload")
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("Referrer-Policy", "no-referrer")
		h.Set("Permissions-Policy", "camera=(), microphone=(), geolocation=()")
		h.Set("Cross-Origin-Opener-Policy", "same-origin")
		h.Set("Cross-Origin-Embedder-Policy", "require-corp")
		h.Set("Cross-Origin-Resource-Policy", "same-origin")
		switch r.URL.Path {
		case "/":
			h.Set("Content-Security-Policy", goodCSP)
			h.Set("Content-Type", "text/html; charset=utf-8")
			http.SetCookie(w, &http.Cookie{Name: "__Host-session", Value: "s3cr3t-session-value", Path: "/", Secure: true, HttpOnly: true, SameSite: http.SameSiteLaxMode})
			io.WriteString(w, goodPage)
		case "/.well-known/security.txt":
			h.Set("Content-Type", "text/plain")
			io.WriteString(w, "Contact: mailto:security@example.com\nExpires: "+time.Now().AddDate(0, 6, 0).UTC().Format(time.RFC3339)+"\nPreferred-Languages: en\n")
		case "/robots.txt":
			h.Set("Content-Type", "text/plain")
			io.WriteString(w, "User-agent: *\nDisallow: /search\n")
		default:
			http.NotFound(w, r)
		}
	})
}

// badHeadersSite serves a page with weak headers, leaky banners and a
// CORS policy that reflects any Origin with credentials.
func badHeadersSite() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h.Set("Server", "Apache/2.4.41 (Ubuntu)")
		h.Set("X-Powered-By", "PHP/7.4.3")
		if o := r.Header.Get("Origin"); o != "" {
			h.Set("Access-Control-Allow-Origin", o)
			h.Set("Access-Control-Allow-Credentials", "true")
		}
		switch r.URL.Path {
		case "/":
			h.Set("Content-Security-Policy", "default-src 'self'; script-src 'self' 'unsafe-inline' 'unsafe-eval' http://cdn.example.net")
			h.Set("Content-Type", "text/html")
			h.Add("Set-Cookie", "PHPSESSID=abcdef0123456789; path=/")
			io.WriteString(w, `<html><head><meta name="generator" content="WordPress 6.4.2"><title>Old blog</title>
<script src="http://cdn.example.net/jquery.js"></script></head><body>hi</body></html>`)
		case "/robots.txt":
			io.WriteString(w, "User-agent: *\nDisallow: /admin/\nDisallow: /backup/\nDisallow: /search\n")
		default:
			http.NotFound(w, r)
		}
	})
}

// softNotFound wraps a handler: every path it does not serve answers 200
// with the same HTML page, as many CMSs do.
func softNotFound(files map[string]string, types map[string]string) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if body, ok := files[r.URL.Path]; ok {
			ct := types[r.URL.Path]
			if ct == "" {
				ct = "text/plain"
			}
			w.Header().Set("Content-Type", ct)
			io.WriteString(w, body)
			return
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		io.WriteString(w, "<!doctype html><html><body><h1>Page not found</h1><p>We looked for "+strings.ReplaceAll(r.URL.Path, "<", "")+"</p></body></html>")
	})
}

const gitConfig = "[core]\n\trepositoryformatversion = 0\n\tfilemode = true\n\tbare = false\n[remote \"origin\"]\n\turl = https://deploy:ghp_s3cretT0kenValue@example.com/acme/shop.git\n"

const envFile = "APP_NAME=Shop\nAPP_KEY=base64:c2VjcmV0LWFwcC1rZXktdmFsdWU=\nDB_PASSWORD=hunter2-super-secret\n"

// siteFunc builds a handler from a function that fills headers and
// returns a content type and body ("" for 404).
func siteFunc(fn func(h map[string]string, path string) (ct, body string)) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := map[string]string{}
		ct, body := fn(h, r.URL.Path)
		for k, v := range h {
			w.Header()[k] = []string{v}
		}
		if ct == "" {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", ct)
		io.WriteString(w, body)
	})
}

// goodSiteWith serves the good site's known paths and falls back to
// other for the rest.
func goodSiteWith(other http.Handler) http.Handler {
	good := goodSite()
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/", "/.well-known/security.txt", "/robots.txt":
			good.ServeHTTP(w, r)
		default:
			other.ServeHTTP(w, r)
		}
	})
}
