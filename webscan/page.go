package webscan

import (
	"bytes"
	"strings"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// page is what the scanner reads from an HTML document.
type page struct {
	Title         string
	Generator     string
	MetaCSP       []string
	MetaReferrer  []string
	Scripts       []script
	TokensVisited int
}

// script is one <script src> element.
type script struct {
	Src         string
	Integrity   string
	CrossOrigin string
}

// maxHTMLTokens bounds the tokenizer work on one page.
const maxHTMLTokens = 200000

// parsePage tokenizes an HTML document. It never fails: malformed HTML is
// read the way browsers read it, and the token count is bounded.
func parsePage(body []byte) page {
	var p page
	z := html.NewTokenizer(bytes.NewReader(body))
	z.SetMaxBuf(len(body) + 1)
	inTitle := false
	for p.TokensVisited < maxHTMLTokens {
		tt := z.Next()
		p.TokensVisited++
		switch tt {
		case html.ErrorToken:
			return p
		case html.TextToken:
			if inTitle && p.Title == "" {
				p.Title = strings.TrimSpace(string(z.Text()))
				if len(p.Title) > 200 {
					p.Title = p.Title[:200]
				}
			}
		case html.EndTagToken:
			name, _ := z.TagName()
			if atom.Lookup(name) == atom.Title {
				inTitle = false
			}
		case html.StartTagToken, html.SelfClosingTagToken:
			name, hasAttr := z.TagName()
			a := atom.Lookup(name)
			switch a {
			case atom.Title:
				inTitle = tt == html.StartTagToken
			case atom.Meta, atom.Script:
				attrs := map[string]string{}
				for hasAttr {
					var k, v []byte
					k, v, hasAttr = z.TagAttr()
					key := string(k)
					if _, dup := attrs[key]; !dup {
						attrs[key] = string(v)
					}
				}
				if a == atom.Script {
					if src, ok := attrs["src"]; ok {
						p.Scripts = append(p.Scripts, script{Src: strings.TrimSpace(src), Integrity: attrs["integrity"], CrossOrigin: attrs["crossorigin"]})
					}
					continue
				}
				switch strings.ToLower(attrs["http-equiv"]) {
				case "content-security-policy":
					p.MetaCSP = append(p.MetaCSP, attrs["content"])
				}
				switch strings.ToLower(attrs["name"]) {
				case "generator":
					if p.Generator == "" {
						p.Generator = truncate(attrs["content"], 200)
					}
				case "referrer":
					p.MetaReferrer = append(p.MetaReferrer, attrs["content"])
				}
			}
		}
	}
	return p
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n]
}

// isHTML reports whether a Content-Type names an HTML document.
func isHTML(contentType string) bool {
	ct := strings.ToLower(contentType)
	return strings.HasPrefix(ct, "text/html") || strings.HasPrefix(ct, "application/xhtml+xml")
}
