package funcs

import (
	"unsafe"

	"github.com/warden-mcp/warden/binview/disasm"
)

// What the analysis's memory costs, per thing it makes, for the budget's
// byte count (budget.Bytes): each struct's size plus what the map or
// slice that holds it adds. The counts are taken before the thing is
// kept, and a function's scratch is given back once its blocks are
// built. On real and hostile files the heap the finished analysis keeps
// is below the count's high-water mark, and the heap's peak below twice
// it (TestBudgetTracksTheHeap): the collector lets garbage grow as large
// as what is live before it runs.
var (
	// A function: its record, its map entry, its place in the discovery
	// order, its sources, and the copy each stage's result makes of it.
	costFunction = int64(unsafe.Sizeof(fn{})) + 48 + 8 + 16 + int64(unsafe.Sizeof(Function{}))
	// An instruction in a function's scratch while its blocks are built:
	// a map entry of its control-flow facts (with the map's growth) and
	// its address.
	costInst = int64(unsafe.Sizeof(disasm.Flow{})) + 64 + 8
	// A block leader (a map entry), and a pending address to walk.
	costLeader = int64(24)
	costBlock  = int64(unsafe.Sizeof(Block{}))
	costEdge   = int64(unsafe.Sizeof(Edge{}))
	// A cross-reference: the record and its index by source.
	costXref = int64(unsafe.Sizeof(Xref{})) + 4
	// A function of the graph (its sources copied), and each call-graph
	// entry (a callee of one function, a caller of another).
	costFuncInfo = int64(unsafe.Sizeof(FuncInfo{})) + 16
	costCallEdge = int64(16)
	// The index of blocks by address the call graph builds, per block.
	costSpan = int64(24)
)
