//go:build linux || darwin || freebsd || netbsd || openbsd || dragonfly

package testbin

import (
	"os"
	"syscall"
)

// lock takes an exclusive lock on the file at path, waiting for it; the
// operating system releases it if the process dies.
func lock(path string) (unlock func(), err error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, err
	}
	for {
		err = syscall.Flock(int(f.Fd()), syscall.LOCK_EX)
		if err != syscall.EINTR {
			break
		}
	}
	if err != nil {
		f.Close()
		return nil, err
	}
	return func() {
		syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
		f.Close()
	}, nil
}
