// Package jwtinspect reads a JSON Web Token the way a security tester
// does: it decodes the header and the claims without trusting them, lists
// what is worth testing (alg none or HMAC, key references in the header,
// missing or long-lived time claims, missing audience or issuer), states
// the times in human terms, and optionally verifies the signature against
// keys the caller supplies: a PEM key or certificate, a JWKS document or
// an HMAC secret. Nothing is ever fetched: a jku or x5u header is
// reported, not followed.
//
// It knows nothing of MCP: package toolset binds it to util_jwt_inspect.
//
// Bounds: a token of at most MaxTokenBytes, keys and key sets of at most
// MaxKeyBytes with at most MaxKeys keys. Errors are *errcode.Error values
// whose messages never quote the token or a key.
package jwtinspect
