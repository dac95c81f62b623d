package secretscan

import (
	"archive/tar"
	"archive/zip"
	"bytes"
	"compress/gzip"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const archiveToken = "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"

type file struct {
	name string
	data []byte
}

func zipOf(t testing.TB, files ...file) []byte {
	var b bytes.Buffer
	zw := zip.NewWriter(&b)
	for _, f := range files {
		w, err := zw.Create(f.name)
		if err != nil {
			t.Fatal(err)
		}
		w.Write(f.data)
	}
	zw.Close()
	return b.Bytes()
}

func tarGzOf(t testing.TB, files ...file) []byte {
	var b bytes.Buffer
	gz := gzip.NewWriter(&b)
	tw := tar.NewWriter(gz)
	for _, f := range files {
		tw.WriteHeader(&tar.Header{Name: f.name, Mode: 0o644, Size: int64(len(f.data)), Typeflag: tar.TypeReg})
		tw.Write(f.data)
	}
	tw.Close()
	gz.Close()
	return b.Bytes()
}

func walkArchives(t *testing.T, dir string, ao *ArchiveOptions) (map[string]int, map[string]string) {
	t.Helper()
	found, skipped := map[string]int{}, map[string]string{}
	_, err := New(nil).ScanDir(context.Background(), dir, &WalkOptions{Archives: ao, Workers: 2,
		OnSkip: func(p, r string) { skipped[p] = r }}, func(fr FileResult) error {
		found[fr.Path] = len(fr.Result.Detections)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return found, skipped
}

// Secrets inside a jar, a tar.gz inside a zip, and a gzip file are found
// and named by their path inside the archive.
func TestArchivesAreScannedInside(t *testing.T) {
	dir := t.TempDir()
	secret := []byte("token: " + archiveToken + "\n")
	os.WriteFile(filepath.Join(dir, "app.jar"), zipOf(t, file{"META-INF/app.properties", secret}, file{"Main.class", []byte{0xca, 0xfe, 0, 0}}), 0o644)
	inner := tarGzOf(t, file{"etc/app.conf", secret})
	os.WriteFile(filepath.Join(dir, "bundle.zip"), zipOf(t, file{"deploy/conf.tar.gz", inner}), 0o644)
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write(secret)
	zw.Close()
	os.WriteFile(filepath.Join(dir, "notes.txt.gz"), gz.Bytes(), 0o644)
	found, skipped := walkArchives(t, dir, &ArchiveOptions{})
	for _, p := range []string{"app.jar!META-INF/app.properties", "bundle.zip!deploy/conf.tar.gz!etc/app.conf", "notes.txt.gz!notes.txt"} {
		if found[p] != 1 {
			t.Errorf("%s: %d detections (found %v, skipped %v)", p, found[p], found, skipped)
		}
	}
	if skipped["app.jar!Main.class"] != SkipBinary {
		t.Errorf("the class file: %q", skipped["app.jar!Main.class"])
	}
	// Without Archives, they are binary files, skipped.
	found, _ = walkArchives(t, dir, nil)
	if len(found) != 0 {
		t.Errorf("archives scanned without Archives: %v", found)
	}
}

// A zip bomb (entries expanding past the budget), too many entries, and
// archives nested too deep end with archive_limit; a corrupt archive with
// archive_corrupt; the walk goes on.
func TestArchiveBoundsHold(t *testing.T) {
	dir := t.TempDir()
	zeros := bytes.Repeat([]byte{'0'}, 600<<10) // 600 KiB each, compressing to almost nothing
	os.WriteFile(filepath.Join(dir, "bomb.zip"), zipOf(t, file{"a", zeros}, file{"b", zeros}, file{"c", zeros}, file{"d", []byte(archiveToken)}), 0o644)
	var many []file
	for i := range 20 {
		many = append(many, file{name: strings.Repeat("x", i+1), data: []byte("x")})
	}
	os.WriteFile(filepath.Join(dir, "many.zip"), zipOf(t, many...), 0o644)
	deep := zipOf(t, file{"secret.txt", []byte(archiveToken)})
	for range 4 {
		deep = zipOf(t, file{"inner.zip", deep})
	}
	os.WriteFile(filepath.Join(dir, "deep.zip"), deep, 0o644)
	os.WriteFile(filepath.Join(dir, "broken.zip"), []byte("PK\x03\x04 this is not a zip archive at all"), 0o644)
	os.WriteFile(filepath.Join(dir, "z.txt"), []byte("after the archives: "+archiveToken+"\n"), 0o644)

	found, skipped := walkArchives(t, dir, &ArchiveOptions{MaxExpanded: 1 << 20, MaxEntries: 10, MaxDepth: 3})
	limits := 0
	for p, r := range skipped {
		if r == SkipArchiveLimit {
			limits++
			if !strings.HasPrefix(p, "bomb.zip!") && !strings.HasPrefix(p, "many.zip!") && !strings.HasPrefix(p, "deep.zip!") {
				t.Errorf("archive_limit on %s", p)
			}
		}
	}
	if limits != 3 {
		t.Errorf("%d archive_limit skips, want one per archive: %v", limits, skipped)
	}
	if found["bomb.zip!d"] != 0 {
		t.Error("the bomb's entry past the budget was scanned")
	}
	if skipped["broken.zip"] != SkipArchiveCorrupt {
		t.Errorf("broken.zip: %q", skipped["broken.zip"])
	}
	if found["z.txt"] != 1 {
		t.Errorf("the walk stopped: %v", found)
	}
}

func TestArchiveEntryNamesArePrintable(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "evil.zip"), zipOf(t, file{"a\x1b[31mred\n.txt", []byte(archiveToken)}), 0o644)
	found, _ := walkArchives(t, dir, &ArchiveOptions{})
	for p := range found {
		if strings.ContainsAny(p, "\x1b\n") {
			t.Errorf("control characters in %q", p)
		}
	}
	if len(found) != 1 {
		t.Errorf("found %v", found)
	}
}

func FuzzArchive(f *testing.F) {
	f.Add(zipOf(f, file{"a.txt", []byte(archiveToken)}))
	f.Add(tarGzOf(f, file{"b.txt", []byte("x")}))
	f.Fuzz(func(t *testing.T, data []byte) {
		s := New(nil)
		ao := (&ArchiveOptions{MaxExpanded: 1 << 20, MaxNestedSize: 1 << 16, MaxArchiveSize: 1 << 20}).withDefaults(1 << 16)
		if _, err := s.scanArchive(context.Background(), "f", data, ao, false); err != nil {
			t.Fatal(err)
		}
	})
}
