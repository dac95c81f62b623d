//go:build !unix

package cli

// cpuTime is not measured here.
func cpuTime() int64 { return 0 }
