package toolset

import (
	"errors"
	"net/netip"
	"net/url"
	"strconv"
	"strings"

	"github.com/warden-mcp/warden/errcode"
	"github.com/warden-mcp/warden/safehttp"
	"github.com/warden-mcp/warden/tool"
	"github.com/warden-mcp/warden/webscan"
)

// siteError maps a fetcher or scanner failure to the tool's codes. The
// message says what was refused and why, in words a client may see: the
// host name or port the caller gave and the kind of address, never an
// address that DNS returned. The cause stays on the error for the log
// and for the command line, which may say more to its own user.
func siteError(err error, rawURL string) *tool.Error {
	if se, ok := safehttp.AsError(err); ok {
		te := &tool.Error{Code: se.Code, Message: se.Message, Cause: err}
		var be *safehttp.BlockedError
		switch {
		case errors.As(err, &be):
			te.Message = blockedMessage(safehttp.Code(se.Code), be)
		case safehttp.Code(se.Code) == safehttp.CodeInvalidScheme:
			if s, ok := SuggestURL(rawURL); ok {
				te.Message = "only http and https URLs are scanned; did you mean " + s + "?"
				te.Details = map[string]any{"suggestion": s}
			}
		}
		return te
	}
	if code := safehttp.ErrorCode(err); code != "" && code != safehttp.Code("scan_failed") {
		return &tool.Error{Code: string(code), Message: "the site could not be scanned: " + string(code), Cause: err}
	}
	if we, ok := errcode.As(err); ok {
		switch we.Code {
		case webscan.CodeURLTooLong, webscan.CodeInvalidTarget, webscan.CodeInvalidScheme, webscan.CodeCredentialsInURL:
			return &tool.Error{Code: we.Code, Message: we.Message, Cause: err}
		}
	}
	return &tool.Error{Code: "scan_failed", Message: "the site could not be scanned", Cause: err}
}

// blockedMessage words a blocked_* refusal for any client.
func blockedMessage(code safehttp.Code, be *safehttp.BlockedError) string {
	switch code {
	case safehttp.CodeBlockedPort:
		port := "the port"
		if be.Port != 0 {
			port = "port " + strconv.Itoa(int(be.Port))
		}
		return port + " is not scanned; Warden's website scans reach ports 80 and 443 only"
	case safehttp.CodeBlockedHostname:
		return be.Host + " is " + be.Reason.Describe() + "; Warden's website scans reach public host names only"
	}
	return "the target's address is " + be.Reason.Describe() +
		"; Warden's website scans never reach private, loopback, link-local or cloud-metadata addresses"
}

// SuggestURL guesses the URL meant by input that lacks a scheme:
// "example.com" means https://example.com, "localhost:3000" means
// http://localhost:3000. It reports false when input has a scheme or no
// plausible host.
func SuggestURL(input string) (string, bool) {
	if len(input) > 256 || strings.ContainsAny(input, " \t\r\n\\") || strings.Contains(input, "://") {
		return "", false
	}
	rest := strings.TrimPrefix(input, "//")
	u, err := url.Parse("http://" + rest)
	if err != nil || u.Host == "" || u.User != nil {
		return "", false
	}
	host := u.Hostname()
	scheme := "https://"
	switch ip, err := netip.ParseAddr(host); {
	case host == "localhost" || strings.HasSuffix(host, ".localhost"):
		scheme = "http://"
	case err == nil:
		if ip.IsLoopback() || ip.IsPrivate() {
			scheme = "http://"
		}
	case !strings.Contains(host, "."):
		return "", false // a single word is more likely a typo than a host
	}
	return scheme + rest, true
}
