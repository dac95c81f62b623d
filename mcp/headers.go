package mcp

import (
	"encoding/base64"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/warden-mcp/warden/internal/jsonwalk"
)

// decodeHeaderValue decodes a mirrored header value. A value of the form
// =?base64?...?= is strict, padded standard Base64 of UTF-8 text; any
// other value is taken literally.
func decodeHeaderValue(v string) (string, bool) {
	inner, ok := strings.CutPrefix(v, "=?base64?")
	if !ok {
		return v, true
	}
	inner, ok = strings.CutSuffix(inner, "?=")
	if !ok {
		return v, true
	}
	b, err := base64.StdEncoding.Strict().DecodeString(inner)
	if err != nil || !utf8.Valid(b) {
		return "", false
	}
	return string(b), true
}

// headerEquals compares a decoded header value with a raw JSON argument:
// strings as they are, integers numerically, booleans as true/false.
func headerEquals(kind, header string, raw []byte) bool {
	switch kind {
	case "integer":
		hv, err := strconv.ParseInt(header, 10, 64)
		if err != nil {
			return false
		}
		f, err := strconv.ParseFloat(string(raw), 64)
		return err == nil && f == float64(hv)
	case "boolean":
		return (header == "true" || header == "false") && header == string(raw)
	default:
		s, ok := jsonwalk.Unquote(raw)
		return ok && jsonwalk.Kind(raw) == "string" && s == header
	}
}
