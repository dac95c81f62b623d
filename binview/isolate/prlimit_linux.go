package isolate

import "golang.org/x/sys/unix"

// limitChild sets the memory (RLIMIT_DATA, see rlimitData) and CPU
// limits on a started child, before it is given the file. The child
// sets them on itself too.
func limitChild(pid int, memory, cpu int64) error {
	if memory > 0 {
		lim := unix.Rlimit{Cur: uint64(memory), Max: uint64(memory)}
		if err := unix.Prlimit(pid, unix.RLIMIT_DATA, &lim, nil); err != nil {
			return err
		}
	}
	if cpu > 0 {
		lim := unix.Rlimit{Cur: uint64(cpu), Max: uint64(cpu) + 1}
		if err := unix.Prlimit(pid, unix.RLIMIT_CPU, &lim, nil); err != nil {
			return err
		}
	}
	return nil
}
