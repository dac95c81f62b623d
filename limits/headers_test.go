package limits

import (
	"net/http"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func TestSetHeaders(t *testing.T) {
	p := RatePolicy{Limit: 120, Window: 60 * time.Second}
	tests := []struct {
		name string
		d    RateDecision
		want http.Header
	}{
		{
			name: "allowed",
			d:    RateDecision{Allowed: true, Policy: p, Remaining: 119, Reset: 60*time.Second + time.Microsecond},
			want: http.Header{
				"Ratelimit-Policy": {`"transport";q=120;w=60`},
				"Ratelimit":        {`"transport";r=119;t=61`},
			},
		},
		{
			name: "denied rounds retry up",
			d:    RateDecision{Policy: p, RetryAfter: 500 * time.Millisecond, Reset: 500 * time.Millisecond},
			want: http.Header{
				"Ratelimit-Policy": {`"transport";q=120;w=60`},
				"Ratelimit":        {`"transport";r=0;t=1`},
				"Retry-After":      {"1"},
			},
		},
		{
			name: "no policy writes nothing",
			d:    RateDecision{},
			want: http.Header{},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := http.Header{}
			tt.d.SetHeaders(h)
			if diff := cmp.Diff(tt.want, h); diff != "" {
				t.Errorf("headers (-want +got):\n%s", diff)
			}
		})
	}
}

func TestRetryAfterSeconds(t *testing.T) {
	tests := []struct {
		in   time.Duration
		want int64
	}{
		{0, 0}, {-time.Second, 0}, {time.Nanosecond, 1}, {time.Second, 1},
		{time.Second + 1, 2}, {59*time.Second + 999*time.Millisecond, 60},
	}
	for _, tt := range tests {
		if got := RetryAfterSeconds(tt.in); got != tt.want {
			t.Errorf("RetryAfterSeconds(%v) = %d, want %d", tt.in, got, tt.want)
		}
	}
}
