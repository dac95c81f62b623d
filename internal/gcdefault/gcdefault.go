// Package gcdefault sets the garbage collector's pacing for Warden's
// long-running servers.
//
// A Warden server keeps a small live heap (a few megabytes) and allocates
// a few kilobytes per request, so with Go's default GOGC=100 it collects
// dozens of times a second under load; each cycle costs CPU and moves
// goroutine stacks. Letting the heap grow to five times the live data
// (GOGC=400) cut the server's CPU per tools/call by about 15 % over
// loopback (docs/PERFORMANCE-protocol.md). An operator's GOGC or
// GOMEMLIMIT always wins.
package gcdefault

import (
	"os"
	"runtime/debug"
)

// Percent is the GOGC value a server runs with when the environment sets
// neither GOGC nor GOMEMLIMIT.
const Percent = 400

// Apply sets the collector's target to Percent unless GOGC or GOMEMLIMIT
// is set in the environment, and reports whether it did.
func Apply() bool {
	if os.Getenv("GOGC") != "" || os.Getenv("GOMEMLIMIT") != "" {
		return false
	}
	debug.SetGCPercent(Percent)
	return true
}
