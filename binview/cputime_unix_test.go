//go:build unix

package binview

import "syscall"

// cpuTime is the process's user and system CPU time in nanoseconds:
// with other work sharing the machine, CPU per operation is the stable
// figure, wall time is not.
func cpuTime() int64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return ru.Utime.Nano() + ru.Stime.Nano()
}
