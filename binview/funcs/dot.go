package funcs

import (
	"fmt"
	"io"
	"strings"

	"github.com/warden-mcp/warden/binview/budget"
)

// edgeStyle is how each edge kind is drawn: the conventions of
// disassemblers' graph views (green taken, red not taken, blue jumps).
var edgeStyle = map[EdgeKind]string{
	EdgeTaken:         `color="#2e7d32", label="taken"`,
	EdgeNotTaken:      `color="#c62828", label="not taken"`,
	EdgeUnconditional: `color="#1565c0"`,
	EdgeFallThrough:   `color="#616161", style=dashed`,
	EdgeSwitch:        `color="#6a1b9a", label="case"`,
}

// maxOutput is the text limit of the graph's drawings.
func (c *FuncCFG) maxOutput() int64 {
	if c.MaxOutput > 0 {
		return c.MaxOutput
	}
	return budget.DefaultOutput
}

// WriteDOT writes the graph in Graphviz DOT: one box per block with its
// instructions, edges typed and coloured. Text is escaped, so names and
// operands cannot break out of their labels. The text is counted as it
// is made: past MaxOutput bytes it fails with analysis_limit and writes
// nothing.
func (c *FuncCFG) WriteDOT(w io.Writer) error {
	limit := c.maxOutput()
	var b strings.Builder
	name := c.Function.Name
	if name == "" {
		name = fmt.Sprintf("sub_%x", c.Function.Addr)
	}
	fmt.Fprintf(&b, "digraph %s {\n", dotQuote(name))
	b.WriteString("\tgraph [splines=ortho, nodesep=0.4, ranksep=0.5];\n")
	b.WriteString("\tnode [shape=box, fontname=\"monospace\", fontsize=10];\n")
	b.WriteString("\tedge [fontname=\"sans-serif\", fontsize=9];\n")
	for _, blk := range c.Blocks {
		var label strings.Builder
		if blk.Start == c.Function.Addr {
			label.WriteString(dotEscape(name + ":"))
			label.WriteString(`\l`)
		}
		for _, in := range blk.Insts {
			label.WriteString(dotEscape(fmt.Sprintf("%#x  %s", in.Addr, in.Text)))
			label.WriteString(`\l`)
			if int64(b.Len()+label.Len()) > limit {
				return budget.LimitError(budget.Output, limit)
			}
		}
		fmt.Fprintf(&b, "\tb%x [label=\"%s\"];\n", blk.Start, label.String())
		if int64(b.Len()) > limit {
			return budget.LimitError(budget.Output, limit)
		}
	}
	for _, blk := range c.Blocks {
		for _, e := range blk.Succs {
			fmt.Fprintf(&b, "\tb%x -> b%x [%s];\n", blk.Start, e.To, edgeStyle[e.Kind])
		}
		if int64(b.Len()) > limit {
			return budget.LimitError(budget.Output, limit)
		}
	}
	b.WriteString("}\n")
	_, err := io.WriteString(w, b.String())
	return err
}

// DOT returns the graph as DOT text, or "" past MaxOutput (WriteDOT
// says why).
func (c *FuncCFG) DOT() string {
	var b strings.Builder
	_ = c.WriteDOT(&b)
	return b.String()
}

func dotQuote(s string) string { return `"` + dotEscape(s) + `"` }

// dotEscape escapes text for a double-quoted DOT string with \l line
// ends: backslashes and quotes, and control characters dropped.
func dotEscape(s string) string {
	var b strings.Builder
	for _, r := range s {
		switch {
		case r == '\\':
			b.WriteString(`\\`)
		case r == '"':
			b.WriteString(`\"`)
		case r < 0x20 || r == 0x7f:
			b.WriteByte(' ')
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}
