//go:build unix

package isolate

import "syscall"

// limitSelf sets the memory (RLIMIT_DATA) and CPU-time limits on this
// process.
// The CPU hard limit is a second above the soft one: SIGXCPU (ignored
// by Go programs) at the soft limit, SIGKILL at the hard one.
func limitSelf(memory, cpu int64) error {
	if memory > 0 {
		if err := lower(rlimitData, uint64(memory), uint64(memory)); err != nil {
			return err
		}
	}
	if cpu > 0 {
		if err := lower(syscall.RLIMIT_CPU, uint64(cpu), uint64(cpu)+1); err != nil {
			return err
		}
	}
	return nil
}

// lower sets a limit, never raising one already lower.
func lower(res int, soft, hard uint64) error {
	var cur syscall.Rlimit
	if err := syscall.Getrlimit(res, &cur); err != nil {
		return err
	}
	if cur.Max < hard {
		hard = cur.Max
	}
	if soft > hard {
		soft = hard
	}
	if cur.Cur < soft {
		soft = cur.Cur
	}
	return syscall.Setrlimit(res, &syscall.Rlimit{Cur: soft, Max: hard})
}

// rlimitData is RLIMIT_DATA: on Linux since 4.7 it bounds the private
// writable memory a process maps, which for Go is the heap it really
// uses. RLIMIT_AS would also count the address space the Go runtime
// reserves (without using) when it starts: on linux/amd64 it fails to
// start under a 1 GiB RLIMIT_AS.
const rlimitData = syscall.RLIMIT_DATA
