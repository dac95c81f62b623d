//go:build !linux

package isolate

// limitChild has no prlimit here; the child limits itself.
func limitChild(pid int, memory, cpu int64) error { return nil }
