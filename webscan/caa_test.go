package webscan

import (
	"context"
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestLookupCAAWalksToTheClosestPolicy(t *testing.T) {
	zone := map[string][]CAARecord{
		"example.com":      {{Tag: "issue", Value: "letsencrypt.org"}, {Tag: "issue", Value: "pki.goog; cansignhttpexchanges=yes"}, {Tag: "iodef", Value: "mailto:caa@example.com"}},
		"shop.example.com": {{Tag: "issue", Value: "digicert.com"}, {Tag: "issuewild", Value: ";"}},
		"locked.example":   {{Tag: "issue", Value: ";"}},
		"odd.example":      {{Critical: true, Tag: "tbs", Value: "x"}, {Tag: "issue", Value: "ca.example"}},
	}
	var asked []string
	lookup := func(_ context.Context, name string) ([]CAARecord, error) {
		asked = append(asked, name)
		if name == "broken.example" {
			return nil, errors.New("the name server answered ServerFailure")
		}
		return zone[name], nil
	}
	for _, c := range []struct {
		host          string
		asked         []string
		domain        string
		issuers, wild []string
		err           string
		findings      []string
	}{
		{"www.example.com", []string{"www.example.com", "example.com"}, "example.com",
			[]string{"letsencrypt.org", "pki.goog"}, []string{"letsencrypt.org", "pki.goog"}, "", nil},
		{"a.b.shop.example.com.", []string{"a.b.shop.example.com", "b.shop.example.com", "shop.example.com"}, "shop.example.com",
			[]string{"digicert.com"}, []string{""}, "", nil},
		{"nothing.example.org", []string{"nothing.example.org", "example.org"}, "", []string{}, []string{}, "", []string{"caa_missing"}},
		{"locked.example", []string{"locked.example"}, "locked.example", []string{""}, []string{""}, "", []string{"caa_issuance_forbidden"}},
		{"odd.example", []string{"odd.example"}, "odd.example", []string{"ca.example"}, []string{"ca.example"}, "", []string{"caa_unknown_critical"}},
		{"www.broken.example", []string{"www.broken.example", "broken.example"}, "", []string{}, []string{}, "the name server answered ServerFailure", nil},
		{"192.0.2.7", nil, "", []string{}, []string{}, "address", nil},
		{"::1", nil, "", []string{}, []string{}, "address", nil},
		{"localhost", nil, "", []string{}, []string{}, "local_name", nil},
		{"site.fx.test", nil, "", []string{}, []string{}, "local_name", nil},
	} {
		asked = nil
		r := lookupCAA(context.Background(), lookup, c.host)
		if diff := cmp.Diff(c.asked, asked); diff != "" {
			t.Errorf("%s: names asked (-want +got):\n%s", c.host, diff)
		}
		if r.Domain != c.domain || r.Error != c.err || r.Tested != (c.err == "") {
			t.Errorf("%s: domain %q error %q tested %v", c.host, r.Domain, r.Error, r.Tested)
		}
		if diff := cmp.Diff(c.issuers, r.Issuers); diff != "" {
			t.Errorf("%s: issuers (-want +got):\n%s", c.host, diff)
		}
		if diff := cmp.Diff(c.wild, r.WildcardIssuers); diff != "" {
			t.Errorf("%s: wildcard issuers (-want +got):\n%s", c.host, diff)
		}
		var ids []string
		for _, f := range caaFindings(r) {
			ids = append(ids, f.ID)
		}
		if diff := cmp.Diff(c.findings, ids); diff != "" {
			t.Errorf("%s: findings (-want +got):\n%s", c.host, diff)
		}
	}
	if r := lookupCAA(context.Background(), nil, "example.com"); r.Tested || r.Error != "not_tested" {
		t.Errorf("no lookup: %+v", r)
	}
}
