package safehttp

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"slices"
	"testing"
)

// AllowPrivate and AllowPorts widen the policy for one person's own site
// and nothing more: metadata stays refused, and each option lifts only its
// own refusal.
func TestAllowPrivateAndPorts(t *testing.T) {
	res := newFakeResolver().
		set("example.com", "93.184.215.14").
		set("localhost", "127.0.0.1,::1").
		set("dev.internal", "10.1.2.3").
		set("metadata.example.com", "169.254.169.254").
		set("mixed.example.com", "93.184.215.14,192.168.1.10")
	for _, c := range []struct {
		url                       string
		def, private, port3k, all Code // "" = accepted
	}{
		{"http://127.0.0.1/", CodeBlockedIP, "", CodeBlockedIP, ""},
		{"http://127.0.0.1:3000/", CodeBlockedPort, CodeBlockedPort, CodeBlockedIP, ""},
		{"http://localhost:3000/", CodeBlockedPort, CodeBlockedPort, CodeBlockedHostname, ""},
		{"http://localhost/", CodeBlockedHostname, "", CodeBlockedHostname, ""},
		{"http://[::1]:3000/", CodeBlockedPort, CodeBlockedPort, CodeBlockedIP, ""},
		{"http://10.0.0.1/", CodeBlockedIP, "", CodeBlockedIP, ""},
		{"http://dev.internal/", CodeBlockedHostname, "", CodeBlockedHostname, ""},
		{"http://mixed.example.com/", CodeBlockedIP, "", CodeBlockedIP, ""},
		{"http://example.com:3000/", CodeBlockedPort, CodeBlockedPort, "", ""},
		{"http://example.com:8080/", CodeBlockedPort, CodeBlockedPort, CodeBlockedPort, CodeBlockedPort},
		{"http://169.254.169.254/", CodeBlockedIP, CodeBlockedIP, CodeBlockedIP, CodeBlockedIP},
		{"http://metadata.example.com/", CodeBlockedIP, CodeBlockedIP, CodeBlockedIP, CodeBlockedIP},
		{"http://[fd00:ec2::254]/", CodeBlockedIP, CodeBlockedIP, CodeBlockedIP, CodeBlockedIP},
		{"http://0.0.0.0/", CodeBlockedIP, CodeBlockedIP, CodeBlockedIP, CodeBlockedIP},
		{"http://224.0.0.1/", CodeBlockedIP, CodeBlockedIP, CodeBlockedIP, CodeBlockedIP},
	} {
		for _, o := range []struct {
			name string
			opts Options
			want Code
		}{
			{"default", Options{}, c.def},
			{"private", Options{AllowPrivate: true}, c.private},
			{"port 3000", Options{AllowPorts: []uint16{3000}}, c.port3k},
			{"both", Options{AllowPrivate: true, AllowPorts: []uint16{3000}}, c.all},
		} {
			o.opts.Resolver = res
			_, err := New(&o.opts).Validate(context.Background(), c.url)
			if got := ErrorCode(err); got != o.want {
				t.Errorf("%s with %s: %q, want %q", c.url, o.name, got, o.want)
			}
		}
	}
}

// The dial hook applies the widened policy too: a live loopback server on
// a high port is fetched with both options and refused, without a
// connection, with either alone.
func TestAllowPrivateFetchesLoopback(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, "dev site")
	}))
	defer srv.Close()
	port := serverAddrPort(t, srv).Port()
	both := New(&Options{AllowPrivate: true, AllowPorts: []uint16{port}, Resolver: newFakeResolver()})
	resp, err := both.Get(context.Background(), srv.URL+"/", nil)
	if err != nil || string(resp.Body) != "dev site" {
		t.Fatalf("with both options: %v", err)
	}
	for _, opts := range []*Options{{AllowPrivate: true}, {AllowPorts: []uint16{port}}} {
		c, log := newTestClient(opts)
		_, err := c.Get(context.Background(), srv.URL+"/", nil)
		var be *BlockedError
		if !errors.As(err, &be) {
			t.Errorf("%+v: %v, want a BlockedError", opts, err)
		}
		if len(log.list()) != 0 {
			t.Errorf("%+v: connected to %v", opts, log.list())
		}
	}
}

func TestEveryReasonIsDescribed(t *testing.T) {
	for _, r := range []Reason{ReasonPublic, ReasonInvalid, ReasonZone, ReasonUnspecified, ReasonThisNetwork,
		ReasonLoopback, ReasonPrivate, ReasonShared, ReasonLinkLocal, ReasonMetadata, ReasonProtocol,
		ReasonDocumentation, ReasonBenchmarking, ReasonAS112, ReasonAMT, ReasonRelay6to4, ReasonMulticast,
		ReasonBroadcast, ReasonReserved, ReasonIPv4Mapped, ReasonIPv4Compat, ReasonNAT64, Reason6to4,
		ReasonTeredo, ReasonDiscard, ReasonSiteLocal, ReasonSRv6, ReasonNotGlobal, ReasonSpecial,
		ReasonLocalhost, ReasonSingleLabel, ReasonSpecialUseName, ReasonNonICANNTLD, ReasonPortNotAllowed} {
		if _, ok := descriptions[r]; !ok {
			t.Errorf("%s has no description", r)
		}
	}
	if ReasonMetadata.Local() || ReasonUnspecified.Local() || !ReasonLoopback.Local() || !ReasonLocalhost.Local() {
		t.Error("Local() lifts the wrong reasons")
	}
}

type recordingResolver struct{ names []string }

func (r *recordingResolver) LookupNetIP(_ context.Context, _, host string) ([]netip.Addr, error) {
	r.names = append(r.names, host)
	return []netip.Addr{netip.MustParseAddr("127.0.0.1")}, nil
}

// A local name let through by AllowPrivate is looked up as typed, so the
// hosts file answers "localhost" (Go's resolver does not for
// "localhost."); public names stay fully qualified.
func TestAllowPrivateLooksUpLocalNamesAsTyped(t *testing.T) {
	r := &recordingResolver{}
	c := New(&Options{AllowPrivate: true, Resolver: r})
	for _, u := range []string{"http://localhost/", "http://devbox/", "http://app.test/", "http://example.com/"} {
		if _, err := c.Validate(context.Background(), u); err != nil {
			t.Errorf("%s: %v", u, err)
		}
	}
	if want := []string{"localhost", "devbox", "app.test", "example.com."}; !slices.Equal(r.names, want) {
		t.Errorf("looked up %q, want %q", r.names, want)
	}
}
