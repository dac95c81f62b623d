package funcs

import (
	"bytes"
	"context"
	"encoding/xml"
	"io"
	"os"
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
