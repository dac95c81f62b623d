package gen

import (
	"bufio"
	"fmt"
	"io"
	"math/rand/v2"
	"strings"
)

// Truth is one planted line.
type Truth struct {
	File    string `json:"file"`
	Line    int    `json:"line"`
	Type    string `json:"type"`
	IsDecoy bool   `json:"is_decoy"`
	// Kind names the decoy family (empty for secrets).
	Kind string `json:"kind,omitempty"`
}

// Options configures Generate.
type Options struct {
	Seed uint64
	// Size is the total number of bytes to write (approximately).
	Size int64
	// FileSize is the approximate size of each file. Zero: 256 KiB.
	FileSize int
	// SecretsPerFile and DecoysPerFile: zero means 4 and 6.
	SecretsPerFile, DecoysPerFile int
}

// Generate writes files through create (which receives slash-separated
// relative names) and reports each planted line through truth.
func Generate(opts Options, create func(name string) (io.WriteCloser, error), truth func(Truth) error) error {
	if opts.FileSize <= 0 {
		opts.FileSize = 256 << 10
	}
	if opts.SecretsPerFile <= 0 {
		opts.SecretsPerFile = 4
	}
	if opts.DecoysPerFile <= 0 {
		opts.DecoysPerFile = 6
	}
	r := rand.New(rand.NewPCG(opts.Seed, 0x6b657973776565))
	var written int64
	for i := 0; written < opts.Size; i++ {
		kind := fileKinds[i%len(fileKinds)]
		name := fmt.Sprintf("d%03d/f%05d%s", i/50, i, kind.ext)
		w, err := create(name)
		if err != nil {
			return err
		}
		size := opts.FileSize
		if rest := opts.Size - written; rest < int64(size) {
			size = int(rest)
		}
		n, err := writeFile(r, w, kind, name, size, opts, truth)
		if cerr := w.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return err
		}
		written += int64(n)
	}
	return nil
}

type plant struct {
	at     int // byte offset after which to plant
	secret *secretKind
	decoy  *decoy
}

func writeFile(r *rand.Rand, w io.Writer, kind fileKind, name string, size int, opts Options, truth func(Truth) error) (int, error) {
	bw := bufio.NewWriterSize(w, 64<<10)
	var plants []plant
	for i := 0; i < opts.SecretsPerFile; i++ {
		plants = append(plants, plant{at: r.IntN(size), secret: &secretKinds[r.IntN(len(secretKinds))]})
	}
	for i := 0; i < opts.DecoysPerFile; i++ {
		plants = append(plants, plant{at: r.IntN(size), decoy: &decoys[r.IntN(len(decoys))]})
	}
	// sort by offset (small n)
	for i := 1; i < len(plants); i++ {
		for j := i; j > 0 && plants[j].at < plants[j-1].at; j-- {
			plants[j], plants[j-1] = plants[j-1], plants[j]
		}
	}
	n, line := 0, 1
	emit := func(s string) error {
		if _, err := bw.WriteString(s); err != nil {
			return err
		}
		if err := bw.WriteByte('\n'); err != nil {
			return err
		}
		n += len(s) + 1
		line += strings.Count(s, "\n") + 1
		return nil
	}
	for n < size {
		for len(plants) > 0 && plants[0].at <= n {
			p := plants[0]
			plants = plants[1:]
			// A blank line keeps multi-line constructs of the background
			// from swallowing the plant.
			if err := emit(""); err != nil {
				return n, err
			}
			var t Truth
			var text string
			if p.secret != nil {
				v := p.secret.value(r)
				if p.secret.multiline {
					text = v
				} else {
					text = kind.assign(p.secret.name, v)
				}
				t = Truth{File: name, Line: line, Type: p.secret.typ}
			} else {
				text = p.decoy.line(r, kind)
				t = Truth{File: name, Line: line, Type: "decoy", IsDecoy: true, Kind: p.decoy.kind}
			}
			if err := truth(t); err != nil {
				return n, err
			}
			if err := emit(text); err != nil {
				return n, err
			}
			if err := emit(""); err != nil {
				return n, err
			}
		}
		if err := emit(kind.background(r)); err != nil {
			return n, err
		}
	}
	return n, bw.Flush()
}

// Chunk generates about size bytes of mixed corpus text in memory (files
// concatenated), with its ground truth (lines relative to the chunk).
func Chunk(seed uint64, size int) (string, []Truth) {
	var b strings.Builder
	var truths []Truth
	lineBase := 0
	var cur *strings.Builder
	_ = Generate(Options{Seed: seed, Size: int64(size)}, func(name string) (io.WriteCloser, error) {
		if cur != nil {
			lineBase += strings.Count(cur.String(), "\n")
			b.WriteString(cur.String())
		}
		cur = &strings.Builder{}
		return nopCloser{cur}, nil
	}, func(t Truth) error {
		t.Line += lineBase
		t.File = ""
		truths = append(truths, t)
		return nil
	})
	if cur != nil {
		b.WriteString(cur.String())
	}
	return b.String(), truths
}

type nopCloser struct{ io.Writer }

func (nopCloser) Close() error { return nil }
