// Package funcs finds the functions of a binary and analyses their code:
// basic blocks and control-flow edges, cross-references and the call
// graph. It takes plain inputs (an Image: mapped regions, entry points,
// symbols, metadata hints and raw call-frame sections), so any loader can
// feed it.
//
// Discovery is metadata first, in stages that are each usable as soon as
// they complete:
//
//  1. StageMetadata: symbols, exports and entry points; call-frame
//     information (.eh_frame, .eh_frame_hdr, .debug_frame, parsed by
//     package cfi); and the caller's hints (PE .pdata, Mach-O
//     LC_FUNCTION_STARTS, Go pclntab). It answers in milliseconds.
//  2. StageDescent: recursive descent from every known start over direct
//     calls and tail jumps, ENDBR64/ENDBR32 landing pads in code no
//     metadata covers, and, only when the image has no metadata at all,
//     the heuristics (code and data pointers into code, gap filling),
//     whose functions are labelled heuristic: they cost precision when
//     metadata exists.
//  3. StageBlocks: basic blocks and typed edges per function, code and
//     data cross-references, callers and callees.
//
// # Feeding an Image
//
// A loader fills the Image from the file; what each format should give:
//
//   - Arch and BigEndian from the header.
//   - Regions: the bytes of every allocated section that has file bytes
//     (not .bss), Exec set for executable ones (ELF SHF_EXECINSTR, PE
//     IMAGE_SCN_MEM_EXECUTE, Mach-O sections with instructions).
//   - Entries: ELF e_entry, DT_INIT and DT_FINI; PE AddressOfEntryPoint
//     and TLS callbacks; Mach-O LC_MAIN (or LC_UNIXTHREAD's pc).
//   - Symbols: FUNC and IFUNC symbols with sizes (Source "symbol"),
//     dynamic symbols and exports ("export"), and the names of PLT stubs
//     and import thunks ("abort@plt") at their stub addresses: those stay
//     out of the function list but tell which calls never return.
//   - Hints: .init_array, .fini_array and .preinit_array pointers
//     ("init_array"), PE .pdata (start and size, "pdata"), Mach-O
//     LC_FUNCTION_STARTS ("function_starts"), the Go pclntab's functions
//     with names and sizes ("pclntab").
//   - Excluded: .plt, .plt.got, .plt.sec; Mach-O __stubs and
//     __stub_helper.
//   - EHFrame, EHFrameHdr (found through PT_GNU_EH_FRAME when there is
//     no section table) and DebugFrame, with their load addresses.
//
// Every function carries the Source that found it and a Confidence.
// Every loop is bounded, the context is checked as the work goes, and a
// Progress callback reports each stage. The bounds are a budget
// (Options.Limits, package binview/budget) counted as things grow:
// instructions decoded, functions and cross-references kept (past those
// the analysis goes on without more, with a warning), and the blocks,
// edges and bytes of memory the analysis holds, its working state and
// its results (past those the running stage fails with analysis_limit).
// One function's walk stops at MaxFunctionInstructions and MaxBlocks.
// A drawing of a function (DecodeBlocks, FuncCFG.WriteDOT, WriteSVG)
// counts its instructions and text against the output limit.
//
// The results cross a process boundary in a compact binary form
// (AppendFunctions, Graph.MarshalBinary) whose decoders check every
// count and order and count what they allocate in a budget, so that the
// analysis can run in an isolated worker (package binview/isolate).
package funcs
