package funcs

import (
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/warden-mcp/warden/binview/budget"
	"github.com/warden-mcp/warden/errcode"
)

// SVG layout constants, in pixels: a monospace font of 12 px with 7.2 px
// advance.
const (
	svgCharW   = 7.2
	svgLineH   = 15.0
	svgPadX    = 8.0
	svgPadY    = 6.0
	svgGapX    = 36.0
	svgGapY    = 48.0
	svgMargin  = 24.0
	svgMaxCols = 96 // longer instruction lines are cut with an ellipsis
	svgSweeps  = 8
)

var svgEdgeColor = map[EdgeKind]string{
	EdgeTaken:         "#2e7d32",
	EdgeNotTaken:      "#c62828",
	EdgeUnconditional: "#1565c0",
	EdgeFallThrough:   "#616161",
	EdgeSwitch:        "#6a1b9a",
}

// svgNode is a block placed by the layout.
type svgNode struct {
	lines      []string
	layer      int
	order      float64
	x, y, w, h float64
}

// layout places the blocks in layers (a Sugiyama-style layered drawing):
// back edges found by a depth-first search from the entry are ignored for
// layering, each block goes one layer below its lowest predecessor,
// crossings are reduced by barycentre sweeps, and each block is pulled
// towards its predecessors' centres without overlapping its neighbours.
func (c *FuncCFG) layout() ([]svgNode, map[uint64]int) {
	g := newSVGLayout(c)
	g.layer(g.postOrder())
	g.size()
	g.group()
	g.order()
	g.place()
	return g.nodes, g.idx
}

// svgLayout is the drawing being laid out: blocks by index, their edges,
// and the back edges the layering ignores.
type svgLayout struct {
	c     *FuncCFG
	nodes []svgNode
	idx   map[uint64]int // block start -> index
	succ  [][]int        // every edge
	back  map[[2]int]bool
	// preds and fwd are the edges without the back edges, each way.
	preds, fwd [][]int
	layers     [][]int
}

func newSVGLayout(c *FuncCFG) *svgLayout {
	n := len(c.Blocks)
	g := &svgLayout{c: c, nodes: make([]svgNode, n), idx: make(map[uint64]int, n), succ: make([][]int, n), back: map[[2]int]bool{}}
	for i, b := range c.Blocks {
		g.idx[b.Start] = i
	}
	for i, b := range c.Blocks {
		for _, e := range b.Succs {
			if j, ok := g.idx[e.To]; ok {
				g.succ[i] = append(g.succ[i], j)
			}
		}
	}
	return g
}

// postOrder runs a depth-first search from the entry (then from any block
// not reached), iteratively so that deep graphs cannot overflow the stack,
// marks the back edges, and returns the blocks in post-order.
func (g *svgLayout) postOrder() []int {
	n := len(g.nodes)
	const white, grey, black = 0, 1, 2
	color := make([]int, n)
	var post []int
	entry := 0
	if i, ok := g.idx[g.c.Function.Addr]; ok {
		entry = i
	}
	roots := append(make([]int, 0, n), entry)
	for i := 0; i < n; i++ {
		if i != entry {
			roots = append(roots, i)
		}
	}
	type frame struct{ v, next int }
	for _, r := range roots {
		if color[r] != white {
			continue
		}
		stack := []frame{{r, 0}}
		color[r] = grey
		for len(stack) > 0 {
			top := &stack[len(stack)-1]
			if top.next < len(g.succ[top.v]) {
				w := g.succ[top.v][top.next]
				top.next++
				switch color[w] {
				case white:
					color[w] = grey
					stack = append(stack, frame{w, 0})
				case grey:
					g.back[[2]int{top.v, w}] = true
				}
				continue
			}
			color[top.v] = black
			post = append(post, top.v)
			stack = stack[:len(stack)-1]
		}
	}
	return post
}

// layer gives each block the longest path to it from the entry, walking
// in topological order (reverse post-order), and keeps the forward edges.
func (g *svgLayout) layer(post []int) {
	nodes := g.nodes
	for k := len(post) - 1; k >= 0; k-- {
		v := post[k]
		for _, w := range g.succ[v] {
			if !g.back[[2]int{v, w}] && nodes[w].layer < nodes[v].layer+1 {
				nodes[w].layer = nodes[v].layer + 1
			}
		}
	}
	g.preds, g.fwd = make([][]int, len(nodes)), make([][]int, len(nodes))
	for v := range g.succ {
		for _, w := range g.succ[v] {
			if !g.back[[2]int{v, w}] {
				g.preds[w] = append(g.preds[w], v)
				g.fwd[v] = append(g.fwd[v], w)
			}
		}
	}
}

// size sets each block's text (its instructions, and the function's name
// on the entry) and the box that holds it.
func (g *svgLayout) size() {
	c := g.c
	for i, b := range c.Blocks {
		var lines []string
		if b.Start == c.Function.Addr {
			name := c.Function.Name
			if name == "" {
				name = fmt.Sprintf("sub_%x", c.Function.Addr)
			}
			lines = append(lines, name+":")
		}
		for _, in := range b.Insts {
			lines = append(lines, fmt.Sprintf("%#x  %s", in.Addr, in.Text))
		}
		cols := 0
		for k, l := range lines {
			if r := []rune(l); len(r) > svgMaxCols {
				lines[k] = string(r[:svgMaxCols-1]) + "…"
			}
			cols = max(cols, len([]rune(lines[k])))
		}
		g.nodes[i].lines = lines
		g.nodes[i].w = float64(cols)*svgCharW + 2*svgPadX
		g.nodes[i].h = float64(len(lines))*svgLineH + 2*svgPadY
	}
}

// group puts the blocks of each layer together, ordered by address.
func (g *svgLayout) group() {
	depth := 0
	for _, nd := range g.nodes {
		depth = max(depth, nd.layer+1)
	}
	g.layers = make([][]int, depth)
	for i := range g.nodes {
		g.layers[g.nodes[i].layer] = append(g.layers[g.nodes[i].layer], i)
	}
	for _, l := range g.layers {
		g.setOrder(l)
	}
}

func (g *svgLayout) setOrder(l []int) {
	for k, v := range l {
		g.nodes[v].order = float64(k)
	}
}

// order reduces crossings: sweeps down and up the layers, sorting each by
// the mean position of its blocks' neighbours in the layer before.
func (g *svgLayout) order() {
	bary := func(v int, nb []int) float64 {
		if len(nb) == 0 {
			return g.nodes[v].order
		}
		s := 0.0
		for _, u := range nb {
			s += g.nodes[u].order
		}
		return s / float64(len(nb))
	}
	for sweep := 0; sweep < svgSweeps; sweep++ {
		down := sweep%2 == 0
		nb := g.preds
		if !down {
			nb = g.fwd
		}
		for k := range g.layers {
			li := k
			if !down {
				li = len(g.layers) - 1 - k
			}
			l := g.layers[li]
			key := make(map[int]float64, len(l))
			for _, v := range l {
				key[v] = bary(v, nb[v])
			}
			slices.SortStableFunc(l, func(a, b int) int {
				switch {
				case key[a] < key[b]:
					return -1
				case key[a] > key[b]:
					return 1
				}
				return 0
			})
			g.setOrder(l)
		}
	}
}

// place gives the coordinates: y by layer, x packed, then each layer
// pulled towards its neighbours' centres, down from the predecessors and
// then up from the successors (so a switch sits above the middle of its
// cases), keeping the gaps; the drawing starts at the margin.
func (g *svgLayout) place() {
	nodes := g.nodes
	y := svgMargin
	for _, l := range g.layers {
		h := 0.0
		x := svgMargin
		for _, v := range l {
			nodes[v].x, nodes[v].y = x, y
			x += nodes[v].w + svgGapX
			h = max(h, nodes[v].h)
		}
		y += h + svgGapY
	}
	pull := func(l []int, nb [][]int) {
		for _, v := range l {
			if len(nb[v]) == 0 {
				continue
			}
			s := 0.0
			for _, u := range nb[v] {
				s += nodes[u].x + nodes[u].w/2
			}
			nodes[v].x = s/float64(len(nb[v])) - nodes[v].w/2
		}
		for k := 1; k < len(l); k++ {
			prev, cur := &nodes[l[k-1]], &nodes[l[k]]
			if cur.x < prev.x+prev.w+svgGapX {
				cur.x = prev.x + prev.w + svgGapX
			}
		}
	}
	for li := 1; li < len(g.layers); li++ {
		pull(g.layers[li], g.preds)
	}
	for li := len(g.layers) - 2; li >= 0; li-- {
		pull(g.layers[li], g.fwd)
	}
	minX := 0.0
	for i := range nodes {
		if i == 0 || nodes[i].x < minX {
			minX = nodes[i].x
		}
	}
	for i := range nodes {
		nodes[i].x += svgMargin - minX
	}
}

// WriteSVG draws the graph as a standalone SVG document with a layered
// layout computed here (no Graphviz needed). Text is XML-escaped. A graph
// of more than MaxDrawnBlocks blocks is function_too_large; the text is
// counted as it is made, and past MaxOutput bytes it fails with
// analysis_limit and writes nothing.
func (c *FuncCFG) WriteSVG(w io.Writer) error {
	if len(c.Blocks) > MaxDrawnBlocks {
		return errcode.New("function_too_large", "the function has more blocks than a graph shows").
			WithDetail("blocks", len(c.Blocks)).WithDetail("maxBlocks", MaxDrawnBlocks)
	}
	limit := c.maxOutput()
	nodes, idx := c.layout()
	width, height := 2*svgMargin, 2*svgMargin
	for _, nd := range nodes {
		width = max(width, nd.x+nd.w+svgMargin+svgGapX)
		height = max(height, nd.y+nd.h+svgMargin)
	}
	var b strings.Builder
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" width="%.0f" height="%.0f" viewBox="0 0 %.0f %.0f" font-family="monospace" font-size="12">`+"\n",
		width, height, width, height)
	b.WriteString("<defs>\n")
	kinds := []EdgeKind{EdgeFallThrough, EdgeTaken, EdgeNotTaken, EdgeUnconditional, EdgeSwitch}
	for _, k := range kinds {
		fmt.Fprintf(&b, `<marker id="arrow-%s" viewBox="0 0 10 10" refX="10" refY="5" markerWidth="7" markerHeight="7" orient="auto"><path d="M0,0 L10,5 L0,10 z" fill="%s"/></marker>`+"\n", k, svgEdgeColor[k])
	}
	b.WriteString("</defs>\n")
	fmt.Fprintf(&b, "<title>%s</title>\n", xmlEscape(c.Function.Name))
	// Edges first, under the blocks.
	for i, blk := range c.Blocks {
		from := nodes[i]
		for _, e := range blk.Succs {
			j, ok := idx[e.To]
			if !ok {
				continue
			}
			to := nodes[j]
			x1, y1 := from.x+from.w/2, from.y+from.h
			x2, y2 := to.x+to.w/2, to.y
			dash := ""
			if e.Kind == EdgeFallThrough {
				dash = ` stroke-dasharray="4 3"`
			}
			var d string
			if j == i {
				// A loop on itself: out of the right side and back in.
				side := from.x + from.w + svgGapX/1.5
				x1, y1 = from.x+from.w, from.y+from.h*0.7
				x2, y2 = from.x+from.w, from.y+from.h*0.3
				d = fmt.Sprintf("M%.1f,%.1f C%.1f,%.1f %.1f,%.1f %.1f,%.1f", x1, y1, side, y1+8, side, y2-8, x2, y2)
			} else if to.layer <= from.layer {
				// A back edge: leave the block's right side and loop round.
				side := max(from.x+from.w, to.x+to.w) + svgGapX/2
				x1, y1 = from.x+from.w, from.y+from.h/2
				x2, y2 = to.x+to.w, to.y+to.h/2
				d = fmt.Sprintf("M%.1f,%.1f C%.1f,%.1f %.1f,%.1f %.1f,%.1f", x1, y1, side, y1, side, y2, x2, y2)
			} else if lane, top, bottom, ok := detour(nodes, from, to); ok {
				// A long edge that would cross blocks of the layers
				// between: down a lane beside them.
				m1, m2 := (y1+top)/2, (bottom+y2)/2
				d = fmt.Sprintf("M%.1f,%.1f C%.1f,%.1f %.1f,%.1f %.1f,%.1f L%.1f,%.1f C%.1f,%.1f %.1f,%.1f %.1f,%.1f",
					x1, y1, x1, m1, lane, m1, lane, top, lane, bottom, lane, m2, x2, m2, x2, y2)
			} else {
				my := (y1 + y2) / 2
				d = fmt.Sprintf("M%.1f,%.1f C%.1f,%.1f %.1f,%.1f %.1f,%.1f", x1, y1, x1, my, x2, my, x2, y2)
			}
			fmt.Fprintf(&b, `<path d="%s" fill="none" stroke="%s" stroke-width="1.4"%s marker-end="url(#arrow-%s)"><title>%s</title></path>`+"\n",
				d, svgEdgeColor[e.Kind], dash, e.Kind, e.Kind)
		}
		if int64(b.Len()) > limit {
			return budget.LimitError(budget.Output, limit)
		}
	}
	for i, nd := range nodes {
		fill := "#fafafa"
		if c.Blocks[i].Start == c.Function.Addr {
			fill = "#e3f2fd"
		}
		fmt.Fprintf(&b, `<g><rect x="%.1f" y="%.1f" width="%.1f" height="%.1f" rx="3" fill="%s" stroke="#37474f"/>`+"\n",
			nd.x, nd.y, nd.w, nd.h, fill)
		fmt.Fprintf(&b, `<text x="%.1f" y="%.1f" xml:space="preserve">`, nd.x+svgPadX, nd.y+svgPadY)
		for _, l := range nd.lines {
			fmt.Fprintf(&b, `<tspan x="%.1f" dy="%.1f">%s</tspan>`, nd.x+svgPadX, svgLineH, xmlEscape(l))
			if int64(b.Len()) > limit {
				return budget.LimitError(budget.Output, limit)
			}
		}
		b.WriteString("</text></g>\n")
	}
	b.WriteString("</svg>\n")
	_, err := io.WriteString(w, b.String())
	return err
}

// detour finds a lane for a forward edge that spans layers: when the
// straight curve from a to b would pass through a block of a layer in
// between, it returns the x of a lane left or right of every block of
// those layers (the side nearer the edge), and the top of the first and
// the bottom of the last layer in between.
func detour(nodes []svgNode, a, b svgNode) (lane, top, bottom float64, ok bool) {
	if b.layer <= a.layer+1 {
		return 0, 0, 0, false
	}
	x1, y1 := a.x+a.w/2, a.y+a.h
	x2, y2 := b.x+b.w/2, b.y
	top, bottom = b.y, a.y+a.h
	minX, maxX := x1, x1
	crosses := false
	for _, n := range nodes {
		if n.layer <= a.layer || n.layer >= b.layer {
			continue
		}
		top, bottom = min(top, n.y), max(bottom, n.y+n.h)
		minX, maxX = min(minX, n.x), max(maxX, n.x+n.w)
		ym := n.y + n.h/2
		x := x1 + (x2-x1)*(ym-y1)/(y2-y1)
		if x >= n.x-4 && x <= n.x+n.w+4 {
			crosses = true
		}
	}
	if !crosses {
		return 0, 0, 0, false
	}
	left, right := minX-svgGapX/2, maxX+svgGapX/2
	lane = left
	if right-(x1+x2)/2 < (x1+x2)/2-left {
		lane = right
	}
	return lane, top, bottom, true
}

func xmlEscape(s string) string {
	var b strings.Builder
	for _, r := range s {
		switch {
		case r == '&':
			b.WriteString("&amp;")
		case r == '<':
			b.WriteString("&lt;")
		case r == '>':
			b.WriteString("&gt;")
		case r == '"':
			b.WriteString("&quot;")
		case r < 0x20 || r == 0x7f || r == 0xfffe || r == 0xffff:
			b.WriteByte(' ')
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}
