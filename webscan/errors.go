package webscan

// Error codes of the *errcode.Error values Scan returns. They are stable
// snake_case strings; the message is safe to show to a client, and the
// cause (the SSRF client's blocked-address error, for example) is for logs
// and reachable with errors.Is and errors.As.
const (
	CodeURLTooLong       = "url_too_long"
	CodeInvalidTarget    = "invalid_target"
	CodeInvalidScheme    = "invalid_scheme"
	CodeCredentialsInURL = "credentials_in_url"
	CodeNotConfigured    = "not_configured"
	CodeSiteUnreachable  = "site_unreachable"
	CodeScanCanceled     = "scan_canceled"
)
