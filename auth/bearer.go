package auth

import (
	"net/http"
	"strings"
)

// bearerToken extracts the token from exactly one Authorization header of
// the form "Bearer <token>": scheme case-insensitive (RFC 9110 §11.1), one
// space, then the token with no white space in or around it. A token in the
// query string is refused even when a header is present, because MCP
// forbids it there and it would otherwise end up in logs.
//
// Another scheme counts as no credential (401 without an error code); a
// malformed Bearer header is a bad request; a token with white space or
// other characters outside the JWS alphabet is a presented but invalid
// token.
func bearerToken(r *http.Request) (string, *Error) {
	if q := r.URL.RawQuery; q != "" && strings.Contains(q, "access_token") && r.URL.Query().Has("access_token") {
		return "", invalidRequest(ReasonTokenInQuery)
	}
	vals := r.Header.Values("Authorization")
	switch len(vals) {
	case 0:
		return "", missingToken(ReasonNoAuthorization)
	case 1:
	default:
		return "", invalidRequest(ReasonMultipleHeaders)
	}
	v := vals[0]
	if v == "" {
		return "", invalidRequest(ReasonEmptyCredential)
	}
	scheme, token, _ := strings.Cut(v, " ")
	if !strings.EqualFold(scheme, "Bearer") {
		if len(scheme) > len("Bearer") && strings.EqualFold(scheme[:len("Bearer")], "Bearer") && !isTokenChar(scheme[len("Bearer")]) {
			return "", invalidToken(ReasonMalformedHeader) // "Bearer\t<tok>" and the like
		}
		return "", missingToken(ReasonNotBearer)
	}
	if token == "" {
		return "", invalidRequest(ReasonEmptyCredential)
	}
	for i := 0; i < len(token); i++ {
		if !isTokenChar(token[i]) {
			return "", invalidToken(ReasonMalformedHeader)
		}
	}
	return token, nil
}

// isTokenChar is the compact JWS alphabet: base64url and '.'.
func isTokenChar(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '-' || c == '_' || c == '.'
}
