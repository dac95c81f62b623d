package cli

import (
	"bytes"
	"encoding/base64"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/warden-mcp/warden/statestore"
)

func TestLoadOrCreateKeyIsStableAndPrivate(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "state")
	var wg sync.WaitGroup
	keys := make([][]byte, 8)
	for i := range keys {
		wg.Add(1)
		go func() {
			defer wg.Done()
			k, err := loadOrCreateKey(dir, "fingerprint.key")
			if err != nil {
				t.Error(err)
			}
			keys[i] = k
		}()
	}
	wg.Wait()
	for _, k := range keys[1:] {
		if !bytes.Equal(k, keys[0]) || len(k) != 32 {
			t.Fatal("concurrent first starts disagree on the key")
		}
	}
	fi, err := os.Stat(filepath.Join(dir, "fingerprint.key"))
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("key file mode %v, %v", fi.Mode(), err)
	}
	di, _ := os.Stat(dir)
	if di.Mode().Perm() != 0o700 {
		t.Errorf("state dir mode %v", di.Mode())
	}
	again, _ := loadOrCreateKey(dir, "fingerprint.key")
	if !bytes.Equal(again, keys[0]) {
		t.Error("key changed on reload")
	}
	os.WriteFile(filepath.Join(dir, "bad.key"), []byte("short"), 0o600)
	if _, err := loadOrCreateKey(dir, "bad.key"); err == nil {
		t.Error("a truncated key file was accepted")
	}
}

// A key file that group or others can read is refused, as the signing key
// is: whoever reads the request-state key can forge requestState.
func TestLoadOrCreateKeyRefusesReadableKeys(t *testing.T) {
	dir := t.TempDir()
	for _, name := range []string{"fingerprint.key", "request-state.key"} {
		for _, mode := range []os.FileMode{0o644, 0o640, 0o604, 0o660} {
			path := filepath.Join(dir, name)
			if err := os.WriteFile(path, bytes.Repeat([]byte{7}, 32), 0o600); err != nil {
				t.Fatal(err)
			}
			if err := os.Chmod(path, mode); err != nil {
				t.Fatal(err)
			}
			if _, err := loadOrCreateKey(dir, name); err == nil {
				t.Errorf("%s at mode %v was accepted", name, mode)
			}
		}
	}
}

// Keys shared by replicas: configured keys win; with a shared store, the
// first replica's state-directory key is written and every other replica
// reads it, whatever its own directory holds.
func TestSharedKeys(t *testing.T) {
	st := statestore.NewMemory()
	ctx := t.Context()
	dirA, dirB := t.TempDir(), t.TempDir()
	keyA, err := loadOrCreateKey(dirA, fingerprintKeyName)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := loadOrCreateKey(dirB, fingerprintKeyName); err != nil {
		t.Fatal(err)
	}
	ksA, err := sharedKeys(ctx, Config{StateDir: dirA}, st, true)
	if err != nil || !bytes.Equal(ksA.fingerprint, keyA) {
		t.Fatalf("first replica: %v, key from its directory %v", err, bytes.Equal(ksA.fingerprint, keyA))
	}
	ksB, err := sharedKeys(ctx, Config{StateDir: dirB}, st, true)
	if err != nil || !bytes.Equal(ksB.fingerprint, keyA) {
		t.Errorf("second replica did not read the first's fingerprint key: %v", err)
	}
	for name, pair := range map[string][2][]byte{
		"request-state": {ksA.requestState, ksB.requestState},
		"view-handle":   {ksA.viewHandle, ksB.viewHandle},
		"pseudonym":     {ksA.pseudonym, ksB.pseudonym},
	} {
		if len(pair[0]) != 32 || !bytes.Equal(pair[0], pair[1]) {
			t.Errorf("replicas disagree on the %s key", name)
		}
	}
	conf := bytes.Repeat([]byte{9}, 32)
	ksC, err := sharedKeys(ctx, Config{StateDir: dirA, Keys: KeysConfig{RequestState: base64.StdEncoding.EncodeToString(conf),
		ViewHandle: base64.StdEncoding.EncodeToString(conf)}}, st, true)
	if err != nil || !bytes.Equal(ksC.requestState, conf) || !bytes.Equal(ksC.viewHandle, conf) {
		t.Errorf("configured keys: %v", err)
	}
	if _, err := sharedKeys(ctx, Config{Keys: KeysConfig{Pseudonym: "c2hvcnQ="}}, st, true); err == nil {
		t.Error("a short configured key was accepted")
	}
	if ks, err := sharedKeys(ctx, Config{StateDir: dirA}, st, false); err != nil || ks.requestState != nil || ks.fingerprint != nil || ks.viewHandle != nil || ks.pseudonym != nil {
		t.Errorf("embedded store: keys come from the state directory: %+v %v", ks, err)
	}
}
