package policy

import (
	"crypto/sha256"
	"encoding/hex"
	"strconv"

	"github.com/warden-mcp/warden/auth"
	"github.com/warden-mcp/warden/limits"
)

// CallerKey is the one key every piece of a caller's state and every
// limit is bound to: the issuer, the tenant and the credential together.
// Two tenants whose tokens share a subject are two callers, and so are
// two issuers. The key reads as
//
//	<issuer tag>:<tenant length>:<tenant>:<credential>
//
// where the issuer tag is the first 8 hex digits of the issuer's SHA-256
// (a server trusts one issuer, so the tag only has to tell a changed
// issuer apart) and the tenant's length makes the split unambiguous
// whatever the names contain. A key longer than limits.MaxIDLength is
// replaced by "h:" and the SHA-256 of the three parts.
func CallerKey(p auth.Principal) string {
	cred := credentialOf(p)
	iss := sha256.Sum256([]byte(p.Issuer))
	k := hex.EncodeToString(iss[:4]) + ":" + strconv.Itoa(len(p.Tenant)) + ":" + p.Tenant + ":" + cred
	if len(k) <= limits.MaxIDLength {
		return k
	}
	h := sha256.New()
	for _, part := range []string{p.Issuer, p.Tenant, cred} {
		h.Write([]byte(strconv.Itoa(len(part)) + ":" + part))
	}
	return "h:" + hex.EncodeToString(h.Sum(nil))
}
