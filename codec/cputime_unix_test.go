//go:build unix

package codec

import (
	"syscall"
	"time"
)

// processCPU returns the user+system CPU time of the process: the stable
// figure on a machine whose cores are shared.
func processCPU() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
