package binview

import (
	"math/rand"
	"os"
	"path/filepath"
	"testing"
	"time"
)

func TestZZHunt(t *testing.T) {
	dir := os.Getenv("D")
	ents, _ := os.ReadDir("testdata/seeds/" + dir)
	r := rand.New(rand.NewSource(int64(len(os.Getenv("SEED")))))
	for iter := 0; iter < 5000; iter++ {
		e := ents[iter%len(ents)]
		data, _ := os.ReadFile(filepath.Join("testdata/seeds/"+dir, e.Name()))
		for k := 0; k < 1+r.Intn(8); k++ {
			i := r.Intn(len(data))
			data[i] = byte(r.Intn(256))
		}
		start := time.Now()
		fuzzOpen(t, data, Format(os.Getenv("F")))
		if d := time.Since(start); d > time.Second {
			os.WriteFile("/tmp/slow.macho", data, 0o644)
			t.Fatalf("iter %d took %v", iter, d)
		}
	}
}

func TestZZShow(t *testing.T) {
	data, _ := os.ReadFile("/tmp/slow.macho")
	a, err := Analyze(t.Context(), data, &fuzzLimits)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range a.Sections {
		t.Logf("%+v", s)
	}
	for _, s := range a.Segments {
		t.Logf("%+v", s)
	}
	t.Log(len(data))
}
