package plugin

import "golang.org/x/sys/unix"

// limitChild sets a started Python child's address-space and CPU-time
// limits, as the analysis worker's are set (binview/isolate).
func limitChild(pid int, memory, cpuSeconds int64) error {
	if memory > 0 {
		lim := unix.Rlimit{Cur: uint64(memory), Max: uint64(memory)}
		if err := unix.Prlimit(pid, unix.RLIMIT_AS, &lim, nil); err != nil {
			return err
		}
	}
	if cpuSeconds > 0 {
		lim := unix.Rlimit{Cur: uint64(cpuSeconds), Max: uint64(cpuSeconds) + 1}
		if err := unix.Prlimit(pid, unix.RLIMIT_CPU, &lim, nil); err != nil {
			return err
		}
	}
	// No core files: a crash leaves nothing behind.
	return unix.Prlimit(pid, unix.RLIMIT_CORE, &unix.Rlimit{}, nil)
}
