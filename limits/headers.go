package limits

import (
	"net/http"
	"strconv"
	"time"
)

// RetryAfterSeconds rounds d up to whole seconds, as Retry-After
// (RFC 9110 §10.2.3) carries delay-seconds. Positive durations give at
// least 1; zero or negative give 0.
func RetryAfterSeconds(d time.Duration) int64 {
	if d <= 0 {
		return 0
	}
	return int64((d + time.Second - 1) / time.Second)
}

// PolicyName is the name the transport policy carries in the RateLimit and
// RateLimit-Policy header fields.
const PolicyName = "transport"

// SetHeaders writes the rate-limit header fields for d into h:
//
//	RateLimit-Policy: "transport";q=<limit>;w=<window seconds>
//	RateLimit: "transport";r=<remaining>;t=<reset seconds>
//	Retry-After: <seconds>            (only when denied)
//
// RateLimit and RateLimit-Policy follow draft-ietf-httpapi-ratelimit-headers
// (structured fields); they carry no partition key, so they never reveal a
// credential id. Seconds are rounded up.
func (d RateDecision) SetHeaders(h http.Header) {
	if d.Policy.Limit <= 0 {
		return
	}
	w := RetryAfterSeconds(d.Policy.Window)
	h.Set("RateLimit-Policy", `"`+PolicyName+`";q=`+strconv.Itoa(d.Policy.Limit)+";w="+strconv.FormatInt(w, 10))
	h.Set("RateLimit", `"`+PolicyName+`";r=`+strconv.Itoa(d.Remaining)+";t="+strconv.FormatInt(RetryAfterSeconds(d.Reset), 10))
	if !d.Allowed {
		h.Set("Retry-After", strconv.FormatInt(max(1, RetryAfterSeconds(d.RetryAfter)), 10))
	}
}

// SetRetryAfter writes Retry-After for a refusal err returned by this
// package (a denial or an unavailable control). It does nothing when err is
// not such a refusal or carries no hint.
func SetRetryAfter(h http.Header, err error) {
	e := find(err)
	if e == nil || e.RetryAfter <= 0 {
		return
	}
	h.Set("Retry-After", strconv.FormatInt(RetryAfterSeconds(e.RetryAfter), 10))
}
