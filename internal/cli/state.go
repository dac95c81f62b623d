package cli

import (
	"crypto/rand"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
)

// defaultStateDir is where warden keeps its embedded state: the keys it
// makes on first start and the embedded database. WARDEN_STATE_DIR wins,
// then $XDG_STATE_HOME/warden, then ~/.local/state/warden.
func defaultStateDir() string {
	if d := os.Getenv("WARDEN_STATE_DIR"); d != "" {
		return d
	}
	if d := os.Getenv("XDG_STATE_HOME"); d != "" {
		return filepath.Join(d, "warden")
	}
	if home, err := os.UserHomeDir(); err == nil {
		return filepath.Join(home, ".local", "state", "warden")
	}
	return ".warden-state"
}

// ensureStateDir creates the state directory, readable by its owner only.
func ensureStateDir(dir string) error {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("state directory: %w", err)
	}
	// An existing directory is tightened too: it holds keys.
	if err := os.Chmod(dir, 0o700); err != nil {
		return fmt.Errorf("state directory: %w", err)
	}
	return nil
}

// loadOrCreateKey returns the 32-byte key stored in dir/name, creating it
// (mode 0600) on first use. Two processes starting at once agree on one
// key: creation is exclusive, and the loser reads the winner's file.
func loadOrCreateKey(dir, name string) ([]byte, error) {
	if err := ensureStateDir(dir); err != nil {
		return nil, err
	}
	path := filepath.Join(dir, name)
	for attempt := 0; attempt < 3; attempt++ {
		b, err := readPrivateFile(path)
		if err == nil {
			if len(b) != 32 {
				return nil, fmt.Errorf("key file %s: want 32 bytes, found %d", name, len(b))
			}
			return b, nil
		}
		if !errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("key file %s: %w", name, err)
		}
		key := make([]byte, 32)
		if _, err := rand.Read(key); err != nil {
			return nil, err
		}
		tmp, err := os.CreateTemp(dir, name+".new-*") // 0600
		if err != nil {
			return nil, err
		}
		werr := tmp.Chmod(0o600)
		if werr == nil || runtime.GOOS == "windows" {
			_, werr = tmp.Write(key)
		}
		if werr == nil {
			werr = tmp.Sync() // a crash must not leave an empty key behind
		}
		cerr := tmp.Close()
		if werr != nil || cerr != nil {
			os.Remove(tmp.Name())
			return nil, fmt.Errorf("key file %s: write failed", name)
		}
		// Link is exclusive: it fails if another process won the race.
		err = os.Link(tmp.Name(), path)
		os.Remove(tmp.Name())
		if err == nil {
			return key, nil
		}
		if !errors.Is(err, fs.ErrExist) {
			return nil, fmt.Errorf("key file %s: %w", name, err)
		}
	}
	return nil, fmt.Errorf("key file %s: could not be created", name)
}

// readPrivateFile reads a key file, refusing one that group or others
// can read or write: whoever reads the request-state key can forge
// requestState, and the fingerprint key lets a reader test guesses
// against fingerprints.
func readPrivateFile(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if runtime.GOOS != "windows" && fi.Mode().Perm()&0o077 != 0 {
		return nil, fmt.Errorf("%s is accessible to other users (mode %v); chmod 600 it", filepath.Base(path), fi.Mode().Perm())
	}
	return io.ReadAll(io.LimitReader(f, 4096))
}

// writePrivateFile replaces dir/name with b, readable by its owner only,
// never leaving a half-written file behind.
func writePrivateFile(path string, b []byte) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), filepath.Base(path)+".new-*")
	if err != nil {
		return err
	}
	_, werr := tmp.Write(b)
	if cerr := tmp.Close(); werr == nil {
		werr = cerr
	}
	if werr == nil {
		werr = os.Rename(tmp.Name(), path)
	}
	if werr != nil {
		os.Remove(tmp.Name())
		return fmt.Errorf("%s: %w", filepath.Base(path), werr)
	}
	return nil
}

// scanStateDir is the default state directory of the scan commands: the
// usual one, or "" (a key for this run only) when neither WARDEN_STATE_DIR,
// XDG_STATE_HOME nor HOME names a place. The usual fallback, a directory
// under the working directory, would put state into the tree being
// scanned, and the scan would then read its own key file.
func scanStateDir() string {
	if os.Getenv("WARDEN_STATE_DIR") == "" && os.Getenv("XDG_STATE_HOME") == "" {
		if _, err := os.UserHomeDir(); err != nil {
			return ""
		}
	}
	return defaultStateDir()
}
