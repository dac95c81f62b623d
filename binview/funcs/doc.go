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
// Every function carries the Source that found it and a Confidence.
// Every loop is bounded (instructions decoded, functions, blocks per
// function, cross-references), the context is checked as the work goes,
// and a Progress callback reports each stage.
package funcs
