// Package auth authenticates hosted MCP requests with bearer JWTs and carries
// the resulting identity to tool handlers.
//
// The request path is:
//
//  1. [Verifier.Middleware] takes exactly one "Authorization: Bearer <token>"
//     header, verifies the token and puts a [Principal] in the request
//     context. Missing, malformed and rejected credentials get RFC 6750
//     challenges (401 or 400); a token that lacks a required scope gets 403
//     insufficient_scope; a key set that cannot be evaluated gets 503 with
//     Retry-After. An optional Config.CheckCredential refuses revoked
//     credentials (401) and fails closed (503) when it cannot answer.
//     Nothing is admitted on error.
//  2. Handlers read the identity with [PrincipalFrom]. Identity never comes
//     from client headers, and the token goes no further: the middleware
//     removes the Authorization header before the next handler, [Principal]
//     has no token field and errors carry no token text.
//  3. The tool layer asks [Principal.Entitled] (or [Principal.CheckEntitled])
//     whether the credential may call a tool, and answers the tool-level
//     error "forbidden: credential lacks the <tool> entitlement" when it may
//     not.
//
// Token verification accepts RS256 and ES256 only. The algorithm is bound to
// the key found by the token's required "kid" in the JWKS; the header's "alg"
// must agree with it and never selects it. Headers that would pull keys from
// elsewhere (jku, x5u, jwk, x5c) or demand unknown processing (crit, b64, zip,
// enc, cty) are refused, as are duplicate JSON members, oversized tokens, weak
// RSA keys and malformed ECDSA signatures. Keys come from a JWKS URL or file,
// cached, refreshed periodically and on an unknown kid at a bounded rate, and
// refused once older than a maximum staleness.
//
// The JOSE work is go-jose's (github.com/go-jose/go-jose/v4): it parses the
// token under the RS256/ES256 allowlist, verifies the signature, reads JWKs
// and checks iss, aud and the time window. A strict layer of ours wraps it
// where the library is lenient or our policy asks for more: size caps and a
// canonical base64url check before any decoding, a header pre-parse (kid
// required, duplicate members and key-fetching or processing headers
// refused), the key policy, the claims policy (exp and iat required,
// maximum lifetime, normalized aud, configurable identity claims, no
// duplicate members), the key-set cache and the verified-token cache.
//
// For a fresh machine, [LoadOrCreateLocalKey] creates an ES256 signing key in a
// state directory, and the returned [LocalIssuer] mints tokens, serves its
// JWKS and builds a [Verifier] that trusts it.
//
// [Verifier.ProtectedResourceMetadata] serves the RFC 9728 document that MCP
// clients use to find the authorization server.
package auth
