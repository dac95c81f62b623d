package webscan

import (
	"context"
	"net/netip"
	"strings"
	"time"
)

// CAARecord is one Certification Authority Authorization record (RFC
// 8659): which certificate authorities may issue for the domain.
type CAARecord struct {
	// Critical is the issuer-critical flag.
	Critical bool `json:"critical"`
	// Tag is the property: issue, issuewild, iodef, or another.
	Tag string `json:"tag" privacy:"plain"`
	// Value is the property's value (a CA's domain and parameters, or a
	// reporting URL for iodef).
	Value string `json:"value" privacy:"url"`
}

// CAALookupFunc answers a CAA query for exactly one name (no climbing):
// none and no error when the name has no records or does not exist.
type CAALookupFunc func(ctx context.Context, name string) ([]CAARecord, error)

// CAAResult is the domain's CAA policy, found as certificate authorities
// find it (RFC 8659 §3): at the host, or else at the closest parent that
// has CAA records, never at the top-level domain.
type CAAResult struct {
	// Tested is false when no look-up ran (no resolver that can answer
	// CAA queries, or a host that is an address); Error then says why.
	Tested bool `json:"tested"`
	// Domain is where the records were found; empty when none exist.
	Domain string `json:"domain,omitempty" privacy:"host"`
	// Records are the records found there (at most 64).
	Records []CAARecord `json:"records"`
	// Issuers and WildcardIssuers are the CA domains that may issue
	// certificates and wildcard certificates ("" in the list means an
	// empty issue property: no CA may). Wildcards fall back to issue when
	// there is no issuewild.
	Issuers         []string `json:"issuers" privacy:"plain"`
	WildcardIssuers []string `json:"wildcard_issuers" privacy:"plain"`
	// Error is why the look-up did not complete: "not_tested" (no CAA
	// resolver), "address" (the host is an IP address), "local_name" (a
	// name no public CA issues for), "not_https", or the resolver's
	// failure. A failed look-up is never taken as "no records".
	Error string `json:"error,omitempty" privacy:"plain"`
}

// maxCAALabels bounds the names one look-up climbs through, and
// caaWalkTimeout the time all of them take.
const (
	maxCAALabels   = 8
	caaWalkTimeout = 10 * time.Second
)

// localTLDs are the special-use and private top-level names (RFC 6761,
// RFC 6762, ICANN's .internal): no public certificate authority issues
// for them, so their CAA is not looked up.
var localTLDs = map[string]bool{"test": true, "localhost": true, "invalid": true, "local": true, "internal": true, "lan": true}

// lookupCAA walks from host towards the root and returns the first
// non-empty record set, as RFC 8659 §3 describes.
func lookupCAA(ctx context.Context, lookup CAALookupFunc, host string) CAAResult {
	res := CAAResult{Records: []CAARecord{}, Issuers: []string{}, WildcardIssuers: []string{}}
	host = strings.ToLower(strings.TrimSuffix(host, "."))
	if lookup == nil {
		res.Error = "not_tested"
		return res
	}
	if _, err := netip.ParseAddr(strings.Trim(host, "[]")); err == nil {
		res.Error = "address"
		return res
	}
	labels := strings.Split(host, ".")
	if len(labels) < 2 || localTLDs[labels[len(labels)-1]] || strings.HasSuffix(host, ".home.arpa") {
		res.Error = "local_name" // no public CA issues for it
		return res
	}
	ctx, cancel := context.WithTimeout(ctx, caaWalkTimeout)
	defer cancel()
	res.Tested = true
	for i := 0; i < len(labels)-1 && i < maxCAALabels; i++ {
		name := strings.Join(labels[i:], ".")
		recs, err := lookup(ctx, name)
		if err != nil {
			res.Tested, res.Error = false, truncate(err.Error(), 200)
			return res
		}
		if len(recs) == 0 {
			continue
		}
		res.Domain, res.Records = name, recs
		wild := false
		for _, r := range recs {
			ca := caaIssuer(r.Value)
			switch r.Tag {
			case "issue":
				res.Issuers = append(res.Issuers, ca)
			case "issuewild":
				wild = true
				res.WildcardIssuers = append(res.WildcardIssuers, ca)
			}
		}
		if !wild {
			res.WildcardIssuers = append(res.WildcardIssuers, res.Issuers...)
		}
		return res
	}
	return res
}

// caaIssuer is the CA domain of an issue value: the part before any ';'
// parameters, trimmed ("" for a value that names no CA).
func caaIssuer(v string) string {
	ca, _, _ := strings.Cut(v, ";")
	return strings.ToLower(strings.TrimSpace(ca))
}

// caaFindings reports a missing policy, one that blocks every CA, and
// critical properties no CA is required to know.
func caaFindings(r CAAResult) []Finding {
	if !r.Tested {
		return nil
	}
	if len(r.Records) == 0 {
		return []Finding{{ID: "caa_missing", Category: CategoryTLS, Severity: SeverityInfo,
			Title:          "No CAA records",
			Detail:         "Without CAA records any public certificate authority may issue certificates for this domain.",
			Recommendation: "Publish CAA records naming the certificate authorities you use, e.g. example.com. CAA 0 issue \"letsencrypt.org\", and an iodef address for reports."}}
	}
	var f []Finding
	known := map[string]bool{"issue": true, "issuewild": true, "iodef": true, "issuemail": true, "issuevmc": true, "contactemail": true, "contactphone": true}
	for _, rec := range r.Records {
		if rec.Critical && !known[rec.Tag] {
			f = append(f, Finding{ID: "caa_unknown_critical", Category: CategoryTLS, Severity: SeverityLow,
				Title:          "A critical CAA property no CA must know",
				Detail:         "The record " + rec.Tag + " is flagged critical; a certificate authority that does not know it must refuse to issue (RFC 8659 §4.1), so renewals may fail.",
				Evidence:       r.Domain + " CAA 128 " + rec.Tag,
				Recommendation: "Clear the critical flag, or use a property your certificate authority documents."})
			break
		}
	}
	if len(r.Issuers) > 0 && allEmpty(r.Issuers) {
		f = append(f, Finding{ID: "caa_issuance_forbidden", Category: CategoryTLS, Severity: SeverityInfo,
			Title:    "CAA forbids every certificate authority",
			Detail:   "The issue property is empty (\";\"), so no certificate authority may issue for this domain: certificate renewals will fail unless that is intended.",
			Evidence: r.Domain, Recommendation: "Name the certificate authority you use in an issue property."})
	}
	return f
}

func allEmpty(list []string) bool {
	for _, s := range list {
		if s != "" {
			return false
		}
	}
	return true
}
