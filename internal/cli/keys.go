package cli

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/warden-mcp/warden/statestore"
)

// The keys every replica must share: the request-state key seals the
// requestState of input rounds (an input round started on one replica is
// finished on another), the fingerprint key keys KeySweep's fingerprints
// (equal secrets get equal fingerprints wherever they are found), the
// view-handle key seals binary view handles (a view opened on one replica
// is used on another), and the pseudonym key keys strict privacy's
// pseudonyms (equal values get equal pseudonyms everywhere). They come
// from, in order:
//
//  1. the configuration (keys.request_state, keys.fingerprint,
//     keys.view_handle, keys.pseudonym, or WARDEN_REQUEST_STATE_KEY,
//     WARDEN_FINGERPRINT_KEY, WARDEN_VIEW_HANDLE_KEY,
//     WARDEN_PSEUDONYM_KEY): base64 of 32 bytes;
//  2. with a PostgreSQL store, the store: the first replica to start
//     writes the key (the one in its state directory if it has one, so a
//     deployment that copied key files keeps its fingerprints; else a new
//     random one) and every other replica reads it;
//  3. the state directory's files (embedded store), as before.

const (
	requestStateKeyName = "request-state.key"
	fingerprintKeyName  = "fingerprint.key"
	viewHandleKeyName   = "view-handle.key"
	pseudonymKeyName    = "pseudonym.key"
)

// KeysConfig gives the shared keys explicitly.
type KeysConfig struct {
	// Each is base64 (standard or URL, padded or not) of 32 random
	// bytes.
	RequestState string `yaml:"request_state"`
	Fingerprint  string `yaml:"fingerprint"`
	ViewHandle   string `yaml:"view_handle"`
	Pseudonym    string `yaml:"pseudonym"`
}

// keySet are the shared keys a server was given; a nil key falls back to
// the state directory's file of that name.
type keySet struct {
	requestState, fingerprint, viewHandle, pseudonym []byte
}

// key returns the given key, or the state directory's file of that name
// (made on first use), or nil without a state directory.
func (k keySet) key(given []byte, stateDir, name string) ([]byte, error) {
	if given != nil || stateDir == "" {
		return given, nil
	}
	return loadOrCreateKey(stateDir, name)
}

// decodeKey reads a configured key.
func decodeKey(field, v string) ([]byte, error) {
	v = strings.TrimSpace(v)
	for _, enc := range []*base64.Encoding{base64.StdEncoding, base64.RawStdEncoding, base64.URLEncoding, base64.RawURLEncoding} {
		if b, err := enc.DecodeString(v); err == nil {
			if len(b) != 32 {
				return nil, fmt.Errorf("%s: want 32 bytes, found %d", field, len(b))
			}
			return b, nil
		}
	}
	return nil, fmt.Errorf("%s: not base64", field)
}

// sharedKeys resolves the shared keys (nil: the caller falls back to the
// state directory's files).
func sharedKeys(ctx context.Context, cfg Config, st statestore.Store, shared bool) (keySet, error) {
	var ks keySet
	for _, k := range []struct {
		field, conf, name string
		dst               *[]byte
	}{
		{"keys.request_state", cfg.Keys.RequestState, requestStateKeyName, &ks.requestState},
		{"keys.fingerprint", cfg.Keys.Fingerprint, fingerprintKeyName, &ks.fingerprint},
		{"keys.view_handle", cfg.Keys.ViewHandle, viewHandleKeyName, &ks.viewHandle},
		{"keys.pseudonym", cfg.Keys.Pseudonym, pseudonymKeyName, &ks.pseudonym},
	} {
		var err error
		switch {
		case k.conf != "":
			if *k.dst, err = decodeKey(k.field, k.conf); err != nil {
				return keySet{}, err
			}
		case shared:
			if *k.dst, err = storeKey(ctx, st, cfg.StateDir, k.name); err != nil {
				return keySet{}, fmt.Errorf("%s from the store: %w", k.name, err)
			}
		}
	}
	return ks, nil
}

// storeKey reads the key named name from the store, writing it first if
// no replica has: the state directory's key file if there is one, else a
// new random key.
func storeKey(ctx context.Context, st statestore.Store, dir, name string) ([]byte, error) {
	now := time.Now()
	if r, err := st.GetState(ctx, "key", name, now); err == nil {
		if len(r.Data) != 32 {
			return nil, fmt.Errorf("stored key of %d bytes", len(r.Data))
		}
		return r.Data, nil
	} else if !errors.Is(err, statestore.ErrNotFound) {
		return nil, err
	}
	candidate, err := readPrivateFile(dir + "/" + name)
	if err != nil || len(candidate) != 32 {
		candidate = make([]byte, 32)
		if _, err := rand.Read(candidate); err != nil {
			return nil, err
		}
	}
	never := time.Date(9999, 1, 1, 0, 0, 0, 0, time.UTC)
	if _, err := st.PutState(ctx, statestore.Record{Kind: "key", ID: name, Data: candidate, Expires: never}); err == nil {
		return candidate, nil
	} else if !errors.Is(err, statestore.ErrConflict) {
		return nil, err
	}
	r, err := st.GetState(ctx, "key", name, now) // another replica won the race
	if err != nil {
		return nil, err
	}
	return r.Data, nil
}
