package auth

import (
	"errors"
	"net/http"
	"time"
)

// Public error codes. They appear in JSON bodies and, for the OAuth ones, in
// the WWW-Authenticate error parameter. They never change meaning.
const (
	// CodeMissingToken: no bearer credential was presented (401, and the
	// challenge carries no error parameter, RFC 6750 §3.1).
	CodeMissingToken = "missing_token"
	// CodeInvalidRequest: the Authorization header or the request is
	// malformed in a way that is not about the token itself (400).
	CodeInvalidRequest = "invalid_request"
	// CodeInvalidToken: a token was presented and rejected (401).
	CodeInvalidToken = "invalid_token"
	// CodeInsufficientScope: the token is valid but lacks a scope the
	// endpoint requires (403).
	CodeInsufficientScope = "insufficient_scope"
	// CodeKeySetUnavailable: the signing keys cannot be evaluated, because
	// the JWKS was never loaded or is older than the maximum staleness (503
	// with Retry-After). The token was not judged; clients should retry
	// with the same token.
	CodeKeySetUnavailable = "key_set_unavailable"
	// CodeCredentialCheckUnavailable: Config.CheckCredential could not
	// answer (its store is down or slow); 503 with Retry-After, nothing
	// admitted.
	CodeCredentialCheckUnavailable = "credential_check_unavailable"
)

// ErrCredentialRejected is what Config.CheckCredential wraps to refuse a
// credential (unknown, revoked, suspended): the request gets 401
// invalid_token.
var ErrCredentialRejected = errors.New("credential rejected")

// Reasons say why a credential was refused. They are stable snake_case
// values for logs, metrics and tests; they are not sent to clients, who see
// only the public code.
const (
	ReasonNoAuthorization    = "no_authorization"
	ReasonNotBearer          = "not_bearer_scheme"
	ReasonMultipleHeaders    = "multiple_authorization_headers"
	ReasonEmptyCredential    = "empty_credential"
	ReasonTokenInQuery       = "token_in_query"
	ReasonMalformedHeader    = "malformed_authorization"
	ReasonTokenTooLarge      = "token_too_large"
	ReasonMalformedToken     = "malformed_token"
	ReasonMalformedJOSE      = "malformed_jose_header"
	ReasonDuplicateMember    = "duplicate_json_member"
	ReasonAlgNotAllowed      = "alg_not_allowed"
	ReasonMissingKID         = "missing_kid"
	ReasonHeaderNotAllowed   = "header_not_allowed"
	ReasonCritUnsupported    = "crit_unsupported"
	ReasonTypeNotAccepted    = "typ_not_accepted"
	ReasonUnknownKID         = "unknown_kid"
	ReasonKeyRejected        = "key_rejected"
	ReasonAlgKeyMismatch     = "alg_key_mismatch"
	ReasonBadSignature       = "bad_signature"
	ReasonMalformedClaims    = "malformed_claims"
	ReasonIssuerMismatch     = "issuer_mismatch"
	ReasonAudienceMismatch   = "audience_mismatch"
	ReasonMissingExpiry      = "missing_exp"
	ReasonMissingIssuedAt    = "missing_iat"
	ReasonExpired            = "token_expired"
	ReasonNotYetValid        = "token_not_yet_valid"
	ReasonIssuedInFuture     = "iat_in_future"
	ReasonLifetimeTooLong    = "lifetime_too_long"
	ReasonMissingCredential  = "missing_credential"
	ReasonMissingTenant      = "missing_tenant"
	ReasonInvalidClaim       = "invalid_claim"
	ReasonInsufficientScope  = "insufficient_scope"
	ReasonCredentialRejected = "credential_rejected"
	ReasonCredentialCheck    = "credential_check_failed"
	ReasonKeySetNeverLoaded  = "key_set_never_loaded"
	ReasonKeySetStale        = "key_set_stale"
)

// Error is a refused or unevaluable credential. Code and Status are what the
// client sees; Reason is for operators. An Error never contains token text.
type Error struct {
	Code       string        // public code, one of the Code constants
	Reason     string        // stable detail, one of the Reason constants
	Status     int           // HTTP status the middleware answers with
	RetryAfter time.Duration // for 503 answers; zero otherwise
	cause      error         // operator detail (fetch errors and the like)
	expiredAt  time.Time     // the token's exp, for ReasonExpired
}

func (e *Error) Error() string {
	msg := "auth: " + e.Code + " (" + e.Reason + ")"
	if e.cause != nil {
		msg += ": " + e.cause.Error()
	}
	return msg
}

// Unwrap returns the operator-facing cause, if any.
func (e *Error) Unwrap() error { return e.cause }

// Is matches another *Error by Code and Reason, so callers can test
// errors.Is(err, &auth.Error{Code: auth.CodeInvalidToken, Reason: auth.ReasonExpired}).
// An empty Reason in the target matches any reason.
func (e *Error) Is(target error) bool {
	t, ok := target.(*Error)
	if !ok {
		return false
	}
	return t.Code == e.Code && (t.Reason == "" || t.Reason == e.Reason)
}

// publicMessage is the short text sent in error_description and JSON bodies.
func (e *Error) publicMessage() string {
	switch e.Code {
	case CodeMissingToken:
		return "a bearer token is required"
	case CodeInvalidRequest:
		return "the authorization request is malformed"
	case CodeInvalidToken:
		return "the access token is invalid or expired"
	case CodeInsufficientScope:
		return "the access token lacks a required scope"
	case CodeKeySetUnavailable:
		return "token signing keys are unavailable; retry later"
	case CodeCredentialCheckUnavailable:
		return "the credential cannot be checked now; retry later"
	}
	return "authentication failed"
}

func invalidToken(reason string) *Error {
	return &Error{Code: CodeInvalidToken, Reason: reason, Status: http.StatusUnauthorized}
}

func invalidRequest(reason string) *Error {
	return &Error{Code: CodeInvalidRequest, Reason: reason, Status: http.StatusBadRequest}
}

func missingToken(reason string) *Error {
	return &Error{Code: CodeMissingToken, Reason: reason, Status: http.StatusUnauthorized}
}

func keySetUnavailable(reason string, retry time.Duration, cause error) *Error {
	return &Error{Code: CodeKeySetUnavailable, Reason: reason, Status: http.StatusServiceUnavailable, RetryAfter: retry, cause: cause}
}
