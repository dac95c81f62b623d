//go:build unix

package toolset

import "syscall"

// cpuTime is the user and system CPU time of this process and of its
// finished children, in nanoseconds: with other work sharing the machine,
// CPU per operation is the stable figure, wall time is not.
func cpuTime() int64 {
	var self, children syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &self) != nil || syscall.Getrusage(syscall.RUSAGE_CHILDREN, &children) != nil {
		return 0
	}
	return self.Utime.Nano() + self.Stime.Nano() + children.Utime.Nano() + children.Stime.Nano()
}
