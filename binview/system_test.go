package binview

import (
	"bytes"
	"context"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"testing"
	"time"

	"github.com/warden-mcp/warden/errcode"
)

// envSystemBinaries selects how much of the machine's own binaries
// TestOpenSystemBinaries opens: unset, a sample that keeps the test
// short; "all", every file.
const envSystemBinaries = "WARDEN_SYSTEM_BINARIES"

// systemDirs hold the executables and libraries of a Debian-like system.
var systemDirs = []string{"/usr/bin", "/usr/sbin", "/usr/lib/x86_64-linux-gnu", "/usr/lib/aarch64-linux-gnu", "/usr/libexec"}

// systemFile is one executable file format found on the machine.
type systemFile struct {
	path string
	size int64
}

// isBinaryMagic reports whether head starts like an ELF, PE (MZ) or
// Mach-O file, thin or fat.
func isBinaryMagic(head []byte) bool {
	for _, m := range [][]byte{
		[]byte("\x7fELF"), []byte("MZ"),
		{0xfe, 0xed, 0xfa, 0xce}, {0xfe, 0xed, 0xfa, 0xcf}, {0xce, 0xfa, 0xed, 0xfe}, {0xcf, 0xfa, 0xed, 0xfe},
		{0xca, 0xfe, 0xba, 0xbe},
	} {
		if bytes.HasPrefix(head, m) {
			return true
		}
	}
	return false
}

// systemBinaries lists the regular files of at most maxSize bytes under
// dirs that carry a binary format's magic number, once each (symbolic
// links are not followed), sorted by path.
func systemBinaries(dirs []string, maxSize int64) []systemFile {
	var out []systemFile
	head := make([]byte, 4)
	for _, dir := range dirs {
		_ = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
			if err != nil || !d.Type().IsRegular() {
				return nil
			}
			info, err := d.Info()
			if err != nil || info.Size() < 64 || info.Size() > maxSize {
				return nil
			}
			f, err := os.Open(p)
			if err != nil {
				return nil
			}
			n, _ := f.Read(head)
			f.Close()
			if isBinaryMagic(head[:n]) {
				out = append(out, systemFile{p, info.Size()})
			}
			return nil
		})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].path < out[j].path })
	return out
}

// sampleSystemBinaries keeps a spread of files in a byte budget: every
// file named in always, then every k-th file by path.
func sampleSystemBinaries(files []systemFile, budget int64, always map[string]bool) []systemFile {
	var total int64
	for _, f := range files {
		total += f.size
	}
	k := int(total/budget) + 1
	var out []systemFile
	for i, f := range files {
		if i%k == 0 || always[filepath.Base(f.path)] {
			out = append(out, f)
		}
	}
	return out
}

// documentedRefusal reports whether err is a refusal the engine
// documents for a well-formed file: a format or architecture it does
// not read, a file over the size limit.
func documentedRefusal(err error) bool {
	switch errcode.CodeOf(err) {
	case CodeUnsupportedFormat, CodeUnsupportedArch, CodeFileTooLarge:
		return true
	}
	return false
}

// openRecovering opens path in process and turns a panic into an
// error naming it, so that one bad file reports instead of ending the
// test binary.
func openRecovering(path string) (v *View, err error) {
	defer func() {
		if r := recover(); r != nil {
			v, err = nil, fmt.Errorf("panic: %v", r)
		}
	}()
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, errcode.New(CodeUnsupportedFormat, "unreadable") // not the engine's to judge
	}
	return Open(context.Background(), path, data, &Options{MaxFileSize: LocalMaxFileSize})
}

// TestOpenSystemBinaries opens the machine's own executables and shared
// libraries, as `warden inspect` would, and fails on any panic or error
// that is not a documented refusal. By default it opens a sample of about
// 160 MB (gdb and a few other large C++ programs always among it);
// WARDEN_SYSTEM_BINARIES=all opens every file of up to 64 MiB. One
// opened file in 16 of at most 4 MiB also goes through the whole code
// analysis (functions, blocks, references), which must not fail
// internally.
func TestOpenSystemBinaries(t *testing.T) {
	if testing.Short() {
		t.Skip("walks the system's binaries")
	}
	files := systemBinaries(systemDirs, 64<<20)
	if len(files) == 0 {
		t.Skip("no ELF, PE or Mach-O files under " + fmt.Sprint(systemDirs))
	}
	all := len(files)
	if os.Getenv(envSystemBinaries) != "all" {
		files = sampleSystemBinaries(files, 160<<20, map[string]bool{"gdb": true, "libstdc++.so.6.0.30": true, "libLLVM-14.so.1": true, "ld.so": true})
	}
	start := time.Now()
	var opened, refused, bytesOpened, discovered int64
	const discoverEvery = 16
	for _, f := range files {
		v, err := openRecovering(f.path)
		if err != nil {
			if documentedRefusal(err) {
				refused++
				continue
			}
			t.Errorf("%s: %v", f.path, err)
			continue
		}
		opened++
		bytesOpened += f.size
		if opened%discoverEvery == 0 && f.size <= 4<<20 {
			st, err := v.WaitCode(context.Background(), CodeReferences)
			if err == nil {
				err = st.Err
			}
			if c := errcode.CodeOf(err); c == "internal_error" || err != nil && c == "" {
				t.Errorf("%s: code analysis: %v", f.path, err)
			}
			discovered++
		}
		for _, w := range v.Analysis().Warnings {
			if w.Code == WarnRecovered {
				t.Errorf("%s: a table's parser panicked: %s", f.path, w.Message)
			}
		}
		v.Close()
	}
	t.Logf("opened %d of %d files (%d MB; %d refused as documented; %d on the machine; %d through the code analysis) in %v",
		opened, len(files), bytesOpened>>20, refused, all, discovered, time.Since(start).Round(time.Millisecond))
}
