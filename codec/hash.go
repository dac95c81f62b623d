package codec

import (
	"crypto/hmac"
	"crypto/md5"  //nolint:gosec // testers identify and compute legacy digests
	"crypto/sha1" //nolint:gosec // likewise
	"crypto/sha256"
	"crypto/sha3"
	"crypto/sha512"
	"encoding/base64"
	"encoding/hex"
	"hash"
	"hash/crc32"
	"slices"
	"strings"
	"unicode"

	"golang.org/x/crypto/blake2b"
	"golang.org/x/crypto/blake2s"

	"github.com/warden-mcp/warden/errcode"
)

// hashAlgo is one digest.
type hashAlgo struct {
	name string
	new  func() hash.Hash
	// keyed: HMAC applies (CRC32 is no cryptographic hash: no HMAC).
	keyed bool
}

func mustBlake(f func([]byte) (hash.Hash, error)) func() hash.Hash {
	return func() hash.Hash {
		h, err := f(nil)
		if err != nil {
			panic(err) // unkeyed BLAKE2 cannot fail
		}
		return h
	}
}

var hashAlgos = []hashAlgo{
	{"md5", md5.New, true},
	{"sha1", sha1.New, true},
	{"sha224", sha256.New224, true},
	{"sha256", sha256.New, true},
	{"sha384", sha512.New384, true},
	{"sha512", sha512.New, true},
	{"sha512_224", sha512.New512_224, true},
	{"sha512_256", sha512.New512_256, true},
	{"sha3_224", func() hash.Hash { return sha3.New224() }, true},
	{"sha3_256", func() hash.Hash { return sha3.New256() }, true},
	{"sha3_384", func() hash.Hash { return sha3.New384() }, true},
	{"sha3_512", func() hash.Hash { return sha3.New512() }, true},
	{"blake2b_256", mustBlake(blake2b.New256), true},
	{"blake2b_384", mustBlake(blake2b.New384), true},
	{"blake2b_512", mustBlake(blake2b.New512), true},
	{"blake2s_256", mustBlake(blake2s.New256), true},
	{"crc32", func() hash.Hash { return crc32.NewIEEE() }, false},
	{"crc32c", func() hash.Hash { return crc32.New(crc32.MakeTable(crc32.Castagnoli)) }, false},
}

// AllHashes names every digest at once in Hash.
const AllHashes = "all"

// HashAlgorithms lists the digest names Hash takes (besides AllHashes).
func HashAlgorithms() []string {
	names := make([]string, len(hashAlgos))
	for i, a := range hashAlgos {
		names[i] = a.name
	}
	return names
}

// Digest is one computed digest.
type Digest struct {
	Algorithm string
	// HMAC says the digest is HMAC-<algorithm> under the given key.
	HMAC   bool
	Hex    string
	Base64 string
}

// Hash digests b with algorithm (or every algorithm, for AllHashes). With
// a key, each digest is an HMAC (RFC 2104) under it; CRC32 takes no key.
// The key is never part of a result or an error.
func Hash(b []byte, algorithm string, key []byte) ([]Digest, error) {
	if len(b) > MaxInput || len(key) > MaxInput {
		return nil, errTooLarge()
	}
	algorithm = normalAlgo(algorithm)
	var algos []hashAlgo
	if algorithm == AllHashes {
		for _, a := range hashAlgos {
			if key == nil || a.keyed {
				algos = append(algos, a)
			}
		}
	} else {
		i := slices.IndexFunc(hashAlgos, func(a hashAlgo) bool { return normalAlgo(a.name) == algorithm })
		if i < 0 {
			return nil, errcode.New(CodeUnknownEncoding, "unknown algorithm; use all or one of "+strings.Join(HashAlgorithms(), ", "))
		}
		algos = hashAlgos[i : i+1]
		if key != nil && !algos[0].keyed {
			return nil, errcode.New(CodeInvalidKey, algorithm+" is a checksum, not a hash HMAC can use; drop the key")
		}
	}
	out := make([]Digest, 0, len(algos))
	for _, a := range algos {
		var h hash.Hash
		if key != nil {
			h = hmac.New(a.new, key)
		} else {
			h = a.new()
		}
		h.Write(b)
		sum := h.Sum(nil)
		out = append(out, Digest{Algorithm: a.name, HMAC: key != nil, Hex: hex.EncodeToString(sum), Base64: base64.StdEncoding.EncodeToString(sum)})
	}
	return out, nil
}

// normalAlgo folds case and drops separators, so that "SHA-256",
// "sha_256", "SHA3-256" and "sha512/256" name what they say.
func normalAlgo(s string) string {
	return strings.Map(func(r rune) rune {
		switch r {
		case '-', '_', '/', ' ':
			return -1
		}
		return unicode.ToLower(r)
	}, s)
}
