// Package isolate runs the analysis a hostile file can drive in a child
// process under memory, CPU and wall-clock limits, so that such a file
// can make only its own call fail, never the server: binview.Analyze
// (the parse), and the view's code analysis (functions, blocks,
// cross-references, the call graph).
//
// The standard library's debug/* parsers are not hardened against crafted
// inputs: some make them allocate gigabytes, and an out-of-memory crash
// cannot be recovered in process. The code analysis keeps to a budget
// (package binview/budget) that counts what it holds as it grows, but a
// count is an estimate, and the child's limits are the backstop for what
// it misses. The parent side is [Runner], the child side is [Serve],
// which a hidden subcommand of the warden binary calls ("warden
// analyze-worker").
//
// # Jobs
//
// Each job starts a child. The parent writes a request to the child's
// standard input (the options, the limits, then the job's input), applies
// the limits to the child (private writable memory, RLIMIT_DATA, and CPU
// seconds, with prlimit on Linux; the child also sets them on itself
// before it reads its input; see Limits.Memory for why not RLIMIT_AS),
// kills it at the wall clock, and reads its standard output with a size
// cap. The child gets an empty environment.
//
//   - [Runner.Analyze] sends the file and reads back the Analysis
//     snapshot.
//   - [Runner.RunCode] (a binview.CodeRunner) sends the view's snapshot
//     and file and runs binview.RunCode: the function stages, or all three
//     stages for the references stage (the analyzer's working state is
//     not kept between jobs, so the function stages run again: on the go
//     command the second child takes 1.7 s of CPU, the first 0.6 s). The
//     child writes frames as it goes: progress, each stage's result, and
//     an end. Only results cross the boundary (the
//     function list, then the graph: blocks, edges, cross-references,
//     callers and callees, in package funcs's compact encoding, about an
//     eighth of the memory they hold), never the instruction maps and
//     address sets the analysis works with, where the reported
//     out-of-memory crashes happened. A result frame is at most half the
//     job's byte limit, and the parent decodes it counting what it
//     allocates against the same limit, so a child that misbehaves makes
//     the parent allocate no more than that.
//
// The parent keeps the decoded results in the view, where its footprint
// counts them, so the server's view cache (bounded by bytes) bounds them
// with the file's bytes: an evicted view that is used again runs its code
// analysis again.
//
// # Failures
//
// Every failure is a coded error, for the call that needed the job only:
// analysis_timeout (wall clock, CPU limit, the view's time, cancellation)
// and analysis_failed (memory limit, crash, bad or oversized output), with
// a public "reason" detail; a code job also passes on the analysis's own
// errors, analysis_limit above all, with the limit it names. Results a
// code job reported before it failed stay with the view (the function
// list when the references stage failed). A view whose code job failed
// keeps the error: every later call that needs the stage gets it at once,
// without starting another child, until the view leaves the cache. The
// child's own words never reach the caller.
package isolate
