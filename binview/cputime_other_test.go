//go:build !unix

package binview

// cpuTime is not measured here.
func cpuTime() int64 { return 0 }
