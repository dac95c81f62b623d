package funcs

// Source names what found a function start.
type Source string

// The sources, strongest first.
const (
	SourceSymbol         Source = "symbol"          // a FUNC symbol of the symbol table
	SourceExport         Source = "export"          // an exported or dynamic symbol
	SourceEntry          Source = "entry"           // an entry point
	SourcePclntab        Source = "pclntab"         // the Go runtime's function table
	SourcePdata          Source = "pdata"           // PE exception directory
	SourceFunctionStarts Source = "function_starts" // Mach-O LC_FUNCTION_STARTS
	SourceEHFrame        Source = "eh_frame"        // an FDE in .eh_frame or .eh_frame_hdr
	SourceDebugFrame     Source = "debug_frame"     // an FDE in .debug_frame
	SourceCall           Source = "call"            // the target of a direct call
	SourceTailCall       Source = "tail_call"       // the target of a jump out of a function
	SourceEndBr          Source = "endbr"           // an ENDBR landing pad in code no metadata covers
	SourceCodePointer    Source = "code_pointer"    // heuristic: an instruction operand pointing at code
	SourceDataPointer    Source = "data_pointer"    // heuristic: a pointer in data pointing at code
	SourceGap            Source = "gap"             // heuristic: code in a gap between functions
	SourceStartCall      Source = "start_call"      // main, as the start-up code hands it to __libc_start_main
	SourcePrologue       Source = "prologue"        // heuristic: a compiler's prologue in code nothing reached
)

// Confidence is how sure a source is that an address starts a function.
func (s Source) Confidence() float64 {
	switch s {
	case SourceSymbol, SourceExport, SourcePclntab, SourcePdata:
		return 1
	case SourceEntry, SourceFunctionStarts:
		return 0.99
	case SourceStartCall:
		return 0.97
	case SourceEHFrame, SourceDebugFrame:
		return 0.98
	case SourceCall:
		return 0.95
	case SourceEndBr:
		return 0.9
	case SourceTailCall:
		return 0.8
	case SourceCodePointer:
		return 0.7
	case SourceDataPointer:
		return 0.6
	case SourceGap:
		return 0.5
	case SourcePrologue:
		return 0.55
	}
	return 0.9 // a caller's hint of another kind
}

// comprehensive reports whether the source lists (nearly) every function
// of the code it covers, so guessing beyond it costs more than it finds.
func (s Source) comprehensive() bool {
	switch s {
	case SourceSymbol, SourcePclntab, SourcePdata, SourceFunctionStarts, SourceEHFrame, SourceDebugFrame:
		return true
	}
	return false
}

// Heuristic reports whether the source is a guess rather than a fact of
// the file or of the code.
func (s Source) Heuristic() bool {
	return s == SourceCodePointer || s == SourceDataPointer || s == SourceGap || s == SourcePrologue
}

// Function is one discovered function.
type Function struct {
	Addr       uint64
	End        uint64 // exclusive; 0 when unknown (known from metadata, or after StageBlocks)
	Name       string // "" when nothing names it
	Source     Source // the most confident source that found it
	Confidence float64
	Heuristic  bool
	// Sources lists every source that found the start, in the order
	// they did.
	Sources []Source
}

// Stage is a step of the analysis.
type Stage uint8

// The stages, in order.
const (
	StageMetadata Stage = iota + 1
	StageDescent
	StageBlocks
)

func (s Stage) String() string {
	switch s {
	case StageMetadata:
		return "metadata"
	case StageDescent:
		return "descent"
	case StageBlocks:
		return "blocks"
	}
	return "none"
}
