//go:build !unix

package isolate

// limitSelf cannot limit this platform's processes; the wall clock
// still applies.
func limitSelf(memory, cpu int64) error { return nil }
