package sqlite

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/warden-mcp/warden/limits"
)

// TestPingFailsOnAFullDisk reproduces issue defect 7: with the disk full,
// every decision failed (503) while readiness, which only read, said
// ready. Ping now commits a write. The disk is a small tmpfs, so the test
// needs root (CI runs as root) and is skipped elsewhere.
func TestPingFailsOnAFullDisk(t *testing.T) {
	dir := t.TempDir()
	if out, err := exec.Command("mount", "-t", "tmpfs", "-o", "size=2m", "tmpfs", dir).CombinedOutput(); err != nil {
		t.Skipf("cannot mount a small tmpfs (needs root): %v %s", err, bytes.TrimSpace(out))
	}
	t.Cleanup(func() { _ = exec.Command("umount", "-l", dir).Run() })
	s, err := Open(t.Context(), dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if err := s.Ping(t.Context()); err != nil {
		t.Fatalf("before the disk fills: %v", err)
	}
	filler := filepath.Join(dir, "filler")
	fillDisk(t, filler)
	if err := s.AppendAudit(t.Context(), limits.AuditRecord{Time: time.Now(), Credential: "c", Tool: "t", Outcome: "ok"}); err == nil {
		t.Fatal("the audit write succeeded on a full disk; the test does not fill it")
	}
	if err := s.Ping(t.Context()); err == nil {
		t.Error("Ping said ready on a full disk")
	}
	os.Remove(filler)
	if err := s.Ping(t.Context()); err != nil {
		t.Errorf("after space was freed: %v", err)
	}
}

// fillDisk writes path until the file system refuses with ENOSPC.
func fillDisk(t *testing.T, path string) {
	t.Helper()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	buf := make([]byte, 4096)
	for range 1 << 20 {
		if _, err := f.Write(buf); err != nil {
			if !errors.Is(err, syscall.ENOSPC) {
				t.Fatal(err)
			}
			return
		}
	}
	t.Fatal("the disk never filled")
}
