package toolset

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"strings"

	"github.com/warden-mcp/warden/auth"
	"github.com/warden-mcp/warden/viewstore"
)

// A view handle is what bininspect_open returns and every view-scoped
// tool takes as "view": an opaque string that names one open view of one
// caller. It is sealed with AES-256-GCM under a key every replica shares
// (the state directory's view-handle.key), so any replica can open it,
// and it carries
//
//	id (16 bytes) | caller digest (16) | file SHA-256 (32) |
//	load-options digest (8) | opened, Unix µs (8)
//
// behind a version byte. The caller digest binds it to the issuer,
// tenant and credential that opened the view: another caller presenting
// it gets view_not_found, as for a handle that never existed. The row in
// the store must still be live and match every field, so a closed view's
// handle stays dead even if the same file is opened again.
//
// The nonce is derived from the plaintext (an HMAC under a subkey), so a
// view's handle is the same string every time it is listed; GCM's nonce
// is never reused with another plaintext.

const (
	handlePrefix  = "bv1_"
	handleVersion = 1
	handleLen     = 1 + 16 + 16 + 32 + 8 + 8
	handleAAD     = "warden-view-handle-v1"
)

// handles seals and opens view handles, and derives view ids.
type handles struct {
	aead     cipher.AEAD
	nonceKey []byte
	idKey    []byte
}

func newHandles(key []byte) (*handles, error) {
	if len(key) == 0 {
		key = make([]byte, 32)
		_, _ = rand.Read(key)
	}
	if len(key) != 32 {
		return nil, errors.New("bininspect: the view handle key must be 32 bytes")
	}
	sub := func(label string) []byte {
		m := hmac.New(sha256.New, key)
		m.Write([]byte("warden view handle: " + label))
		return m.Sum(nil)
	}
	block, err := aes.NewCipher(sub("seal"))
	if err != nil {
		return nil, err
	}
	aead, err := cipher.NewGCM(block)
	if err != nil {
		return nil, err
	}
	return &handles{aead: aead, nonceKey: sub("nonce"), idKey: sub("id")}, nil
}

// handle is the sealed content.
type handle struct {
	id      [16]byte
	caller  [16]byte
	sha     [32]byte
	options [8]byte
	opened  int64
}

// caller is who a call comes from: the digest views are kept under, the
// tenant grants are kept under, and the digest uploads are charged to.
type caller struct {
	digest     [16]byte
	tenant     string
	credential string // hex digest of issuer, tenant and credential
}

func (c caller) key() string { return hex.EncodeToString(c.digest[:]) }

// callerOf derives a caller from a principal: the issuer, tenant and
// credential (or token id, or subject), as the request path binds calls.
func callerOf(p auth.Principal) caller {
	cred := p.Credential
	if cred == "" {
		cred = p.TokenID
	}
	if cred == "" {
		cred = p.Subject
	}
	d := lengthPrefixed("warden-view-caller", p.Issuer, p.Tenant, cred)
	// Uploads are charged to the same three parts every limit binds (the
	// policy's caller key): the same subject in two tenants is two
	// callers with an allowance each.
	u := lengthPrefixed("warden-upload-caller", p.Issuer, p.Tenant, cred)
	c := caller{tenant: p.Tenant, credential: hex.EncodeToString(u[:16])}
	copy(c.digest[:], d[:16])
	return c
}

// lengthPrefixed hashes parts so that no two lists of parts collide.
func lengthPrefixed(parts ...string) [32]byte {
	h := sha256.New()
	var n [8]byte
	for _, p := range parts {
		binary.BigEndian.PutUint64(n[:], uint64(len(p)))
		h.Write(n[:])
		h.Write([]byte(p))
	}
	var out [32]byte
	copy(out[:], h.Sum(nil))
	return out
}

// viewID is the id of the view a caller gets for a file, load options and
// name: the same inputs give the same view, so opening a file twice
// refreshes one view rather than using up two.
func (h *handles) viewID(c caller, sha string, options []byte, name string) string {
	m := hmac.New(sha256.New, h.idKey)
	for _, p := range [][]byte{c.digest[:], []byte(sha), options, []byte(name)} {
		var n [8]byte
		binary.BigEndian.PutUint64(n[:], uint64(len(p)))
		m.Write(n[:])
		m.Write(p)
	}
	return hex.EncodeToString(m.Sum(nil)[:16])
}

func optionsDigest(options []byte) [8]byte {
	s := sha256.Sum256(options)
	var d [8]byte
	copy(d[:], s[:8])
	return d
}

// seal returns the handle of the stored view v.
func (h *handles) seal(v viewstore.View) (string, error) {
	var hd handle
	if err := decodeHex(hd.id[:], v.ID); err != nil {
		return "", err
	}
	if err := decodeHex(hd.caller[:], v.Caller); err != nil {
		return "", err
	}
	if err := decodeHex(hd.sha[:], v.SHA256); err != nil {
		return "", err
	}
	hd.options = optionsDigest(v.Options)
	hd.opened = v.Opened.UnixMicro()
	plain := make([]byte, 0, handleLen)
	plain = append(plain, handleVersion)
	plain = append(plain, hd.id[:]...)
	plain = append(plain, hd.caller[:]...)
	plain = append(plain, hd.sha[:]...)
	plain = append(plain, hd.options[:]...)
	plain = binary.BigEndian.AppendUint64(plain, uint64(hd.opened))
	m := hmac.New(sha256.New, h.nonceKey)
	m.Write(plain)
	nonce := m.Sum(nil)[:h.aead.NonceSize()]
	out := h.aead.Seal(append([]byte(nil), nonce...), nonce, plain, []byte(handleAAD))
	return handlePrefix + base64.RawURLEncoding.EncodeToString(out), nil
}

var errBadHandle = errors.New("not a view handle of this server")

// open reads a handle. Any failure (not ours, tampered, another key) is
// errBadHandle.
func (h *handles) open(s string) (handle, error) {
	var hd handle
	rest, ok := strings.CutPrefix(s, handlePrefix)
	if !ok || len(rest) > 256 {
		return hd, errBadHandle
	}
	raw, err := base64.RawURLEncoding.DecodeString(rest)
	ns := h.aead.NonceSize()
	if err != nil || len(raw) < ns {
		return hd, errBadHandle
	}
	plain, err := h.aead.Open(nil, raw[:ns], raw[ns:], []byte(handleAAD))
	if err != nil || len(plain) != handleLen || plain[0] != handleVersion {
		return hd, errBadHandle
	}
	p := plain[1:]
	p = p[copy(hd.id[:], p):]
	p = p[copy(hd.caller[:], p):]
	p = p[copy(hd.sha[:], p):]
	p = p[copy(hd.options[:], p):]
	hd.opened = int64(binary.BigEndian.Uint64(p))
	return hd, nil
}

// matches reports whether the stored row is the view the handle names.
func (hd handle) matches(v viewstore.View) bool {
	var sha [32]byte
	if decodeHex(sha[:], v.SHA256) != nil {
		return false
	}
	return sha == hd.sha && optionsDigest(v.Options) == hd.options && v.Opened.UnixMicro() == hd.opened
}

func decodeHex(dst []byte, s string) error {
	b, err := hex.DecodeString(s)
	if err != nil || len(b) != len(dst) {
		return errors.New("bad hex field")
	}
	copy(dst, b)
	return nil
}
