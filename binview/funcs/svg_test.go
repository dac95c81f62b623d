package funcs

import (
	"bytes"
	"context"
	"encoding/xml"
	"io"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/warden-mcp/warden/binview/disasm"
)

// TestSVGRendersRealFunction lays out a real function with a switch and a
// loop, and checks the document parses, every block is drawn once, blocks
// of a layer do not overlap, and every edge is drawn.
func TestSVGRendersRealFunction(t *testing.T) {
	a, g, _ := dynGraph(t)
	for _, name := range []string{"f1", "f0", "main"} {
		f, ok := a.Lookup(name)
		if !ok {
			t.Fatalf("no %s", name)
		}
		c, err := a.FunctionCFG(context.Background(), f.Addr, &disasm.Options{Symbolizer: func(addr uint64) (string, uint64, bool) {
			if fi, ok := g.Function(addr); ok && fi.Name != "" {
				return fi.Name, fi.Addr, true
			}
			return "", 0, false
		}})
		if err != nil {
			t.Fatal(err)
		}
		var buf bytes.Buffer
		if err := c.WriteSVG(&buf); err != nil {
			t.Fatal(err)
		}
		if os.Getenv("WARDEN_SVG_OUT") != "" {
			os.WriteFile(os.Getenv("WARDEN_SVG_OUT")+"/"+name+".svg", buf.Bytes(), 0o644)
		}
		dec := xml.NewDecoder(&buf)
		rects, paths := 0, 0
		for {
			tok, err := dec.Token()
			if err == io.EOF {
				break
			}
			if err != nil {
				t.Fatalf("%s: not well-formed: %v", name, err)
			}
			if se, ok := tok.(xml.StartElement); ok {
				switch se.Name.Local {
				case "rect":
					rects++
				case "path":
					if len(se.Attr) > 2 {
						paths++
					}
				}
			}
		}
		edges := 0
		for _, b := range c.Blocks {
			edges += len(b.Succs)
		}
		if rects != len(c.Blocks) || paths != edges {
			t.Errorf("%s: %d rects for %d blocks, %d paths for %d edges", name, rects, len(c.Blocks), paths, edges)
		}
		nodes, _ := c.layout()
		for i := range nodes {
			for j := range nodes {
				p, q := nodes[i], nodes[j]
				if i != j && p.layer == q.layer && p.x < q.x+q.w && q.x < p.x+p.w {
					t.Errorf("%s: blocks %d and %d overlap", name, i, j)
				}
			}
		}
		t.Logf("%s: %d blocks, %d edges, %d layers", name, len(c.Blocks), edges, maxLayer(nodes)+1)
	}
	if got := xmlEscape(`<a & "b">` + "\x01"); !strings.Contains(got, "&lt;a &amp; &quot;b&quot;&gt; ") {
		t.Errorf("escape: %q", got)
	}
}

func maxLayer(ns []svgNode) int {
	m := 0
	for _, n := range ns {
		m = max(m, n.layer)
	}
	return m
}

// A dispatch-style function (a switch whose last case fans out again, as
// an interpreter's dispatch does) draws no wider than its widest rank,
// with the entry on the first row: the picture a browser opens shows
// code, not white space.
func TestSVGWidthStaysNearTheWidestRank(t *testing.T) {
	const cases, fan = 40, 30
	c := &FuncCFG{Function: Function{Addr: 0x1000, Name: "dispatch"}}
	block := func(start uint64, succs ...uint64) {
		b := CFGBlock{Block: Block{Start: start, End: start + 4, Insts: 1}}
		for _, s := range succs {
			b.Succs = append(b.Succs, Edge{To: s})
		}
		b.Insts = []disasm.Inst{{Addr: start, Text: "nop"}}
		c.Blocks = append(c.Blocks, b)
	}
	var caseStarts, fanStarts []uint64
	for i := range cases {
		caseStarts = append(caseStarts, 0x2000+uint64(i)*0x10)
	}
	for i := range fan {
		fanStarts = append(fanStarts, 0x5000+uint64(i)*0x10)
	}
	block(0x1000, caseStarts...)
	for i, s := range caseStarts {
		if i == cases-1 {
			block(s, fanStarts...) // the last case fans out again
		} else {
			block(s, 0x9000)
		}
	}
	for _, s := range fanStarts {
		block(s, 0x9000)
	}
	block(0x9000)
	slices.SortFunc(c.Blocks, func(a, b CFGBlock) int { return cmpU64(a.Start, b.Start) })
	nodes, idx := c.layout()
	widest := map[int]float64{}
	right, entryY := 0.0, nodes[idx[0x1000]].y
	for _, n := range nodes {
		widest[n.layer] += n.w + svgGapX
		right = max(right, n.x+n.w)
		if n.y < entryY {
			t.Errorf("a block above the entry")
		}
	}
	wmax := 0.0
	for _, w := range widest {
		wmax = max(wmax, w-svgGapX)
	}
	if right > svgMargin+wmax+1 {
		t.Errorf("drawing %.0f wide, its widest rank %.0f", right-svgMargin, wmax)
	}
}
