// Package localas is the OAuth 2.1 authorization server of a Warden that
// serves one person on loopback (the local profile), so that MCP clients
// connect without a pasted token: the client finds it through RFC 9728
// and RFC 8414 metadata, registers itself (RFC 7591), sends the person's
// browser to a consent page that names it and the tools it will reach,
// and exchanges the code (PKCE S256 only) for a short-lived access token
// and a refresh token that rotates on every use. Revocation is RFC 7009.
//
// The protocol is fosite's (github.com/ory/fosite): request parsing and
// validation, redirect URI matching (RFC 8252 loopback ports included),
// the authorization code grant with PKCE, single-use codes, the refresh
// grant with rotation and reuse detection (a rotated refresh token used
// again revokes its whole grant), and revocation. This package adds what
// fosite leaves to the application and hides fosite's types from the rest
// of Warden: the metadata document, registration with its bounds and
// redirect URI policy, the consent page with its Host, Origin and
// consent-token checks, the resource indicator, and the records in an
// [asstore.Store].
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
