// Package isolate runs binview.Analyze in a child process under memory,
// CPU and wall-clock limits, so that a hostile file can make only its own
// analysis fail, never the server.
//
// The standard library's debug/* parsers are not hardened against crafted
// inputs: some make them allocate gigabytes, and an out-of-memory crash
// cannot be recovered in process. A hosted server therefore analyses each
// file in a child: the parent side is [Runner], the child side is
// [Serve], which a hidden subcommand of the warden binary calls
// ("warden analyze-worker").
//
// The parent writes a request (the options, the limits and the file's
// bytes) to the child's standard input, applies the limits to the child
// (private writable memory, RLIMIT_DATA, and CPU seconds, with prlimit on
// Linux; the child also sets them on itself before it reads the file; see
// Limits.Memory for why not RLIMIT_AS), kills it at the wall
// clock, and reads the snapshot from its standard output with a size
// cap. Every failure maps to one of two stable codes:
// analysis_timeout (wall clock, CPU limit, cancellation) and
// analysis_failed (memory limit, crash, bad or oversized output), with a
// public "reason" detail. The child's messages never reach the caller.
package isolate
