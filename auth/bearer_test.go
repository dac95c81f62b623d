package auth

import (
	"bytes"
	"net/http/httptest"
	"strings"
	"testing"
)

func TestBearerToken(t *testing.T) {
	tests := []struct {
		name   string
		target string
		values []string
		token  string
		code   string
		reason string
	}{
		{"plain", "/mcp", []string{"Bearer a.b.c"}, "a.b.c", "", ""},
		{"lower-case scheme", "/mcp", []string{"bearer a.b.c"}, "a.b.c", "", ""},
		{"mixed-case scheme", "/mcp", []string{"bEaReR a.b.c"}, "a.b.c", "", ""},
		{"no header", "/mcp", nil, "", CodeMissingToken, ReasonNoAuthorization},
		{"Basic", "/mcp", []string{"Basic YTpi"}, "", CodeMissingToken, ReasonNotBearer},
		{"scheme glued to more letters", "/mcp", []string{"Bearerx a.b.c"}, "", CodeMissingToken, ReasonNotBearer},
		{"two headers", "/mcp", []string{"Bearer a.b.c", "Bearer a.b.c"}, "", CodeInvalidRequest, ReasonMultipleHeaders},
		{"empty value", "/mcp", []string{""}, "", CodeInvalidRequest, ReasonEmptyCredential},
		{"scheme only", "/mcp", []string{"Bearer"}, "", CodeInvalidRequest, ReasonEmptyCredential},
		{"scheme and a space", "/mcp", []string{"Bearer "}, "", CodeInvalidRequest, ReasonEmptyCredential},
		{"two spaces", "/mcp", []string{"Bearer  a.b.c"}, "", CodeInvalidToken, ReasonMalformedHeader},
		{"tab", "/mcp", []string{"Bearer\ta.b.c"}, "", CodeInvalidToken, ReasonMalformedHeader},
		{"trailing space", "/mcp", []string{"Bearer a.b.c "}, "", CodeInvalidToken, ReasonMalformedHeader},
		{"comma list", "/mcp", []string{"Bearer a.b.c, Bearer d.e.f"}, "", CodeInvalidToken, ReasonMalformedHeader},
		{"padding", "/mcp", []string{"Bearer a.b.c=="}, "", CodeInvalidToken, ReasonMalformedHeader},
		{"token in query", "/mcp?access_token=a.b.c", nil, "", CodeInvalidRequest, ReasonTokenInQuery},
		{"token in query and header", "/mcp?access_token=a.b.c", []string{"Bearer a.b.c"}, "", CodeInvalidRequest, ReasonTokenInQuery},
		{"query word that is not the parameter", "/mcp?q=access_token", []string{"Bearer a.b.c"}, "a.b.c", "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := httptest.NewRequest("POST", tt.target, nil)
			if tt.values != nil {
				r.Header["Authorization"] = tt.values
			}
			tok, e := bearerToken(r)
			if tok != tt.token {
				t.Errorf("token = %q, want %q", tok, tt.token)
			}
			switch {
			case tt.code == "" && e != nil:
				t.Errorf("error %v, want none", e)
			case tt.code != "" && (e == nil || e.Code != tt.code || e.Reason != tt.reason):
				t.Errorf("error %v, want %s (%s)", e, tt.code, tt.reason)
			}
		})
	}
}

// FuzzBearer checks the Authorization parser: it never panics, and any
// token it extracts is one non-empty run of JWS alphabet characters that
// followed a Bearer scheme and one space.
func FuzzBearer(f *testing.F) {
	for _, s := range []string{"Bearer a.b.c", "bearer a.b.c", "Bearer  a.b.c", "Bearer\ta.b.c", "Basic x", "Bearer", "", "Bearer a, Bearer b"} {
		f.Add(s)
	}
	for _, s := range readSeeds(f) {
		f.Add("Bearer " + string(bytes.TrimSpace(s.Data)))
	}
	f.Fuzz(func(t *testing.T, value string) {
		r := httptest.NewRequest("GET", "/mcp", nil)
		r.Header["Authorization"] = []string{value}
		tok, e := bearerToken(r)
		if e != nil {
			if tok != "" {
				t.Fatal("token returned with an error")
			}
			return
		}
		if tok == "" || !strings.EqualFold(value[:7], "Bearer ") || value[7:] != tok {
			t.Fatalf("extracted %q from %q", tok, value)
		}
		for i := 0; i < len(tok); i++ {
			if !isTokenChar(tok[i]) {
				t.Fatalf("extracted %q holds %q", tok, tok[i])
			}
		}
	})
}
