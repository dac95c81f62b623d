package cli

import (
	"bytes"
	"os"
	"path/filepath"
	"sync"
	"testing"
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
