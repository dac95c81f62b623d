// Package localas is the OAuth 2.1 authorization server of a Warden that
// serves one person on loopback (the local profile), so that MCP clients
// connect without a pasted token: the client finds it through RFC 9728
// and RFC 8414 metadata, registers itself (RFC 7591), sends the person's
// browser to a consent page that names it and the tools it will reach,
// and exchanges the code (PKCE S256 only) for a short-lived access token
// and a refresh token that rotates on every use. Revocation is RFC 7009.
//
// The grants are this package's own, and deliberately narrow (see
// docs/DEPENDENCIES.md): the authorization code grant with PKCE S256
// required, the refresh grant, and RFC 7009 revocation, nothing else.
// Redirect URIs match exactly, except that a loopback http redirect may
// change its port (RFC 8252 §7.3). A state of any length, or none, is
// returned as sent (OAuth 2.1: PKCE binds the code). A code redeems
// once, and a second use revokes the tokens issued from it; each refresh
// rotates the refresh token, and a rotated one used again revokes the
// whole grant. Redemption, rotation and revocation are serialized, so
// that two requests with one code or one refresh token cannot both win.
// Codes and refresh tokens are 32 random bytes with their HMAC under a
// secret derived from the signing key; records are keyed by the HMAC, in
// an [asstore.Store], so the store never holds a usable token. The
// package also serves the metadata document, registration with its
// bounds and redirect URI policy, and the consent page with its Host,
// Origin and consent-token checks, and enforces the resource indicator.
//
// Access tokens are JWTs from the local signing key ([auth.LocalIssuer]),
// the same kind `warden token` mints, so the MCP endpoint's one verifier
// accepts both. Those minted here carry client_id, and
// [Server.CheckToken], set as the verifier's credential check, admits
// them only while their record lives: revocation and reuse detection end
// them at once.
//
// There is no password: only someone who can reach the loopback listener
// sees the page, and every endpoint refuses a Host header that is not a
// loopback name on the server's port (DNS rebinding).
package localas
