//go:build unix

package toolset

import "syscall"

// openNonblock opens without waiting: a FIFO swapped in for a checked
// regular file would otherwise block the open until a writer comes.
const openNonblock = syscall.O_NONBLOCK
