package webscan

import (
	"errors"
	"strconv"
	"strings"
)

// HSTS is a parsed Strict-Transport-Security header (RFC 6797 §6.1).
type HSTS struct {
	MaxAge            int64
	IncludeSubDomains bool
	Preload           bool
}

// hstsSixMonths is the Observatory's threshold, 180 days in seconds.
const hstsSixMonths = 15552000

var (
	errHSTSMultiple = errors.New("header sent more than once")
	errHSTSNoMaxAge = errors.New("max-age missing")
	errHSTSBadAge   = errors.New("max-age is not a non-negative integer")
	errHSTSRepeated = errors.New("directive repeated")
	errHSTSTooLong  = errors.New("header too long")
)

// ParseHSTS parses the Strict-Transport-Security values of one response.
// More than one value (or a comma-joined value) is invalid, as is a missing
// or malformed max-age or a repeated directive.
func ParseHSTS(values []string) (HSTS, error) {
	var h HSTS
	if len(values) != 1 || strings.Contains(values[0], ",") {
		return h, errHSTSMultiple
	}
	v := values[0]
	if len(v) > 1024 {
		return h, errHSTSTooLong
	}
	seen := map[string]bool{}
	haveAge := false
	for part := range strings.SplitSeq(v, ";") {
		part = strings.TrimSpace(part)
		if part == "" {
			continue
		}
		name, val, hasVal := strings.Cut(part, "=")
		name = strings.ToLower(strings.TrimSpace(name))
		if seen[name] {
			return h, errHSTSRepeated
		}
		seen[name] = true
		switch name {
		case "max-age":
			val = strings.Trim(strings.TrimSpace(val), `"`)
			if !hasVal || val == "" {
				return h, errHSTSBadAge
			}
			n, err := strconv.ParseInt(val, 10, 64)
			if err != nil || n < 0 {
				return h, errHSTSBadAge
			}
			h.MaxAge = n
			haveAge = true
		case "includesubdomains":
			h.IncludeSubDomains = true
		case "preload":
			h.Preload = true
		}
	}
	if !haveAge {
		return h, errHSTSNoMaxAge
	}
	return h, nil
}
