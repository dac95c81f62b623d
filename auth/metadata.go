package auth

import (
	"encoding/json"
	"net/http"
)

// MetadataPaths are the paths the RFC 9728 document is served at: the root
// well-known path and, when the resource has a path such as "/mcp", the
// path-suffixed form "/.well-known/oauth-protected-resource/mcp" that MCP
// clients try first.
func (v *Verifier) MetadataPaths() []string {
	paths := []string{wellKnownProtectedResource}
	if p := v.cfg.audience.path; p != "" {
		paths = append(paths, wellKnownProtectedResource+p)
	}
	return paths
}

// ResourceMetadataURL is the absolute URL advertised in challenges.
func (v *Verifier) ResourceMetadataURL() string { return v.cfg.metadataURL }

// Resource is the canonical resource URI tokens must name in "aud".
func (v *Verifier) Resource() string { return v.cfg.Audience }

// ProtectedResourceMetadata returns a handler serving the RFC 9728 document
// for this resource; mount it, without authentication, at every path in
// [Verifier.MetadataPaths]. It answers GET and HEAD, is public
// (Access-Control-Allow-Origin: *) and cacheable for an hour.
//
// Both paths return the same document, whose "resource" is the canonical
// resource URI: this server protects exactly one resource, and a token for
// any other audience would be refused.
func (v *Verifier) ProtectedResourceMetadata() http.Handler {
	doc := struct {
		Resource               string   `json:"resource"`
		AuthorizationServers   []string `json:"authorization_servers"`
		BearerMethodsSupported []string `json:"bearer_methods_supported"`
		ScopesSupported        []string `json:"scopes_supported,omitempty"`
		ResourceName           string   `json:"resource_name,omitempty"`
		ResourceDocumentation  string   `json:"resource_documentation,omitempty"`
	}{
		Resource:               v.cfg.Audience,
		AuthorizationServers:   v.cfg.AuthorizationServers,
		BearerMethodsSupported: []string{"header"},
		ScopesSupported:        v.cfg.ScopesSupported,
		ResourceName:           v.cfg.ResourceName,
		ResourceDocumentation:  v.cfg.ResourceDocumentation,
	}
	body, err := json.Marshal(doc)
	if err != nil { // cannot happen: strings and string slices only
		body = []byte("{}")
	}
	body = append(body, '\n')
	return staticJSON(body, "public, max-age=3600")
}

// staticJSON serves a fixed JSON body to GET and HEAD.
func staticJSON(body []byte, cacheControl string) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			h.Set("Allow", "GET, HEAD")
			http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
			return
		}
		h.Set("Content-Type", "application/json")
		h.Set("Cache-Control", cacheControl)
		h.Set("Access-Control-Allow-Origin", "*")
		h.Set("X-Content-Type-Options", "nosniff")
		if r.Method == http.MethodHead {
			return
		}
		w.Write(body)
	})
}
