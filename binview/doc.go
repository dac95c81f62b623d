// Package binview is Warden's binary views engine: it opens an executable
// file (ELF, PE, Mach-O including fat files, or raw bytes with a declared
// architecture and base) and answers questions about it: segments and
// sections, symbols, imports and exports, relocations, strings, build and
// toolchain information, hardening flags and hashes, address and
// file-offset mapping, memory reads and byte searches.
//
// The package is a leaf: it imports the standard library, the PE parser
// github.com/saferwall/pe, the demangler github.com/ianlancetaylor/demangle,
// its own sub-packages (disasm, cfi, funcs) and Warden's address-expression
// and error packages, and knows nothing of MCP.
//
// # Analyze, then view
//
// Opening a file has two halves. [Analyze] runs the format parsers over
// the bytes and produces an [Analysis]: a versioned, serializable snapshot
// of everything a view needs besides the bytes themselves. [New] builds an
// immutable [View] from the bytes and an Analysis without parsing the file
// again. [Open] does both in one call.
//
// The split exists for hosted servers. The parsers of the standard
// library's debug/* packages are not hardened against hostile files; a
// crafted input can make them allocate gigabytes, which no recover can
// catch. A hosted server therefore runs Analyze in a child process under
// memory, CPU and wall-clock limits (package binview/isolate), receives
// the snapshot ([Analysis.MarshalBinary], [UnmarshalAnalysis]) and builds
// the View in its own process; the view's code analysis runs in such a
// child too ([CodeRunner]). The snapshot is also what a server caches,
// keyed by the file's SHA-256, [EngineVersion] and [Options.CacheKey].
//
// Every parser here runs under recover, with sizes and counts checked
// against the file and the [Options] limits before anything is allocated.
//
// # Addresses
//
// A View implements addrexpr.Target, so address expressions such as
// "main", ".text + 0x10", "sub_401000", "printf" or "[rsp].q" resolve
// against its symbols and sections. Names recovered from Go's pclntab
// resolve like any other symbol, also in stripped Go binaries. Every
// address is a virtual address (uint64); [Hex] formats one the way tools
// print them.
//
// # Code analysis
//
// A View finds and analyses its functions on demand, in the background,
// with package binview/funcs: [View.StartCode] runs the function stages
// (the starts the metadata states, then recursive descent), and
// [View.WaitCode] with [CodeReferences] the blocks, cross-references and
// call graph. [View.CodeState] says what is ready without waiting, so a
// caller answers with what it has rather than block on a large file;
// [View.Close] stops the work. [View.FuncImage] is the analysis's input,
// built from the view. Names a person set are an [Overlay], laid over a
// view per caller ([View.WithOverlay]) without changing it.
//
// The code analysis, and every graph drawn from it ([View.FunctionCFG]),
// keep to one budget, [Options.Limits] (package binview/budget): each
// stage counts the instructions it decodes, the functions, blocks, edges
// and cross-references it keeps and the bytes all of that holds, as they
// grow, and a drawing counts its text; past a hard limit the work fails
// with analysis_limit naming the limit, and what earlier stages found
// stays. The budget is the same wherever the analysis runs: with
// [Options.CodeRunner] (binview/isolate's runner) it runs in a worker
// process, and the view keeps only the results the worker reports
// (function lists, the graph), which [View.Footprint] counts; [RunCode]
// is the worker's body.
//
// # Errors
//
// Every error is an *errcode.Error with a stable code ([CodeUnsupportedFormat],
// [CodeFileTooLarge], [CodeAddressUnmapped], ...) and a short message that
// never names a path.
package binview
